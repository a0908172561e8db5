package sim_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// ftStartUnknown builds a trace job that ran for run seconds from a start
// the trace did not record (an SWF wait of -1); submit is seconds after
// ftBase.
func ftStartUnknown(id string, uid, submit, run, limitSec int64, nodes int32, st trace.State) trace.Job {
	j := ftJob(id, "", uid, submit, -1, -1, limitSec, nodes)
	j.State, j.StartUnknown, j.ElapsedSec = st, true, run
	return j
}

// TestFromTrace_StartUnknown checks that a job whose trace start is
// unknown becomes a runnable job (its run time capped at its limit, no
// TraceStart, no Cancel), that it runs in a replay, and that fidelity and
// warm windows leave it out.
func TestFromTrace_StartUnknown(t *testing.T) {
	never := ftJob("never", "", 4, 40, -1, -1, 600, 1) // cancelled at an unknown time
	never.State = trace.StateCancelled
	tjobs := []trace.Job{
		ftJob("known", "", 1, 0, 100, 400, 3600, 2),
		ftStartUnknown("su", 2, 10, 500, 3600, 2, trace.StateCompleted),
		ftStartUnknown("capped", 2, 20, 5000, 3600, 1, trace.StateCancelled),           // cancelled while running
		ftStartUnknown("nolimit", 3, 30, 200000, trace.NoLimit, 1, trace.StateUnknown), // limit raised to the run
		never,
	}
	jobs, conv, err := sim.FromTrace(tjobs, sim.FromTraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []sim.Job{
		{Name: "known", User: 0, Nodes: 2, Submit: ftBase, After: sim.NoJob, LimitSec: 3600, RunSec: 300, TraceStart: ftBase + 100},
		{Name: "su", User: 1, Nodes: 2, Submit: ftBase + 10, After: sim.NoJob, LimitSec: 3600, RunSec: 500},
		{Name: "capped", User: 1, Nodes: 1, Submit: ftBase + 20, After: sim.NoJob, LimitSec: 3600, RunSec: 3600},
		{Name: "nolimit", User: 2, Nodes: 1, Submit: ftBase + 30, After: sim.NoJob, LimitSec: 200000, RunSec: 200000},
		{Name: "never", User: 3, Nodes: 1, Submit: ftBase + 40, After: sim.NoJob, LimitSec: 600, Cancel: ftBase + 40},
	}
	if diff := cmp.Diff(want, jobs); diff != "" {
		t.Errorf("jobs (-want +got):\n%s", diff)
	}
	wantConv := sim.Conversion{Jobs: 5, Users: 4, StartUnknown: 3, Cancelled: 1}
	if diff := cmp.Diff(wantConv, conv); diff != "" {
		t.Errorf("conversion (-want +got):\n%s", diff)
	}
	for i := range jobs {
		if _, ok := jobs[i].TraceWait(); ok != (i == 0) {
			t.Errorf("job %s: TraceWait ok = %v, want %v", jobs[i].Name, ok, i == 0)
		}
	}

	cfg := sim.DefaultConfig()
	cfg.Nodes = 2
	starts, _, err := sim.Replay(context.Background(), cfg, jobs)
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"known", "su", "capped", "nolimit"} {
		if starts[i] < 0 {
			t.Errorf("job %s never started in the replay: starts = %v", name, starts)
		}
	}
	if starts[4] >= 0 {
		t.Errorf("job never started at %d in the replay, want never", starts[4])
	}

	fid := sim.CompareReplay(jobs, starts, nil)
	if fid.Jobs != 1 {
		t.Errorf("fidelity compares %d jobs, want 1 (the one with a trace start)", fid.Jobs)
	}
	if want := sim.CompareWaits([]int64{100}, []int64{starts[0] - jobs[0].Submit}, nil); !cmp.Equal(fid, want) {
		t.Errorf("CompareReplay = %+v, want %+v", fid, want)
	}

	// A warm window opening while "su" would have been pending or running
	// has no way to know which: it leaves the job out.
	s, idx, err := sim.NewWindow(cfg, jobs, ftBase+15, 3600, sim.WindowWarm, nil)
	if err != nil || s == nil {
		t.Fatal(err)
	}
	for _, i := range idx {
		if jobs[i].Name == "su" {
			t.Errorf("warm window includes the start-unknown job: idx = %v", idx)
		}
	}
}

func TestCompareReplay_Months(t *testing.T) {
	jobs := []sim.Job{
		{Name: "a", Submit: 100, TraceStart: 160},
		{Name: "b", Submit: 200},                  // no trace start (never ran, or start unknown)
		{Name: "c", Submit: 300, TraceStart: 400}, // did not start in the simulation
		{Name: "d", Submit: 2_700_000, TraceStart: 2_700_100},
	}
	starts := []int64{130, 250, -1, 2_700_100}
	month := func(submit int64) string {
		if submit < 2_678_400 {
			return "1970-01"
		}
		return "1970-02"
	}
	got := sim.CompareReplay(jobs, starts, month)
	want := sim.CompareWaits([]int64{60, 100}, []int64{30, 100}, []string{"1970-01", "1970-02"})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := sim.CompareReplay(jobs[1:2], starts[1:2], month); got.Jobs != 0 || got.PerMonth == nil {
		t.Errorf("no comparable job: %+v, want 0 jobs and an empty PerMonth", got)
	}
}
