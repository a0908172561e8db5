package sim

import (
	"errors"
	"fmt"
)

// ErrUnfit is wrapped by the errors of a stage that refuses a trace it
// cannot give meaningful figures for: one whose jobs wider than the
// simulated partition are more than MaxSkipShare of its jobs or
// node-hours (Fit.Check). The command line maps it to exit status 2.
var ErrUnfit = errors.New("the trace does not fit the simulated partition")

// Check is how every stage that simulates a trace judges its fit before
// the work: it returns a warning for each problem (jobs wider than the
// partition, demand far above its capacity) and refuses, with an error
// wrapping ErrUnfit, a trace whose wide jobs are more than MaxSkipShare
// of its jobs or node-hours, unless allowSkip. flag names the setting
// that sizes the partition (for example "--partition-nodes"), as the
// fix. The caller logs the warnings.
func (f Fit) Check(allowSkip bool, flag string) ([]string, error) {
	var warnings []string
	if msg := f.WideMessage(flag); msg != "" {
		if f.TooWide() && !allowSkip {
			return nil, fmt.Errorf("%w: %s; or pass --allow-skip to simulate without them (more than %.0f%% of the jobs or node-hours)",
				ErrUnfit, msg, 100*MaxSkipShare)
		}
		warnings = append(warnings, msg)
	}
	if msg := f.OverloadMessage(flag); msg != "" {
		warnings = append(warnings, msg)
	}
	return warnings, nil
}
