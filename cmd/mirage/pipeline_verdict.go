package main

import (
	"fmt"
	"io"
	"strings"

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
		if c := f.Chains; c != nil && c.Links == 0 {
			fmt.Fprintln(w, reports.NoChainsText)
		} else if c != nil {
			fmt.Fprintf(w, "the trace's chains: %.1f h of interruption really, %.1f h in the simulator's reactive replay (%d links)\n",
				c.RealH, c.ReactiveH, c.Links)
		}
	}
	// Chain sizes withheld for one same cause share a line.
	recs := g.Recommendations
	for i := 0; i < len(recs); {
		r := recs[i]
		nodes := []string{fmt.Sprint(r.ChainNodes)}
		j := i + 1
		for ; !r.Recommended && len(r.Withheld) > 0 && j < len(recs) && !recs[j].Recommended && len(recs[j].Withheld) > 0 &&
			recs[j].Withheld[0] == r.Withheld[0]; j++ {
			nodes = append(nodes, fmt.Sprint(recs[j].ChainNodes))
		}
		what := plural(int64(r.ChainNodes), "node")
		if len(nodes) > 1 {
			what = strings.Join(nodes[:len(nodes)-1], ", ") + " and " + nodes[len(nodes)-1] + " nodes"
		}
		switch {
		case r.Recommended:
			fmt.Fprintf(w, "chains of %s: recommend %s\n", what, r.Policy)
		case len(r.Withheld) > 0:
			fmt.Fprintf(w, "chains of %s: no recommendation: %s; next: %s\n", what, r.Withheld[0].Cause, r.Withheld[0].Next)
		default:
			fmt.Fprintf(w, "chains of %s: no recommendation\n", what)
		}
		i = j
	}
}
