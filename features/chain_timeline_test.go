package features

import (
	"context"
	"slices"
	"testing"

	"github.com/mirage-hpc/mirage/sim"
)

// TestNewChainTimeline: the timeline starts the warm-up before the link's
// P, which is submitted with its shape and user; the excluded jobs are in
// no window position while every other index still names its job.
func TestNewChainTimeline(t *testing.T) {
	jobs := busyJobs(600, 8, 4)
	o := testOptions(sim.WindowWarm)
	if err := Normalise(&o); err != nil {
		t.Fatal(err)
	}
	ref, err := NewTimeline(context.Background(), jobs, &o, 1, 1, ChainUser(jobs))
	if err != nil {
		t.Fatal(err)
	}
	pSubmit := ref.P().Submit
	exclude := ref.JobIndex()[:3]
	p := sim.Job{Name: "real-P", User: 2, Nodes: 3, Submit: pSubmit, LimitSec: 7200, RunSec: 9000, After: 5}
	q := sim.Job{Name: "real-Q", User: 2, Nodes: 2, LimitSec: 3600, RunSec: 1800}
	tl, err := NewChainTimeline(context.Background(), jobs, &o, ChainLink{P: p, Q: q, Exclude: exclude})
	if err != nil {
		t.Fatal(err)
	}
	if tl.Start() != ref.Start() {
		t.Errorf("start %d, want %d (P's submission minus the warm-up)", tl.Start(), ref.Start())
	}
	gp := tl.P()
	if gp.Name != "real-P" || gp.User != 2 || gp.Nodes != 3 || gp.Submit != pSubmit || gp.LimitSec != 7200 || gp.RunSec != 7200 || gp.After != sim.NoJob {
		t.Errorf("P %+v: want real-P's shape, its run time cut to its limit, no dependency", gp)
	}
	if gq := tl.Q(); gq.Nodes != 2 || gq.LimitSec != 3600 || gq.RunSec != 1800 {
		t.Errorf("Q %+v: want real-Q's shape", gq)
	}
	idx := tl.JobIndex()
	if len(idx) != len(ref.JobIndex())-len(exclude) {
		t.Errorf("%d window jobs, want %d without the %d excluded", len(idx), len(ref.JobIndex())-len(exclude), len(exclude))
	}
	for k, i := range idx {
		if slices.Contains(exclude, i) {
			t.Fatalf("excluded job %d is window job %d", i, k)
		}
		if tl.Sim().Job(sim.JobID(k)).Name != jobs[i].Name {
			t.Fatalf("window job %d is %q, want %q", k, tl.Sim().Job(sim.JobID(k)).Name, jobs[i].Name)
		}
	}
	if _, err := NewChainTimeline(context.Background(), jobs, &o, ChainLink{P: sim.Job{Nodes: 99, LimitSec: 1, Submit: pSubmit}, Q: q}); err == nil {
		t.Error("a P wider than the partition was accepted")
	}
}
