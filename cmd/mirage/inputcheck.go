package main

import (
	"log/slog"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// checkFit logs the warnings of how a trace fits the simulated
// partition (sim.Fit.Check) and returns them, or Check's error wrapping
// sim.ErrUnfit.
func checkFit(f sim.Fit, allowSkip bool, flag string, log *slog.Logger) ([]string, error) {
	warnings, err := f.Check(allowSkip, flag)
	for _, w := range warnings {
		log.Warn(w)
	}
	return warnings, err
}

// checkProtocolFit is checkFit for the partition of protocol p over the
// whole trace (features.Protocol.Fit); flag names the setting that sizes
// it.
func checkProtocolFit(p features.Protocol, tjobs []trace.Job, allowSkip bool, flag string, log *slog.Logger) ([]string, error) {
	f, err := p.Fit(tjobs)
	if err != nil {
		return nil, usageError{err}
	}
	return checkFit(f, allowSkip, flag, log)
}

// partitionFlag names the setting that sizes the partition: flag, or with
// a study its cluster.nodes as well.
func partitionFlag(study, flag string) string {
	if study != "" {
		return "the study's cluster.nodes (or " + flag + ")"
	}
	return flag
}
