package main

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// errUnfitInput is wrapped by the errors of a stage that refuses an input
// it cannot give meaningful figures for (exit status 2): a trace whose
// jobs do not fit the simulated partition.
var errUnfitInput = errors.New("the trace does not fit the simulated partition")

// checkFit reports how a trace fits the simulated partition before a
// stage simulates it: it logs and returns a warning for each problem
// (jobs wider than the partition, demand far above its capacity), and
// refuses, with an error wrapping errUnfitInput, a trace whose wide jobs
// are more than sim.MaxSkipShare of its jobs or node-hours, unless
// allowSkip. flag names the setting that sizes the partition (--partition-nodes),
// as the fix.
func checkFit(f sim.Fit, allowSkip bool, flag string, log *slog.Logger) ([]string, error) {
	var warnings []string
	if msg := f.WideMessage(flag); msg != "" {
		if f.TooWide() && !allowSkip {
			return nil, fmt.Errorf("%w: %s; or pass --allow-skip to simulate without them (more than %.0f%% of the jobs or node-hours)",
				errUnfitInput, msg, 100*sim.MaxSkipShare)
		}
		warnings = append(warnings, msg)
	}
	if msg := f.OverloadMessage(flag); msg != "" {
		warnings = append(warnings, msg)
	}
	for _, w := range warnings {
		log.Warn(w)
	}
	return warnings, nil
}

// checkProtocolFit is checkFit for the partition of protocol p (its
// Nodes, or its profile's) over the whole trace; flag names the setting
// that sizes it.
func checkProtocolFit(p features.Protocol, tjobs []trace.Job, allowSkip bool, flag string, log *slog.Logger) ([]string, error) {
	nodes := p.Nodes
	if nodes <= 0 {
		prof, err := p.SimProfile()
		if err != nil {
			return nil, usageError{err}
		}
		nodes = prof.Config.Nodes
	}
	return checkFit(sim.CheckFit(tjobs, nodes, 0, 0), allowSkip, flag, log)
}

// partitionFlag names the setting that sizes the partition: flag, or with
// a study its cluster.nodes as well.
func partitionFlag(study, flag string) string {
	if study != "" {
		return "the study's cluster.nodes (or " + flag + ")"
	}
	return flag
}
