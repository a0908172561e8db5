package main

import (
	"fmt"
	"io"

	"github.com/mirage-hpc/mirage/reports"
)

// writeVerdict writes a finished report's verdict under pipeline run's
// stage lines: the simulator's fidelity, the trace's chains, and per
// chain size the recommended policy or why there is none (its first
// reason and next step; the page has all of them).
func writeVerdict(w io.Writer, g *reports.GroundsSummary) {
	if g == nil {
		return
	}
	if f := g.Fidelity; f != nil {
		switch {
		case f.Jobs == 0 || f.Spearman == nil:
			fmt.Fprintln(w, "fidelity: not measured (the trace records no real waits)")
		default:
			line := fmt.Sprintf("fidelity: wait Spearman %.2f", *f.Spearman)
			if f.Within2x != nil {
				line += fmt.Sprintf(", %.1f %% within 2x", 100**f.Within2x)
			}
			fmt.Fprintf(w, "%s on %d jobs\n", line, f.Jobs)
		}
		if c := f.Chains; c != nil {
			fmt.Fprintf(w, "the trace's chains: %.1f h of interruption really, %.1f h in the simulator's reactive replay (%d links)\n",
				c.RealH, c.ReactiveH, c.Links)
		}
	}
	for _, r := range g.Recommendations {
		switch {
		case r.Recommended:
			fmt.Fprintf(w, "chains of %s: recommend %s\n", plural(int64(r.ChainNodes), "node"), r.Policy)
		case len(r.Withheld) > 0:
			fmt.Fprintf(w, "chains of %s: no recommendation: %s; next: %s\n", plural(int64(r.ChainNodes), "node"), r.Withheld[0].Cause, r.Withheld[0].Next)
		default:
			fmt.Fprintf(w, "chains of %s: no recommendation\n", plural(int64(r.ChainNodes), "node"))
		}
	}
}
