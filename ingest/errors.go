package ingest

import (
	"errors"
	"strconv"
)

// Errors that describe a bad row; a *ParseError wraps one of them (or
// trace.ErrBadState).
var (
	ErrFieldCount  = errors.New("wrong number of fields")
	ErrBadTime     = errors.New("invalid time")
	ErrBadDuration = errors.New("invalid duration")
	ErrBadNumber   = errors.New("invalid number")
	ErrBadJobID    = errors.New("invalid job ID")
	ErrBadMemory   = errors.New("invalid memory size")
	ErrBadExitCode = errors.New("invalid exit code")
	ErrTimeOrder   = errors.New("times out of order")
	ErrOrphanStep  = errors.New("step without its allocation row")
	ErrDuplicate   = errors.New("duplicate job")
	ErrBadRecord   = errors.New("invalid record")
)

// Errors that describe a whole input.
var (
	ErrUnknownFormat = errors.New("unknown input format")
	ErrFixedWidth    = errors.New("fixed-width sacct output truncates values; re-run sacct with --parsable2 (-P) and an explicit --format=..., or with --json")
	ErrEmptyInput    = errors.New("input is empty")
	ErrHeaderOnly    = errors.New("input has a header but no rows")
	ErrMissingColumn = errors.New("required column missing")
	// ErrDuplicateColumn is a header that names one column twice: which
	// of the two to read would be a guess.
	ErrDuplicateColumn = errors.New("duplicate column")
	// ErrNoJobs is a run whose every row was quarantined: the output would
	// be an empty trace. Options.AllowEmpty accepts it.
	ErrNoJobs = errors.New("no jobs: every row was quarantined")
	// ErrOutputIsInput is an output path (trace or quarantine file) that is
	// one of the inputs, or the other output: writing it would destroy
	// the input.
	ErrOutputIsInput = errors.New("output is an input")
	// ErrBadOption is an Options value out of its range.
	ErrBadOption = errors.New("invalid option")
)

// ParseError locates a bad row. Line numbers are 1-indexed; Line is 0 for
// errors not tied to a line (a JSON record is located by the line its
// object starts on). Field is the column as the input names it, "" when
// the whole row is bad.
type ParseError struct {
	Path  string
	Line  int64
	Field string
	Err   error
}

// Error formats the error as "path:line: field: reason".
func (e *ParseError) Error() string {
	s := e.Path
	if e.Line > 0 {
		s += ":" + strconv.FormatInt(e.Line, 10)
	}
	if e.Field != "" {
		s += ": " + e.Field
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

// IsInputError reports whether err describes bad input (a bad row or an
// unreadable input format) rather than an I/O or internal failure.
func IsInputError(err error) bool {
	var pe *ParseError
	if errors.As(err, &pe) {
		return true
	}
	for _, e := range []error{ErrUnknownFormat, ErrFixedWidth, ErrEmptyInput, ErrHeaderOnly, ErrMissingColumn, ErrDuplicateColumn, ErrNoJobs, ErrTruncated, ErrLineTooLong} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
