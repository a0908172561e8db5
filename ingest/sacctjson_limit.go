package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mirage-hpc/mirage/trace"
)

// errRecordTooLong is returned by lineTracker.Read when the bytes held
// since the last offset asked about exceed its limit: the value being
// decoded is longer than Options.MaxLineBytes.
var errRecordTooLong = errors.New("sacct --json record too long")

// recordLimit returns how many bytes the lineTracker may hold for a record
// bound of max bytes: the bound plus the decoder's read-ahead. A record
// within the bound that trips it anyway (read-ahead) is recovered whole by
// skipValue.
func recordLimit(max int) int {
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	return max + readAheadSlack
}

// readAheadSlack is how far past the record bound the decoder may read
// ahead before the lineTracker trips (a variable for tests).
var readAheadSlack = 256 << 10

// skippedValue describes a JSON value skipped by lineTracker.skipValue.
type skippedValue struct {
	line   int64  // line the value starts on
	size   int64  // bytes of the value
	end    int64  // input offset just past it
	prefix []byte // its first quarantinePrefixBytes
	// raw is the whole value when it is at most the keep bytes passed to
	// skipValue; nil otherwise.
	raw  []byte
	rest []byte // bytes read past end, not yet decoded (a copy)
}

// skipValue scans the input from offset from (just after the previous
// array element, or the array's '['): white space, one ',', white space,
// then one JSON value, which it skips holding at most keep bytes of it,
// and reports. It is the recovery from errRecordTooLong. Input that ends
// inside the value is a *ParseError (truncated JSON).
func (t *lineTracker) skipValue(path string, from int64, keep int) (skippedValue, error) {
	t.lineAt(from)
	var sk skippedValue
	sc := valueScanner{}
	chunk := make([]byte, 64<<10)
	data := t.buf
	t.buf = nil
	for {
		k, done := sc.scan(data)
		if sc.started && sk.line == 0 {
			sk.line = t.line + int64(bytes.Count(data[:sc.startAt], []byte{'\n'}))
		}
		if sc.started {
			from := 0
			if sk.size == 0 {
				from = sc.startAt
			}
			if need := quarantinePrefixBytes - len(sk.prefix); need > 0 {
				sk.prefix = append(sk.prefix, data[from:min(k, from+need)]...)
			}
			if sk.size+int64(k-from) <= int64(keep) {
				sk.raw = append(sk.raw, data[from:k]...)
			} else {
				sk.raw = nil
			}
			sk.size += int64(k - from)
		}
		t.line += int64(bytes.Count(data[:k], []byte{'\n'}))
		t.base += int64(k)
		if done {
			sk.end = t.base
			sk.rest = bytes.Clone(data[k:])
			t.buf = append(t.buf[:0], data[k:]...)
			return sk, nil
		}
		n, err := t.r.Read(chunk)
		data = chunk[:n]
		if n == 0 && err != nil {
			if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
				return sk, &ParseError{Path: path, Line: t.line, Err: fmt.Errorf("%w: unexpected end of input (truncated JSON)", ErrBadRecord)}
			}
			return sk, fmt.Errorf("read %s: %w", path, err)
		}
	}
}

// valueScanner finds the end of one JSON value in a stream, after white
// space and at most one ','. It tracks strings and nesting only: the value
// is not validated.
type valueScanner struct {
	started bool // the value's first byte was seen
	startAt int  // index of that byte in the data of the call that saw it
	comma   bool
	depth   int
	inStr   bool
	escape  bool
	scalar  bool // a number or literal: ends at a delimiter
}

// scan consumes data and returns how many bytes belong to the value (and
// what precedes it) and whether the value ended there.
func (s *valueScanner) scan(data []byte) (int, bool) {
	for i, c := range data {
		if !s.started {
			switch c {
			case ' ', '\t', '\n', '\r':
				continue
			case ',':
				if !s.comma {
					s.comma = true
					continue
				}
			}
			s.started, s.startAt = true, i
		}
		switch {
		case s.inStr:
			switch {
			case s.escape:
				s.escape = false
			case c == '\\':
				s.escape = true
			case c == '"':
				s.inStr = false
				if s.depth == 0 {
					return i + 1, true
				}
			}
		case s.scalar:
			switch c {
			case ' ', '\t', '\n', '\r', ',', ']', '}':
				return i, true
			}
		default:
			switch c {
			case '"':
				s.inStr = true
			case '{', '[':
				s.depth++
			case '}', ']':
				s.depth--
				if s.depth <= 0 {
					return i + 1, true
				}
			default:
				if s.depth == 0 {
					s.scalar = true
				}
			}
		}
	}
	return len(data), false
}

