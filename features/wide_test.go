package features

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mirage-hpc/mirage/sim"
)

// TestWideColumns checks the wide columns on a hand-built queue: Q asks
// for 4 nodes; P (job 1) runs on 2 of 10 nodes, 1 is free.
func TestWideColumns(t *testing.T) {
	const now = 100000
	snap := sim.Snapshot{Now: now, Nodes: 10, Capacity: 10, FreeNodes: 1,
		Pending: []sim.PendingJob{
			{ID: 10, Nodes: 8, LimitSec: 3600, Submit: now - 7200},
			{ID: 11, Nodes: 2, LimitSec: 3600, Submit: now - 90000}, // narrow: not counted
			{ID: 12, Nodes: 4, LimitSec: 600, Submit: now - 60},
			{ID: 13, Nodes: 16, LimitSec: 600, Submit: now - 99999, Held: true}, // held: not counted
		},
		Running: []sim.RunningJob{
			{ID: 1, Nodes: 2, LimitSec: 7200, Submit: now - 5000, Start: now - 3600},              // P: ends at now+3600
			{ID: 2, Nodes: 4, LimitSec: 7200, Submit: now - 3000 - 600, Start: now - 3000},        // wide, waited 600 s; ends now+4200
			{ID: 3, Nodes: 5, LimitSec: 3 * 86400, Submit: now - 2*86400, Start: now - 86400 - 1}, // wide but started over 24 h ago
			{ID: 4, Nodes: 1, LimitSec: 1800, Submit: now - 1000, Start: now - 100},               // narrow; ends now+1700
			{ID: 5, Nodes: 6, LimitSec: 100000, Submit: now - 1800 - 3000, Start: now - 1800},     // wide, waited 3000 s
		},
	}
	pEnd := int64(now + 3600)
	got := make([]float64, NumWide)
	wideColumns(got, &snap, 1, pEnd, 4)
	// Q fits when 1 free + 1 (job 4, at now+1700) + 4 (job 2, at now+4200)
	// nodes are free: at now+4200, 600 s after P's expected end.
	want := []float64{2, 8*3600 + 4*600, 7200, (600 + 3000) / 2.0, 3000, 600}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("wide columns (-want +got):\n%s", d)
	}
	// Q fits now: nothing to wait for.
	snap.FreeNodes = 4
	wideColumns(got, &snap, 1, pEnd, 4)
	if got[5] != -3600 {
		t.Errorf("Q fitting now: q_fit_running_minus_p_end_sec %v, want -3600", got[5])
	}
	// Never enough nodes: the last running job's end.
	snap.FreeNodes = 0
	wideColumns(got, &snap, 1, pEnd, 40)
	if want := float64(now - 86400 - 1 + 3*86400 - pEnd); got[5] != want || got[0] != 0 || got[3] != 0 {
		t.Errorf("Q wider than the rest: %v, want fit %v and no wide jobs", got, want)
	}
}

// TestBuild_WideColumns checks that Wide adds the wide columns after
// Names' and changes no other, and that they are what features.Wide
// gives on evaluate's timeline (built without Wide) at each probe.
func TestBuild_WideColumns(t *testing.T) {
	ctx := context.Background()
	jobs := busyJobs(600, 8, 3)
	o := testOptions(sim.WindowWarm)
	o.Windows = 2
	base, _, err := Build(ctx, jobs, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Wide = true
	with, _, err := Build(ctx, jobs, o)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(append(Names(), WideNames()...), with.Names); d != "" {
		t.Fatalf("names with Wide (-want +got):\n%s", d)
	}
	if d := cmp.Diff(base.Features, with.Features[:NumFeatures()]); d != "" {
		t.Errorf("the other columns change with Wide:\n%s", d)
	}
	if !HasWide(append(Schema(), WideSchema()...)) || HasWide(Schema()) {
		t.Error("HasWide")
	}
	eo := o
	eo.Wide = false
	if err := Normalise(&eo); err != nil {
		t.Fatal(err)
	}
	user := ChainUser(jobs)
	nonzero := 0
	for _, nodes := range eo.ChainNodes {
		for w := range eo.Windows {
			tl, err := NewTimeline(ctx, jobs, &eo, w, nodes, user)
			if err != nil {
				t.Fatal(err)
			}
			for i := range with.Len() {
				if int(with.WindowID[i]) != w || int(with.ChainNodes[i]) != nodes {
					continue
				}
				if err := tl.Advance(ctx, with.ProbeTime[i]); err != nil {
					t.Fatal(err)
				}
				q := tl.Q()
				q.Submit = with.ProbeTime[i]
				got := make([]float64, NumWide)
				Wide(got, tl.Sim(), tl.PID(), tl.P(), q)
				want := make([]float64, NumWide)
				for k := range want {
					want[k] = with.Features[NumFeatures()+k][i]
				}
				if !slices.Equal(got, want) {
					t.Fatalf("window %d, %d nodes, probe %d: Wide on the timeline %v, samples %v", w, nodes, with.ProbeTime[i], got, want)
				}
				if want[0] > 0 && want[3] > 0 {
					nonzero++
				}
			}
		}
	}
	if nonzero == 0 {
		t.Error("no probe has pending wide jobs and recent wide starts: the workload does not exercise the columns")
	}
}
