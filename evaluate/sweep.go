package evaluate

import (
	"strconv"
	"strings"
)

// sweptSlurmEstimate is one variant of a slurm-estimate margin sweep.
type sweptSlurmEstimate struct {
	SlurmEstimate
	label string
}

func (p sweptSlurmEstimate) Name() string { return p.label }

// SweepMargins returns ps with each slurm-estimate replaced by one policy
// per margin (seconds), named "slurm-estimate@margin=H" with H the margin
// in hours (as θ is), each keeping a time-min (WithTimeMin: named
// "slurm-estimate@margin=H@tmin=DUR"). With one margin, each slurm-estimate gets it and
// keeps its name; with none, ps is returned unchanged.
func SweepMargins(ps []Policy, marginsSec []int64) []Policy {
	if len(marginsSec) == 0 {
		return ps
	}
	var out []Policy
	for _, p := range ps {
		if w, ok := p.(withTimeMin); ok { // its margins, each with its time-min
			if _, ok := w.Causal.(SlurmEstimate); ok {
				for _, q := range SweepMargins([]Policy{w.Causal}, marginsSec) {
					out = append(out, withTimeMin{Causal: q.(Causal), sec: w.sec,
						label: q.Name() + strings.TrimPrefix(w.Name(), w.Causal.Name())})
				}
				continue
			}
		}
		se, ok := p.(SlurmEstimate)
		if !ok {
			out = append(out, p)
			continue
		}
		if len(marginsSec) == 1 {
			se.MarginSec = marginsSec[0]
			out = append(out, se)
			continue
		}
		for _, m := range marginsSec {
			se.MarginSec = m
			out = append(out, sweptSlurmEstimate{SlurmEstimate: se,
				label: se.Name() + "@margin=" + strconv.FormatFloat(float64(m)/3600, 'g', -1, 64)})
		}
	}
	return out
}
