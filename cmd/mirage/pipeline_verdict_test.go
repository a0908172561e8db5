package main

import (
	"bytes"
	"testing"

	"github.com/mirage-hpc/mirage/reports"
)

func TestWriteVerdict(t *testing.T) {
	sp, w2 := 0.31, 0.2
	for _, tc := range []struct {
		name string
		g    *reports.GroundsSummary
		want string
	}{
		{"no report", nil, ""},
		{"waits unknown", &reports.GroundsSummary{Fidelity: &reports.Fidelity{},
			Recommendations: []reports.GroundsChain{{ChainNodes: 1, Policy: "avg",
				Withheld: []reports.Reason{{Kind: "waits-unknown", Cause: "the trace records no waits", Next: "give a trace with starts"}}}}},
			"fidelity: not measured (the trace records no real waits)\n" +
				"chains of 1 node: no recommendation: the trace records no waits; next: give a trace with starts\n"},
		{"one cause, two sizes", &reports.GroundsSummary{Fidelity: &reports.Fidelity{Jobs: 10, Spearman: &sp, Within2x: &w2},
			Recommendations: []reports.GroundsChain{
				{ChainNodes: 1, Withheld: []reports.Reason{{Kind: "low-fidelity", Cause: "low", Next: "profile"}}},
				{ChainNodes: 8, Withheld: []reports.Reason{{Kind: "low-fidelity", Cause: "low", Next: "profile"}}},
				{ChainNodes: 16, Withheld: []reports.Reason{{Kind: "no-reduction", Cause: "ci", Next: "more"}}},
				{ChainNodes: 32, Recommended: true, Policy: "forest"}}},
			"fidelity: wait Spearman 0.31, 20.0 % within 2x on 10 jobs\n" +
				"chains of 1 and 8 nodes: no recommendation: low; next: profile\n" +
				"chains of 16 nodes: no recommendation: ci; next: more\n" +
				"chains of 32 nodes: recommend forest\n"},
		{"no chains found", &reports.GroundsSummary{Fidelity: &reports.Fidelity{Jobs: 10, Spearman: &sp, Chains: &reports.ChainCheck{}}},
			"fidelity: wait Spearman 0.31 on 10 jobs\n" + reports.NoChainsText + "\n"},
		{"grounded, with chains", &reports.GroundsSummary{Fidelity: &reports.Fidelity{Jobs: 10, Spearman: &sp, Within2x: &w2,
			Chains: &reports.ChainCheck{Links: 3, RealH: 5, ReactiveH: 2.5}},
			Recommendations: []reports.GroundsChain{{ChainNodes: 8, Recommended: true, Policy: "forest"}}},
			"fidelity: wait Spearman 0.31, 20.0 % within 2x on 10 jobs\n" +
				"the trace's chains: 5.0 h of interruption really, 2.5 h in the simulator's reactive replay (3 links)\n" +
				"chains of 8 nodes: recommend forest\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			writeVerdict(&b, tc.g)
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}
