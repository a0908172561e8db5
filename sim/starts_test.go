package sim_test

import (
	"context"
	"testing"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/simtest"
)

// TestEstimateStarts: on 2 nodes, A holds both from 0 for 1 h of its 4 h
// limit (predicted: 2 h); B (2 nodes) is submitted at 600 s, C (1 node,
// cancelled while pending) at 1200 s and left out, D (1 node) after the
// range. At B's submission the limit plan frees the nodes at 4 h, the
// predicted one at 2 h; the replay starts B when A really ends, at 1 h.
func TestEstimateStarts(t *testing.T) {
	cfg := simtest.Cluster(2)
	a := simtest.Job(2, 0, 4*3600, 3600)
	a.PredRunSec = 2 * 3600
	b := simtest.Job(2, 600, 3600, 1800)
	c := simtest.Job(1, 1200, 3600, 0)
	c.Cancel = 1800
	d := simtest.Job(1, 9000, 3600, 60)
	got, err := sim.EstimateStarts(context.Background(), cfg, []sim.Job{a, b, c, d}, 600, 9000)
	if err != nil {
		t.Fatal(err)
	}
	want := []sim.StartEstimate{{Job: 1, Limits: 4 * 3600, LimitsOK: true, Pred: 2 * 3600, PredOK: true, Replay: 3600}}
	if len(got) != len(want) || got[0] != want[0] {
		t.Fatalf("estimates %+v, want %+v", got, want)
	}
	// Without an end, D is asked too: nothing is left running at 9000 s.
	got, err = sim.EstimateStarts(context.Background(), cfg, []sim.Job{a, b, c, d}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Job != 0 || got[0].Limits != 0 || got[2].Job != 3 || got[2].Limits != 9000 || got[2].Replay != 9000 {
		t.Fatalf("estimates %+v: want A at 0, B, D at 9000", got)
	}
}

// TestScoreStarts: a hand-computed table.
func TestScoreStarts(t *testing.T) {
	submit := []int64{0, 0, 0, 0, 0}
	real := []int64{100, 1000, 10, 7200, 50}
	pred := []int64{130, 1700, 50, 3000, 0}
	ok := []bool{true, true, true, true, false}
	got := sim.ScoreStarts(submit, real, pred, ok)
	// errors 30, 700, 40, 4200 (one without an estimate); waits floored at
	// 60: (130,100) (1700,1000) (60,60) (3000,7200) -> 3 of 5 within 2x.
	want := sim.StartAccuracy{Jobs: 5, NoEstimate: 1, Within1Min: 0.4, Within10Min: 0.4, Within2x: 0.6,
		MAESec: (30 + 700 + 40 + 4200) / 4.0, MedianAbsErrSec: (40 + 700) / 2.0, BiasSec: (30 + 700 + 40 - 4200) / 4.0}
	if got != want {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if z := sim.ScoreStarts(nil, nil, nil, nil); z != (sim.StartAccuracy{}) {
		t.Errorf("no jobs: %+v", z)
	}
}