// skipTooLong recovers from errRecordTooLong in the jobs array: it skips
// the over-long job object, quarantines it (ErrLineTooLong, with its first
// KiB), and continues with a new decoder positioned after it, inside the
// array (and the document object, when inDoc).
func (s *jsonReader) skipTooLong(from int64, inDoc bool) error {
	sk, err := s.lines.skipValue(s.c.path, from, s.lineLimit())
	if err != nil {
		return err
	}
	s.jobsSeen++
	switch {
	case sk.raw != nil && !json.Valid(sk.raw):
		// A value within the bound (the decoder's read-ahead tripped it)
		// that is not JSON: what the decoder would have said.
		return &ParseError{Path: s.c.path, Line: sk.line, Err: fmt.Errorf("%w: invalid JSON in the job object", ErrBadRecord)}
	case sk.raw != nil:
		if err := s.record(sk.raw, sk.line); err != nil {
			return err
		}
	default:
		if err := s.c.row(); err != nil {
			return err
		}
		perr := &ParseError{Path: s.c.path, Line: sk.line,
			Err: fmt.Errorf("%w: a job object of %d bytes or more, the limit is %d (--max-line-bytes); its steps are not counted", ErrLineTooLong, sk.size, s.lineLimit())}
		if err := s.c.bad(perr, sk.prefix); err != nil {
			return err
		}
	}
	prefix := `[null`
	if inDoc {
		prefix = `{"jobs":[null`
	}
	dec := json.NewDecoder(io.MultiReader(bytes.NewReader([]byte(prefix)), bytes.NewReader(sk.rest), s.lines))
	n := 2 // '[' then null
	if inDoc {
		n = 4 // '{', "jobs", '[', null
	}
	for range n - 1 {
		if _, err := dec.Token(); err != nil {
			return fmt.Errorf("ingest: resume after a long record: %w", err)
		}
	}
	var null json.RawMessage
	if err := dec.Decode(&null); err != nil {
		return fmt.Errorf("ingest: resume after a long record: %w", err)
	}
	s.dec = dec
	s.delta = sk.end - int64(len(prefix))
	return nil
}

// checkFields returns the *ParseError of a job one of whose kept strings
// is longer than the field bound, or nil.
func (s *jsonReader) checkFields(j *trace.Job, line int64) *ParseError {
	limit := s.c.fieldLimit()
	for _, f := range [...]struct {
		name string
		s    string
	}{
		{"name", j.JobName}, {"user", j.User}, {"group", j.Group}, {"account", j.Account},
		{"partition", j.Partition}, {"qos", j.QOS}, {"cluster", j.Cluster}, {"state.reason", j.Reason},
	} {
		if len(f.s) > limit {
			return &ParseError{Path: s.c.path, Line: line, Field: f.name,
				Err: fmt.Errorf("%w: %d bytes, the limit is %d (--max-field-bytes)", ErrFieldTooLong, len(f.s), limit)}
		}
	}
	return nil
}

// tooLong quarantines a job object longer than the line bound that the
// decoder read whole (within its read-ahead) as one row.
func (s *jsonReader) tooLong(line int64, raw []byte) error {
	if err := s.c.row(); err != nil {
		return err
	}
	perr := &ParseError{Path: s.c.path, Line: line,
		Err: fmt.Errorf("%w: a job object of %d bytes, the limit is %d (--max-line-bytes); its steps are not counted", ErrLineTooLong, len(raw), s.lineLimit())}
	return s.c.bad(perr, rawPrefix(raw))
}

// lineLimit returns the bound on one job object's bytes.
func (s *jsonReader) lineLimit() int {
	if s.c.maxLine > 0 {
		return s.c.maxLine
	}
	return DefaultMaxLineBytes
}
