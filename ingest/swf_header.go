package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrAllUnknown is wrapped by the *ParseError of an SWF line whose every
// field but the job number is -1: it records no job, so it is quarantined
// rather than kept as an empty one.
var ErrAllUnknown = errors.New("no data")

// swfEpochNote is the note for a header without UnixStartTime when no
// Options.StartTime anchors the times.
const swfEpochNote = "no UnixStartTime header: times count from the Unix epoch, so dates are relative to 1970-01-01T00:00:00Z; pass --start-time to anchor them"

// swfCoresNote is the note for a header without MaxProcs/MaxNodes when no
// Options.CoresPerNode is given.
const swfCoresNote = "cores per node unknown (no MaxProcs/MaxNodes header): each processor was taken as a node (NNodes = NCPUs); pass --cores-per-node to set it"

// checkStartTime returns an error wrapping ErrBadTime when t, an
// Options.StartTime, is set but outside the range SWF times may count from:
// the Unix epoch to swfMaxSeconds after it.
func checkStartTime(t time.Time) error {
	if t.IsZero() {
		return nil
	}
	if sec := t.Unix(); sec < 0 || sec > swfMaxSeconds {
		return fmt.Errorf("%w: start time %s (want an instant from 1970-01-01T00:00:00Z to %d seconds after it)",
			ErrBadTime, t.UTC().Format(time.RFC3339), int64(swfMaxSeconds))
	}
	return nil
}

// header reads one header comment (without its ';'), "Key: value".
func (s *swfReader) header(b []byte, line int64) error {
	i := bytes.IndexByte(b, ':')
	if i < 0 {
		return nil
	}
	key := string(trimSWFSpace(b[:i]))
	val := trimSWFSpace(b[i+1:])
	for k, c := range val {
		if isSWFSpace(c) {
			val = val[:k]
			break
		}
	}
	switch {
	case strings.EqualFold(key, "UnixStartTime"):
		if s.hasStart {
			return nil
		}
		n, frac, neg, err := swfNumber(val)
		if len(val) == 0 || err == nil && n == -1 && !frac {
			return nil // empty or unknown: as if absent
		}
		if err != nil || neg || n > swfMaxSeconds {
			return &ParseError{Path: s.c.path, Line: line, Field: "UnixStartTime",
				Err: fmt.Errorf("%w: %q (want seconds since the Unix epoch)", ErrBadTime, val)}
		}
		s.start, s.hasStart = n, true
	case strings.EqualFold(key, "MaxNodes"):
		s.maxNodes = s.positive(val, "MaxNodes", line)
	case strings.EqualFold(key, "MaxProcs"):
		s.maxProcs = s.positive(val, "MaxProcs", line)
	}
	return nil
}

// positive parses a header count, noting and ignoring a bad one.
func (s *swfReader) positive(val []byte, key string, line int64) int64 {
	n, frac, _, err := swfNumber(val)
	if err != nil || frac || n <= 0 {
		s.c.note(fmt.Sprintf("header line %d: %s %q is not a positive whole number; ignored", line, key, val))
		return 0
	}
	return n
}

// begin ends the header: it fixes the instant times count from and the
// cores per node, and notes what the header lacked.
func (s *swfReader) begin() {
	s.inData = true
	s.anchor()
	s.cores()
}

// anchor fixes s.start: the header's UnixStartTime, else
// Options.StartTime (truncated to whole seconds), else the Unix epoch.
func (s *swfReader) anchor() {
	opt := s.opts.StartTime
	switch {
	case s.hasStart && !opt.IsZero() && opt.Unix() != s.start:
		s.c.note(fmt.Sprintf("the UnixStartTime header %d (%s) is used; --start-time %s is ignored",
			s.start, rfc3339Sec(s.start), opt.UTC().Format(time.RFC3339)))
	case s.hasStart:
	case !opt.IsZero():
		s.start, s.hasStart = opt.Unix(), true
		s.c.note(fmt.Sprintf("no UnixStartTime header: times count from --start-time %s (UnixStartTime %d)",
			rfc3339Sec(s.start), s.start))
	default:
		s.c.note(swfEpochNote)
	}
}

// cores fixes s.cpn from the header's MaxProcs/MaxNodes, else
// Options.CoresPerNode, else 0 (processors are nodes).
func (s *swfReader) cores() {
	if s.maxNodes > 0 && s.maxProcs > 0 {
		if s.maxProcs%s.maxNodes == 0 {
			s.cpn = s.maxProcs / s.maxNodes
			s.c.in.MaxNodes = s.maxNodes
			return
		}
		s.c.note(fmt.Sprintf("MaxProcs %d is not a multiple of MaxNodes %d: cores per node unknown from the header", s.maxProcs, s.maxNodes))
	}
	if s.opts.CoresPerNode > 0 {
		s.cpn = int64(s.opts.CoresPerNode)
		return
	}
	s.c.note(swfCoresNote)
}

// noteStartUnknown notes how many jobs ran from an unknown start, if any.
func (s *swfReader) noteStartUnknown() {
	switch s.startUnknown {
	case 0:
	case 1:
		s.c.note("1 job has a wait time of -1 but a known run time: it ran from an unknown start (start_unknown), and is left out of waits")
	default:
		s.c.note(fmt.Sprintf("%d jobs have a wait time of -1 but a known run time: they ran from an unknown start (start_unknown), and are left out of waits", s.startUnknown))
	}
}

// rfc3339Sec formats Unix seconds as RFC 3339 in UTC.
func rfc3339Sec(sec int64) string { return time.Unix(sec, 0).UTC().Format(time.RFC3339) }
