package reports

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/evaluate"
)

// TestRealChainsSentence: the sentence gives the real, the simulated
// reactive and the best candidate's hours; a policy the chains did not
// replay is left out, and no replayed link means no sentence.
func TestRealChainsSentence(t *testing.T) {
	rc := &evaluate.ChainsSummary{From: 1677650400, To: 1680328800, Links: 12, Replayed: 10, RealInterruptionH: 120.04,
		ReactiveH: 150, Policies: []evaluate.ChainPolicy{{Policy: "reactive", InterruptionH: 150}, {Policy: "slurm-estimate", InterruptionH: 30.26, OverlapH: 80}}}
	recs := []Recommendation{{Nodes: 1, Recommended: true, Stats: Stats{Policy: "slurm-estimate"}},
		{Nodes: 8, Stats: Stats{Policy: "slurm-estimate"}}, {Nodes: 16, Stats: Stats{Policy: "xgboost:m"}}}
	got := RealChainsSentence(rc, recs, func(s string) string { return strings.ToUpper(s) })
	want := "On 10 links of the trace's own service chains (12 detected, heads submitted 2023-03-01 to 2023-04-01 UTC), " +
		"your users lost 120.0 h to interruption; in the simulator the reactive policy gives 150.0 h on the same links, and " +
		"SLURM-ESTIMATE (recommended for chains of 1 node(s), best candidate for chains of 8 node(s)) 30.3 h, with 80.0 h of overlap."
	if got != want {
		t.Errorf("sentence\n%s\nwant\n%s", got, want)
	}
	if s := RealChainsSentence(&evaluate.ChainsSummary{}, recs, nil); s != "" {
		t.Errorf("no link replayed: %q, want none", s)
	}
}

// TestRender_RealChains: an evaluation with real chains gets the section
// and its table; one without has neither (writeEval's page is unchanged).
func TestRender_RealChains(t *testing.T) {
	rows := handRows()
	m := evaluate.Compute(rows, evaluate.DefaultLambda)
	m.RealChains = &evaluate.ChainsSummary{Links: 3, Replayed: 3, RealInterruptionH: 9, ReactiveH: 12,
		Policies: []evaluate.ChainPolicy{{Policy: "reactive", InterruptionH: 12}, {Policy: "immediate", OverlapH: 40, ZeroInterruption: 3}}}
	for _, with := range []bool{true, false} {
		dir := t.TempDir()
		mm := m
		if !with {
			mm.RealChains = nil
		}
		if err := evaluate.WriteDir(dir, mm, rows); err != nil {
			t.Fatal(err)
		}
		rep, err := Render(context.Background(), dir, filepath.Join(t.TempDir(), "r"), Options{Resamples: 50})
		if err != nil {
			t.Fatal(err)
		}
		page, _ := os.ReadFile(rep.HTML)
		s := string(page)
		has := strings.Contains(s, "your users lost 9.0 h to interruption; in the simulator the reactive policy gives 12.0 h") &&
			strings.Contains(s, "<td>3/3</td>")
		if has != with || strings.Contains(s, "The trace's own chains") != with {
			t.Errorf("with real chains %v: the page has the section: %v", with, has)
		}
	}
}
