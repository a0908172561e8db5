package main

import (
	"fmt"
	"io"
	"time"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/features"
)

// realChainsOptions reads --real-chains and its span and bound; nil when
// the flag is off (the other flags are then refused).
func realChainsOptions(c EvaluateConfig, p features.Protocol) (*evaluate.ChainsOptions, error) {
	if !c.RealChains {
		if c.RealChainsFrom != "" || c.RealChainsTo != "" || c.RealChainsMaxLinks != 0 {
			return nil, usagef("--real-chains-from, --real-chains-to and --real-chains-max-links need --real-chains")
		}
		return nil, nil
	}
	if c.RealChainsMaxLinks < 0 {
		return nil, usagef("--real-chains-max-links %d: want a count >= 0", c.RealChainsMaxLinks)
	}
	from, to, err := evaluate.ProtocolSpan(p)
	if err != nil {
		return nil, err
	}
	loc, err := time.LoadLocation(p.TZ)
	if err != nil {
		return nil, err
	}
	for _, f := range []struct {
		flag, v string
		dst     *int64
	}{{"--real-chains-from", c.RealChainsFrom, &from}, {"--real-chains-to", c.RealChainsTo, &to}} {
		if f.v == "" {
			continue
		}
		t, err := time.ParseInLocation("2006-01-02T15:04:05", f.v, loc)
		if err != nil {
			if t, err = time.ParseInLocation("2006-01-02", f.v, loc); err != nil {
				return nil, usagef("%s %q: want YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS", f.flag, f.v)
			}
		}
		*f.dst = t.Unix()
	}
	if to <= from {
		return nil, usagef("--real-chains-from and --real-chains-to: an empty span")
	}
	return &evaluate.ChainsOptions{From: from, To: to, MaxLinks: c.RealChainsMaxLinks}, nil
}

// printRealChains writes the real chains' totals: real, simulated
// reactive and each policy's hours over the replayed links.
func printRealChains(w io.Writer, s *evaluate.ChainsSummary) {
	fmt.Fprintf(w, "\nreal chains: %d chains, %d links, %d replayed", s.Chains, s.Links, s.Replayed)
	for _, k := range s.Skipped {
		fmt.Fprintf(w, "; %d %s", k.Links, k.Reason)
	}
	fmt.Fprintf(w, "\n%-24s %14s %10s\n", "", "interruption_h", "overlap_h")
	fmt.Fprintf(w, "%-24s %14.1f %10.1f\n", "real", s.RealInterruptionH, s.RealOverlapH)
	fmt.Fprintf(w, "%-24s %14.1f %10.1f\n", "simulated reactive", s.ReactiveH, s.ReactiveOverlapH)
	for _, p := range s.Policies {
		fmt.Fprintf(w, "%-24s %14.1f %10.1f\n", p.Policy, p.InterruptionH, p.OverlapH)
	}
}
