package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// fitJob is a job of nodes nodes submitted at t0+submit hours that ran
// from submit for run hours (a negative run: it never ran).
func fitJob(id string, submit, run float64, nodes int32) trace.Job {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(h float64) time.Time { return t0.Add(time.Duration(h * float64(time.Hour))) }
	j := trace.Job{JobID: id, Submit: at(submit), NNodes: nodes, State: trace.StateCompleted}
	if run >= 0 {
		j.Start, j.End = at(submit), at(submit+run)
	} else {
		j.State = trace.StateCancelled
	}
	return j
}

func TestCheckFit(t *testing.T) {
	jobs := []trace.Job{
		fitJob("a", 0, 2, 4),    // 8 node-hours
		fitJob("b", 1, 1, 16),   // 16, wider than 8
		fitJob("c", 2, -1, 32),  // never ran: wide, 0 node-hours
		fitJob("d", 10, 2, 4),   // 8
		fitJob("e", 11, 1, 16),  // 16, wide; the widest ran is 32 (c)
		fitJob("out", 20, 1, 1), // outside [0, 20h)
	}
	u := fitJob("u", 3, 1, 2)
	u.Start, u.End, u.StartUnknown, u.ElapsedSec = time.Time{}, time.Time{}, true, 3600
	jobs = append(jobs, u) // 2 node-hours, start unknown
	to := jobs[0].Submit.Add(20 * time.Hour).Unix()
	f := sim.CheckFit(jobs, 8, 0, to)
	want := sim.Fit{PartitionNodes: 8, Jobs: 6, NodeHours: 50, WideJobs: 3, WideNodeHours: 32, Widest: 32, WidestJob: "c",
		PeakBusy: 20, SpanHours: 11, OfferedLoad: 18.0 / (8 * 11), TraceLoad: 50.0 / (20 * 11), KnownWaits: 4, StartUnknown: 1, NeverRan: 1}
	if math.Abs(f.OfferedLoad-want.OfferedLoad) > 1e-12 || math.Abs(f.TraceLoad-want.TraceLoad) > 1e-12 {
		t.Errorf("loads %v, %v; want %v, %v", f.OfferedLoad, f.TraceLoad, want.OfferedLoad, want.TraceLoad)
	}
	f.OfferedLoad, f.TraceLoad, want.OfferedLoad, want.TraceLoad = 0, 0, 0, 0
	if f != want {
		t.Errorf("CheckFit =\n%+v\nwant\n%+v", f, want)
	}
	if j, h := f.WideShare(); j != 0.5 || h != 32.0/50 || !f.TooWide() || f.Overloaded() {
		t.Errorf("WideShare %v, %v, TooWide %v, Overloaded %v; want 0.5, 0.64, true, false", j, h, f.TooWide(), f.Overloaded())
	}
	if g := sim.CheckFit(jobs, 32, 0, 0); g.WideJobs != 0 || g.TooWide() || g.WideMessage("--nodes") != "" {
		t.Errorf("32 nodes: %+v, want no wide job", g)
	}
}

// TestCheckFit_Overloaded: a partition offered many times its node-hours
// while the trace used its own nodes ordinarily is Overloaded.
func TestCheckFit_Overloaded(t *testing.T) {
	var jobs []trace.Job
	for i := range 100 {
		jobs = append(jobs, fitJob("j", float64(i), 1, 10)) // 10 nodes busy, 1 job at a time
	}
	if f := sim.CheckFit(jobs, 2, 0, 0); f.Overloaded() || !f.TooWide() {
		t.Errorf("2 nodes: every job too wide, not overloaded: %+v", f)
	}
	f := sim.CheckFit(jobs, 10, 0, 0)
	if f.Overloaded() || f.OverloadMessage("--nodes") != "" {
		t.Errorf("10 nodes: load %v, want not overloaded", f.OfferedLoad)
	}
	for i := range jobs {
		jobs[i].End = jobs[i].Start.Add(5 * time.Hour) // 5 at once: 50 nodes busy
	}
	if f := sim.CheckFit(jobs, 10, 0, 0); !f.Overloaded() || f.PeakBusy != 50 {
		t.Errorf("10 nodes, 5x the demand: %+v, want overloaded with a peak of 50", f)
	}
}
