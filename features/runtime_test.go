package features

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mirage-hpc/mirage/sim"
)

// variedMedians gives every job a different fraction of its limit, so
// that a job given another job's median plans differently.
func variedMedians(jobs []sim.Job) []int64 {
	med := make([]int64, len(jobs))
	for i, j := range jobs {
		med[i] = max(1, j.LimitSec*int64(1+i%7)/8)
	}
	return med
}

func column(t *testing.T, s *Samples, name string) []float64 {
	t.Helper()
	i := slices.Index(s.Names, name)
	if i < 0 {
		t.Fatalf("no column %s in %v", name, s.Names)
	}
	return s.Features[i]
}

func TestBuild_ModelEstimateColumn(t *testing.T) {
	ctx := context.Background()
	jobs := busyJobs(600, 8, 3)
	o := testOptions(sim.WindowWarm)
	o.Windows = 2
	base, _, err := Build(ctx, jobs, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("Absent", func(t *testing.T) {
		if d := cmp.Diff(Names(), base.Names); d != "" {
			t.Errorf("names without RunTimes (-Names +got):\n%s", d)
		}
		if len(base.Features) != NumFeatures() || slices.Contains(base.Names, ModelEstimateName) {
			t.Errorf("%d feature columns, want %d without %s", len(base.Features), NumFeatures(), ModelEstimateName)
		}
	})
	t.Run("Present", func(t *testing.T) {
		o := o
		o.RunTimes = &RunTimes{Dir: "rt", SHA256: "x", MedianSec: variedMedians(jobs)}
		with, _, err := Build(ctx, jobs, o)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(append(Names(), ModelEstimateName), with.Names); d != "" {
			t.Fatalf("names with RunTimes (-want +got):\n%s", d)
		}
		if d := cmp.Diff(base.Features, with.Features[:NumFeatures()]); d != "" {
			t.Errorf("the other columns change with RunTimes:\n%s", d)
		}
		// With no medians the planner uses the limits: the column is the
		// plain estimate's r.
		o.RunTimes = &RunTimes{MedianSec: make([]int64, len(jobs))}
		zero, _, err := Build(ctx, jobs, o)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(column(t, &base, "q_est_start_minus_p_end_sec"), column(t, &zero, ModelEstimateName)); d != "" {
			t.Errorf("without medians the column is not q_est_start_minus_p_end_sec:\n%s", d)
		}
		if slices.Equal(column(t, &zero, ModelEstimateName), column(t, &with, ModelEstimateName)) {
			t.Errorf("the medians never change the column")
		}
	})
	t.Run("ErrLength", func(t *testing.T) {
		o := o
		o.RunTimes = &RunTimes{MedianSec: make([]int64, len(jobs)-1)}
		if _, _, err := Build(ctx, jobs, o); err == nil {
			t.Errorf("Build took medians of %d jobs for %d", len(jobs)-1, len(jobs))
		}
	})
}

// TestTimeline_JobIndex checks that JobIndex maps every window job to the
// trace job it is, so that per-trace-job predictions reach the right job.
func TestTimeline_JobIndex(t *testing.T) {
	jobs := busyJobs(600, 8, 4)
	o := testOptions(sim.WindowWarm)
	if err := Normalise(&o); err != nil {
		t.Fatal(err)
	}
	tl, err := NewTimeline(context.Background(), jobs, &o, 1, 1, ChainUser(jobs))
	if err != nil {
		t.Fatal(err)
	}
	idx := tl.JobIndex()
	if len(idx) == 0 || len(idx) == len(jobs) {
		t.Fatalf("window of %d of %d jobs: the test needs a proper subset", len(idx), len(jobs))
	}
	for k, i := range idx {
		if got := tl.Sim().Job(sim.JobID(k)); got.Name != jobs[i].Name {
			t.Fatalf("window job %d is %q, JobIndex says trace job %d %q", k, got.Name, i, jobs[i].Name)
		}
	}
	if int(tl.PID()) < len(idx) {
		t.Errorf("P's ID %d is inside the index (%d jobs)", tl.PID(), len(idx))
	}
}

// TestModelEstimate_Causal checks that the column at a decision time t
// reads the model's medians, never the jobs' true run times: making every
// job that has not ended by t run to its limit leaves every feature at t
// unchanged, although it changes the future (the same estimate planned
// with the true run times differs).
func TestModelEstimate_Causal(t *testing.T) {
	ctx := context.Background()
	jobs := busyJobs(600, 8, 5)
	o := testOptions(sim.WindowWarm)
	o.RunTimes = &RunTimes{MedianSec: variedMedians(jobs)}
	if err := Normalise(&o); err != nil {
		t.Fatal(err)
	}
	user := ChainUser(jobs)
	changed := 0
	for w := range o.Windows {
		tl, err := NewTimeline(ctx, jobs, &o, w, 4, user)
		if err != nil {
			t.Fatal(err)
		}
		at := tl.P().Submit + 6*3600
		if err := tl.Advance(ctx, at); err != nil {
			t.Fatal(err)
		}
		got := make([]float64, len(o.FeatureNames()))
		if err := tl.Features(ctx, got); err != nil {
			t.Fatal(err)
		}
		// The future's run times: every job not ended by at runs to its limit.
		alive := map[int]bool{}
		snap := tl.Sim().Snapshot()
		for _, r := range snap.Running {
			alive[int(r.ID)] = true
		}
		for _, p := range snap.Pending {
			alive[int(p.ID)] = true
		}
		future := slices.Clone(jobs)
		for k, i := range tl.JobIndex() {
			if alive[k] || jobs[i].Submit >= at {
				future[i].RunSec = future[i].LimitSec
			}
		}
		tf, err := NewTimeline(ctx, future, &o, w, 4, user)
		if err != nil {
			t.Fatal(err)
		}
		if err := tf.Advance(ctx, at); err != nil {
			t.Fatal(err)
		}
		again := make([]float64, len(got))
		if err := tf.Features(ctx, again); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(got, again); d != "" {
			t.Fatalf("window %d: the features at %d change with the future's run times:\n%s", w, at, d)
		}
		trueRun := func(tl *Timeline, js []sim.Job) float64 {
			run := make([]int64, len(js))
			for i := range js {
				run[i] = js[i].RunSec
			}
			return ModelEstimateR(tl.Sim(), tl.PID(), tl.P(), tl.Q(), Local(run, tl.JobIndex()))
		}
		if trueRun(tl, jobs) != trueRun(tf, future) {
			changed++
		}
	}
	if changed == 0 {
		t.Errorf("the changed run times never matter to an estimate planned with them: the test cannot fail")
	}
}

func TestLocal(t *testing.T) {
	got := Local([]int64{10, 20, 30}, []int{2, 0, 5})
	if want := []int64{30, 10, 0}; !slices.Equal(got, want) {
		t.Errorf("Local = %v, want %v", got, want)
	}
}
