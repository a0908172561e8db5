package train

import (
	"testing"

	"github.com/mirage-hpc/mirage/features"
)

// TestRunEstimate_FixedLead: train --model fixed-lead chooses the lead on
// the training windows' p_remaining_sec and labels. One window: leads of
// 3 h, 1 h and 0 (P's end) give r = -2 h, -0.5 h and +1 h; within a
// budget of 1 h of overlap the lead of 1 h removes every interruption,
// and the manifest opens as an estimate-kind directory of its target.
func TestRunEstimate_FixedLead(t *testing.T) {
	s := unitSamples([][]int64{{-7200, -1800, 3600}})
	s.Names = []string{"p_remaining_sec"}
	s.Features = [][]float64{{3 * 3600, 3600, 0}}
	dir := t.TempDir()
	m, err := RunEstimate(s, SamplesMeta{SchemaVersion: features.FeatureSchemaVersion}, dir,
		Options{Target: TargetFixedLead, OverlapBudgetH: 1})
	if err != nil {
		t.Fatal(err)
	}
	c := m.OperatingPoint.ByChain["1"]
	if c.Value != 1 || c.InterruptionReduction != 1 || c.MeanOverlapH != 0.5 || !c.WithinBudget {
		t.Errorf("chosen %+v, want lead 1 h, reduction 1, overlap 0.5 h", c)
	}
	if m.OperatingPoint.Param != "lead_h" || m.Kind != KindEstimate || m.Target != string(TargetFixedLead) {
		t.Errorf("param %q kind %q target %q", m.OperatingPoint.Param, m.Kind, m.Target)
	}
	a, err := Open(dir)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	if a.Model != nil || a.Manifest.OperatingPoint.For(1).Value != 1 {
		t.Errorf("opened %+v", a.Manifest.OperatingPoint.For(1))
	}
}
