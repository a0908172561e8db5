package ingest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
)

// Default limits of Options.MaxLineBytes and Options.MaxFieldBytes.
const (
	// DefaultMaxLineBytes bounds one input line (or sacct --json job
	// object): 16 MiB.
	DefaultMaxLineBytes = 16 << 20
	// DefaultMaxFieldBytes bounds one field (a text column or a JSON
	// string): 1 MiB.
	DefaultMaxFieldBytes = 1 << 20
	// maxColumns bounds the columns of a header and the fields of a row
	// that are split out (a row with more fields than its header is
	// quarantined without splitting the rest).
	maxColumns = 1024
	// quarantinePrefixBytes is how much of an over-long line or record the
	// quarantine file keeps (its Raw).
	quarantinePrefixBytes = 1 << 10
)

// ErrLineTooLong is wrapped by the *ParseError of a line (or sacct --json
// job object) longer than Options.MaxLineBytes: the row is quarantined
// (with its first bytes) and reading goes on with the next line.
var ErrLineTooLong = errors.New("line too long")

// ErrFieldTooLong is wrapped by the *ParseError of a row one of whose
// fields is longer than Options.MaxFieldBytes; the row is quarantined.
var ErrFieldTooLong = errors.New("field too long")

// longLineError is returned by lineReader.next for a line longer than its
// limit, whose rest has been skipped: the line counts as read (line
// numbers go on), and prefix holds its first bytes.
type longLineError struct {
	line   int64 // 1-indexed
	size   int64 // bytes of the whole line, without its ending
	max    int
	prefix []byte
}

func (e *longLineError) Error() string { return fmt.Sprintf("line %d: %v", e.line, e.reason()) }

// reason is the error without the line number, for a *ParseError.
func (e *longLineError) reason() error {
	return fmt.Errorf("%w: %d bytes or more, the limit is %d (--max-line-bytes)", ErrLineTooLong, e.size, e.max)
}

func (e *longLineError) Unwrap() error { return ErrLineTooLong }

// lineReader yields the lines of an input without their line endings
// (\n or \r\n), counting 1-indexed line numbers. A line's bytes are valid
// until the next call to next.
type lineReader struct {
	br   *bufio.Reader
	line int64
	long []byte
	// max bounds a line in bytes (DefaultMaxLineBytes when 0).
	max int
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 256<<10)}
}

// next returns the next line, or io.EOF after the last. A line longer than
// lr.max is skipped without being held in memory: next then returns a
// *longLineError (wrapping ErrLineTooLong), and the following call goes on
// with the next line.
func (lr *lineReader) next() ([]byte, error) {
	limit := lr.max
	if limit <= 0 {
		limit = DefaultMaxLineBytes
	}
	b, err := lr.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		lr.long = append(lr.long[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = lr.br.ReadSlice('\n')
			lr.long = append(lr.long, b...)
			if len(lr.long) > limit {
				return nil, lr.skipLong(err)
			}
		}
		b = lr.long
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	if len(b) == 0 && err == io.EOF {
		return nil, io.EOF
	}
	lr.line++
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	if len(b) > limit {
		return nil, &longLineError{line: lr.line, size: int64(len(b)), max: limit, prefix: bytes.Clone(rawPrefix(b))}
	}
	return b, nil
}

// skipLong reads past the rest of the over-long line held in lr.long (err
// is the last ReadSlice's) and returns its *longLineError, or a read error.
func (lr *lineReader) skipLong(err error) error {
	e := &longLineError{max: lr.max, size: int64(len(lr.long)), prefix: bytes.Clone(rawPrefix(lr.long))}
	if e.max <= 0 {
		e.max = DefaultMaxLineBytes
	}
	lr.long = lr.long[:0:0] // release the big buffer
	for errors.Is(err, bufio.ErrBufferFull) {
		var b []byte
		b, err = lr.br.ReadSlice('\n')
		e.size += int64(len(b))
	}
	if err == nil {
		e.size-- // the '\n'
	}
	if err != nil && err != io.EOF {
		return err
	}
	lr.line++
	e.line = lr.line
	return e
}

// splitInto splits line at sep into fields, reusing dst.
//
// It scans eight bytes at a time (SWAR): sacct fields are short, so one
// bytes.IndexByte call per field costs more in call overhead than it saves.
func splitInto(dst [][]byte, line []byte, sep byte) [][]byte {
	dst = dst[:0]
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	pat := uint64(sep) * lo
	start, i := 0, 0
	for ; i+8 <= len(line); i += 8 {
		x := binary.LittleEndian.Uint64(line[i:]) ^ pat
		// m has the high bit set in every byte of x that is zero (and
		// possibly in bytes above one, which the loop re-checks).
		m := (x - lo) &^ x & hi
		for m != 0 {
			k := i + bits.TrailingZeros64(m)>>3
			if line[k] == sep {
				dst = append(dst, line[start:k])
				start = k + 1
			}
			m &= m - 1
		}
	}
	for ; i < len(line); i++ {
		if line[i] == sep {
			dst = append(dst, line[start:i])
			start = i + 1
		}
	}
	return append(dst, line[start:])
}

// splitLimit is splitInto keeping at most limit fields; it also returns
// the number of fields line has, so that a row of a million separators
// costs no more memory than a row of limit+1 fields.
func splitLimit(dst [][]byte, line []byte, sep byte, limit int) ([][]byte, int) {
	n := bytes.Count(line, []byte{sep}) + 1
	if n <= limit {
		return splitInto(dst, line, sep), n
	}
	end := 0
	for range limit {
		end += bytes.IndexByte(line[end:], sep) + 1
	}
	return splitInto(dst, line[:end-1], sep), n
}

// longField returns the index of the first field longer than limit bytes,
// or -1.
func longField(fields [][]byte, limit int) int {
	for i, f := range fields {
		if len(f) > limit {
			return i
		}
	}
	return -1
}
