package evaluate

import (
	"context"
	"slices"
	"testing"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/train"
)

// TestModelEstimate_BuildParity checks that the run-time model column a
// model policy computes at a decision time (the main timeline with the
// predictions re-indexed by window job ID, as Model.Predict does) is the
// one features.Build wrote for that window, chain size and probe, and
// that the runtime-estimate policy scores the same estimate.
func TestModelEstimate_BuildParity(t *testing.T) {
	ctx := context.Background()
	jobs := busyJobs(600, 8, 6)
	rt := testRunTimes(jobs)
	for i := range rt.MedianSec {
		rt.MedianSec[i] = max(1, jobs[i].LimitSec*int64(1+i%5)/6) // differ per job
	}
	fo := testOptions(sim.WindowCold, 1).Features
	fo.Windows, fo.Probes = 3, 4
	fo.RunTimes = &features.RunTimes{MedianSec: rt.MedianSec}
	s, _, err := features.Build(ctx, jobs, fo)
	if err != nil {
		t.Fatal(err)
	}
	col := s.Features[slices.Index(s.Names, features.ModelEstimateName)]
	if err := features.Normalise(&fo); err != nil {
		t.Fatal(err)
	}
	user := features.ChainUser(jobs)
	var tl *features.Timeline
	local := map[*RunTimes]*RunTimes{}
	mismatched := 0
	for i := range s.Len() {
		if i == 0 || s.WindowID[i] != s.WindowID[i-1] || s.ChainNodes[i] != s.ChainNodes[i-1] {
			if tl, err = features.NewTimeline(ctx, jobs, &fo, int(s.WindowID[i]), int(s.ChainNodes[i]), user); err != nil {
				t.Fatal(err)
			}
			clear(local)
		}
		at := s.ProbeTime[i]
		if err := tl.Advance(ctx, at); err != nil {
			t.Fatal(err)
		}
		q := tl.Q()
		q.Submit = at
		pStart, started := tl.Sim().Started(tl.PID())
		c := &DecisionContext{Now: at, Sim: tl.Sim(), P: tl.P(), PID: tl.PID(), Q: q, PStarted: started, PStart: pStart,
			JobIndex: tl.JobIndex(), local: local}
		if got := features.ModelEstimateR(c.Sim, c.PID, c.P, c.Q, c.runTimes(rt).MedianSec); got != col[i] {
			t.Fatalf("row %d (window %d, %d nodes, t %d): policy's column %v, Build's %v", i, s.WindowID[i], s.ChainNodes[i], at, got, col[i])
		}
		// The runtime-estimate policy plans with the same medians.
		re := &RuntimeEstimate{RT: rt}
		if got, want := re.Score(c), train.RuleScore(train.TargetEstimateRT, 0, 0, col[i]); got != want {
			t.Fatalf("row %d: runtime-estimate's score %v, want %v (Build's column)", i, got, want)
		}
		// Indexing by the trace's job order instead is wrong: the check can fail.
		if features.ModelEstimateR(c.Sim, c.PID, c.P, c.Q, rt.MedianSec) != col[i] {
			mismatched++
		}
	}
	if mismatched == 0 {
		t.Errorf("predictions indexed by trace job give Build's column too: the windows do not test the index")
	}
}
