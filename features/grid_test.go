package features

import (
	"slices"
	"testing"
)

func TestProbeGrid(t *testing.T) {
	g := GridOptions{DecisionSec: 600, DenseSec: 3600, SparseSec: 1800}
	// P submitted at 0, started at 1000, expected to end at 1000+7200,
	// ending there: dense from 4600 on, every 1800 s before, plus P's
	// start and end.
	got := ProbeGrid(nil, g, 0, 1000, 8200, 8200)
	want := []int64{0, 1000, 1800, 3600, 4800, 5400, 6000, 6600, 7200, 7800, 8200}
	if !slices.Equal(got, want) {
		t.Errorf("ProbeGrid = %v, want %v", got, want)
	}
	// Every probe is a decision time of evaluate's grid.
	all := DecisionGrid(nil, 0, 1000, 8200, 600)
	for _, p := range got {
		if !slices.Contains(all, p) {
			t.Errorf("probe %d not on the decision grid %v", p, all)
		}
	}
	if d := (GridOptions{}).WithDefaults(); d.DecisionSec != 600 || d.DenseSec != 86400 || d.SparseSec != 3600 {
		t.Errorf("defaults %+v", d)
	}
}

func TestProbeGrid_Options(t *testing.T) {
	o := DefaultOptions()
	o.Grid = &GridOptions{DecisionSec: 600, SparseSec: 900}
	if err := Normalise(&o); err == nil {
		t.Error("a sparse spacing that is not a multiple of the decision interval was accepted")
	}
}
