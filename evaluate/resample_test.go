package evaluate

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
)

// TestResample_WindowJobIDs: the arrivals a forecast resamples inside a
// window draw their run times from their own trace job's prediction
// (through the window's JobIndex), not from the trace job that has the
// window job's ID. Every trace job gets a different one-bin distribution,
// so a draw shows whose prediction it came from; the trace-indexed
// predictions must fail the same check (the test can fail).
func TestResample_WindowJobIDs(t *testing.T) {
	ctx := context.Background()
	jobs := busyJobs(600, 8, 6)
	rt := testRunTimes(jobs)
	for id := range jobs {
		for b := range rt.nb {
			rt.pmf[id*rt.nb+b] = 0
		}
		rt.pmf[id*rt.nb+id%rt.nb] = 1
	}
	fo := testOptions(sim.WindowCold, 1).Features
	fo.Windows = 3
	if err := features.Normalise(&fo); err != nil {
		t.Fatal(err)
	}
	user := features.ChainUser(jobs)
	index := map[string]int{} // trace job by name
	for i := range jobs {
		index[jobs[i].Name] = i
	}
	inBin := func(a sim.Job) bool { // a's run time is in its own trace job's bin
		i, ok := index[strings.TrimSuffix(a.Name, "+")]
		if !ok {
			t.Fatalf("resampled arrival %q: not a trace job's name", a.Name)
		}
		b := i % rt.nb
		lo, hi := math.Floor(rt.edges[b]*float64(a.LimitSec)), math.Ceil(rt.edges[b+1]*float64(a.LimitSec))
		return float64(a.RunSec) >= lo && float64(a.RunSec) <= hi
	}
	arrivals, wrongTraceIndexed := 0, 0
	for w := 1; w < fo.Windows; w++ {
		tl, err := features.NewTimeline(ctx, jobs, &fo, w, 1, user)
		if err != nil {
			t.Fatal(err)
		}
		now := tl.P().Submit + 2*3600
		if err := tl.Advance(ctx, now); err != nil {
			t.Fatal(err)
		}
		c := &DecisionContext{Now: now, Sim: tl.Sim(), JobIndex: tl.JobIndex()}
		f := &Forecaster{RT: rt, ResampleDays: 7}
		for seed := range uint64(12) {
			r := tl.Sim().Rollout(nil, nil)
			for _, a := range f.resample(r, c.runTimes(rt), rand.New(rand.NewPCG(seed, 1)), now, now+12*3600, 0) {
				arrivals++
				if !inBin(a) {
					t.Fatalf("window %d: resampled %s ran %d s of %d: not from its own prediction", w, a.Name, a.RunSec, a.LimitSec)
				}
			}
			for _, a := range f.resample(r, rt, rand.New(rand.NewPCG(seed, 1)), now, now+12*3600, 0) {
				if !inBin(a) {
					wrongTraceIndexed++
				}
			}
		}
	}
	if arrivals == 0 {
		t.Fatal("no arrivals resampled: the test checks nothing")
	}
	if wrongTraceIndexed == 0 {
		t.Fatal("trace-indexed predictions pass the check too: the windows do not test the index")
	}
	t.Logf("%d arrivals resampled; trace-indexed predictions would give %d of them another job's run time", arrivals, wrongTraceIndexed)
}

// TestResample_WindowCovered: the resampled arrivals come only from the
// days the window's simulation holds every submission of ([WindowStart,
// Now)), so no rollout replays an empty stretch from before the window:
// with the window's start every rollout of a busy trace gets arrivals,
// and without it (the whole trace assumed) some replay nothing. When no
// whole day of the window fits the horizon there are none.
func TestResample_WindowCovered(t *testing.T) {
	ctx := context.Background()
	jobs := busyJobs(600, 8, 6)
	rt := testRunTimes(jobs)
	fo := testOptions(sim.WindowCold, 1).Features
	if err := features.Normalise(&fo); err != nil {
		t.Fatal(err)
	}
	tl, err := features.NewTimeline(ctx, jobs, &fo, 1, 1, features.ChainUser(jobs))
	if err != nil {
		t.Fatal(err)
	}
	index := map[string]int{} // trace job by name
	for i := range jobs {
		index[jobs[i].Name] = i
	}
	const day = 86400
	now := tl.P().Submit + 2*day // the window holds 3 days of submissions
	if err := tl.Advance(ctx, now); err != nil {
		t.Fatal(err)
	}
	f := &Forecaster{RT: rt, ResampleDays: 7}
	c := &DecisionContext{Now: now, Sim: tl.Sim(), JobIndex: tl.JobIndex()}
	empty, emptyUnbounded := 0, 0
	for seed := range uint64(16) {
		r := tl.Sim().Rollout(nil, nil)
		add := f.resample(r, c.runTimes(rt), rand.New(rand.NewPCG(seed, 1)), now, now+6*3600, tl.Start())
		if len(add) == 0 {
			empty++
		}
		for _, a := range add {
			src := jobs[index[strings.TrimSuffix(a.Name, "+")]].Submit
			if src < tl.Start() || src >= now {
				t.Fatalf("seed %d: %s replays a submission at %d, outside the window's [%d, %d)", seed, a.Name, src, tl.Start(), now)
			}
		}
		if len(f.resample(r, c.runTimes(rt), rand.New(rand.NewPCG(seed, 1)), now, now+6*3600, 0)) == 0 {
			emptyUnbounded++
		}
	}
	if empty > 0 {
		t.Errorf("%d of 16 rollouts got no arrivals with the window's start", empty)
	}
	if emptyUnbounded == 0 {
		t.Error("without the window's start no rollout is empty either: the test checks nothing")
	}
	// One day of submissions cannot cover a horizon of 1.5 days.
	early := tl.P().Submit
	if add := f.resample(tl.Sim().Rollout(nil, nil), c.runTimes(rt), rand.New(rand.NewPCG(1, 1)), early, early+12*3600, tl.Start()); len(add) != 0 {
		t.Errorf("%d arrivals from a window holding %d s of submissions for a horizon of 1.5 days, want none", len(add), early-tl.Start())
	}
}
