package pipelines

import "errors"

// ErrTraceFit is wrapped, beside ErrStudy, by a study refusal whose cause
// is the trace's data rather than the study's text: jobs wider than the
// cluster or asking far more node-hours than it offers, no job in the
// chains' partition, no recorded start, no submit time, dates relative to
// 1970. (A trace ingested in another zone than the study's stays a study
// error: either may be the one to fix.) The CLI reports it as bad input
// data (exit status 2), where other ErrStudy errors are usage (3).
var ErrTraceFit = errors.New("the trace does not fit the study")

// traceFitError marks err as caused by the trace's data: errors.Is(e,
// ErrTraceFit) holds and its message is err's.
type traceFitError struct{ err error }

func (e traceFitError) Error() string        { return e.err.Error() }
func (e traceFitError) Unwrap() error        { return e.err }
func (e traceFitError) Is(target error) bool { return target == ErrTraceFit }

// traceFit marks err (nil stays nil) as caused by the trace's data.
func traceFit(err error) error {
	if err == nil {
		return nil
	}
	return traceFitError{err}
}
