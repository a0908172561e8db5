package evaluate

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
)

const hour int64 = 3600

// handQueue is a hand-built queue: a 2-node cluster, chains of 1 node
// with a 10 h limit (run to it), P₁ submitted (and started) at s1 = T0 +
// 1 h on the empty cluster, and one background job B of both nodes for
// 2 h submitted at s1 + 9 h. B outranks every link (older, fresh
// fair-share): a successor that has not started by s1 + 9 h waits for
// B, which waits for every running link to end.
func handQueue(t *testing.T) ([]sim.Job, Options, int64) {
	t.Helper()
	cfg := sim.DefaultConfig()
	cfg.Nodes = 2
	o := features.DefaultOptions()
	o.Config, o.Mode = cfg, sim.WindowCold
	t0 := int64(day0 + 86400)
	o.Start, o.Windows, o.IntervalSec = t0, 1, 86400
	o.WarmupSec, o.WorkloadSec = hour, 2*86400
	o.ChainLimitSec, o.ChainRunSec = 10*hour, 10*hour
	o.ChainNodes = []int{1}
	s1 := t0 + hour
	jobs := []sim.Job{{Name: "B", User: 0, Nodes: 2, Submit: s1 + 9*hour, LimitSec: 2 * hour, RunSec: 2 * hour, After: sim.NoJob}}
	return jobs, Options{Features: o, DecisionSec: 1800, Workers: 1, Lambda: DefaultLambda}, s1
}

func lead(h float64) *FixedLead {
	l := h
	return &FixedLead{Label: "fixed-lead@lead=" + map[float64]string{2: "2", 0.5: "0.5"}[h], LeadH: &l}
}

// TestLifetimes_Golden: the lifetimes of 24 h on handQueue, computed by
// hand. reactive (and dependency, whose held successor is eligible at its
// predecessor's end): Q₂ waits for B (s1+10 h to s1+12 h), runs to s1+22
// h, Q₃ starts then: 2 h down, one interruption, 22 node-hours.
// fixed-lead 2 h: Q₂ at s1+8 h on the free node (P₁ ends at s1+8 h 10
// with a 10-minute handover, at s1+10 h without), Q₃ submitted at s1+16
// h waits for B, which waits for Q₂'s end (s1+18 h) and runs to s1+20 h:
// 2 h down, and 8 h 10 + 10 h + 4 h node-hours with the handover, 24
// without.
func TestLifetimes_Golden(t *testing.T) {
	jobs, o, s1 := handQueue(t)
	to := s1 + 24*hour
	type want struct {
		starts  []int64
		nodeSec int64
	}
	reactive := want{[]int64{s1, s1 + 12*hour, s1 + 22*hour}, 22 * hour}
	for _, tc := range []struct {
		handover int64
		want     map[string]want
	}{
		{600, map[string]want{"reactive": reactive, DependencyName: reactive,
			"fixed-lead@lead=2": {[]int64{s1, s1 + 8*hour, s1 + 20*hour}, 8*hour + 600 + 10*hour + 4*hour}}},
		{HandoverOff, map[string]want{"reactive": reactive, DependencyName: reactive,
			"fixed-lead@lead=2": {[]int64{s1, s1 + 8*hour, s1 + 20*hour}, 24 * hour}}},
	} {
		lo := LifetimeOptions{LengthSec: 24 * hour, HandoverSec: tc.handover}
		rows, err := Lifetimes(context.Background(), jobs, []Policy{Reactive{}, Dependency{}, lead(2)}, o, lo)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 3 {
			t.Fatalf("handover %d: %d rows, want 3", tc.handover, len(rows))
		}
		for _, r := range rows {
			w := tc.want[r.Policy]
			var starts []int64
			for _, l := range r.Links {
				starts = append(starts, l.Start)
			}
			if r.From != s1 || r.To != to {
				t.Errorf("handover %d %s: lifetime [%d, %d), want [%d, %d)", tc.handover, r.Policy, r.From, r.To, s1, to)
			}
			if !reflect.DeepEqual(starts, w.starts) {
				t.Errorf("handover %d %s: link starts %v, want %v (s1 = %d)", tc.handover, r.Policy, starts, w.starts, s1)
			}
			if r.DowntimeSec() != 2*hour || r.UpSec != 22*hour || r.Interruptions != 1 {
				t.Errorf("handover %d %s: downtime %d s, up %d s, %d interruptions; want 7200, 79200, 1", tc.handover, r.Policy, r.DowntimeSec(), r.UpSec, r.Interruptions)
			}
			if r.NodeSec != w.nodeSec {
				t.Errorf("handover %d %s: %d node-seconds, want %d", tc.handover, r.Policy, r.NodeSec, w.nodeSec)
			}
		}
		m := ComputeLifetimes(rows, lo).Policies["fixed-lead@lead=2"]["1"]
		if got, wantA := m.Availability.Point, 22.0/24; got != wantA {
			t.Errorf("handover %d: availability %v, want %v", tc.handover, got, wantA)
		}
		if got, wantL := m.Links.Point, 3.0*30; got != wantL { // 3 links in 1 day
			t.Errorf("handover %d: links per 30 d %v, want %v", tc.handover, got, wantL)
		}
		if got, wantN := m.NodeHPerServiceH.Point, float64(tc.want["fixed-lead@lead=2"].nodeSec)/float64(22*hour); got != wantN {
			t.Errorf("handover %d: node-h per service h %v, want %v", tc.handover, got, wantN)
		}
	}
}

// TestReplay_PracticeBaselines: one link of handQueue. reactive and
// dependency wait for B (r = +2 h); a fixed lead of 2 h starts Q₂ before
// B arrives (r = −2 h); one of 30 minutes submits after B arrived and
// waits for it (+2 h).
func TestReplay_PracticeBaselines(t *testing.T) {
	jobs, o, s1 := handQueue(t)
	res, err := Replay(context.Background(), jobs, []Policy{Reactive{}, Dependency{}, lead(2), lead(0.5)}, o)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int64{ // submit, r
		"reactive": {s1 + 10*hour, 2 * hour}, DependencyName: {s1 + 1800, 2 * hour},
		"fixed-lead@lead=2": {s1 + 8*hour, -2 * hour}, "fixed-lead@lead=0.5": {s1 + 9*hour + 1800, 2 * hour},
	}
	for _, r := range res.Rows {
		if w := want[r.Policy]; r.Submit != w[0] || r.RSec != w[1] {
			t.Errorf("%s: submit %d, r %d s; want %d, %d", r.Policy, r.Submit, r.RSec, w[0], w[1])
		}
	}
}

// TestLifetimes_Deterministic: a busy queue's lifetimes are the same
// whatever the number of workers, and their metrics and CSV byte for byte
// the same on a second run.
func TestLifetimes_Deterministic(t *testing.T) {
	jobs := busyJobs(400, 12, 3)
	o := testOptions(sim.WindowWarm, 1)
	o.Features.Windows = 3
	lo := LifetimeOptions{LengthSec: 3 * 86400, HandoverSec: DefaultHandoverSec, Resamples: 200}
	pols := []Policy{Reactive{}, Dependency{}, lead(2), SlurmEstimate{}, Oracle{}, queuePolicy{}}
	run := func(workers int) ([]LifetimeRow, []byte) {
		o.Workers = workers
		rows, err := Lifetimes(context.Background(), jobs, pols, o, lo)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteLifetimesCSV(&b, rows); err != nil {
			t.Fatal(err)
		}
		return rows, b.Bytes()
	}
	a, ca := run(1)
	b, cb := run(2)
	if !reflect.DeepEqual(a, b) || !bytes.Equal(ca, cb) {
		t.Fatal("lifetimes differ between 1 and 2 workers")
	}
	if len(a) != len(pols)*3*2 {
		t.Fatalf("%d rows, want %d", len(a), len(pols)*3*2)
	}
	if !reflect.DeepEqual(ComputeLifetimes(a, lo), ComputeLifetimes(b, lo)) {
		t.Fatal("lifetime metrics differ between runs")
	}
	for _, r := range a {
		if len(r.Links) < 2 || r.UpSec <= 0 || r.UpSec > r.To-r.From {
			t.Errorf("%s window %d (%d nodes): %d links, up %d s of %d", r.Policy, r.Window, r.ChainNodes, len(r.Links), r.UpSec, r.To-r.From)
		}
	}
}

// eager submits the successor at the first decision it is asked.
type eager struct{}

func (eager) Name() string                          { return "eager" }
func (eager) Decide(*DecisionContext) (bool, error) { return true, nil }

// TestLifetimes_SuccessiveHandovers: handQueue without B, but with A
// holding both nodes until s1 + 2 h; eager submits each successor at its
// predecessor's first decision time after its start (half an hour
// later), and each handover ends the predecessor 10 minutes after its
// successor starts. P₁ starts at s1+2 h, link j ≥ 2 at s1+2 h + (j−1)·30
// min, until link 29's expected end covers From + 24 h = s1+26 h: no
// downtime, 29 links, and 40 + 27·40 + 600 minutes of node time.
func TestLifetimes_SuccessiveHandovers(t *testing.T) {
	_, o, s1 := handQueue(t)
	jobs := []sim.Job{{Name: "A", User: 0, Nodes: 2, Submit: s1 - hour, LimitSec: 3 * hour, RunSec: 3 * hour, After: sim.NoJob}}
	rows, err := Lifetimes(context.Background(), jobs, []Policy{eager{}}, o, LifetimeOptions{LengthSec: 24 * hour, HandoverSec: 600})
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if r.From != s1+2*hour || r.To != s1+26*hour || len(r.Links) != 29 {
		t.Fatalf("lifetime [%d, %d) with %d links, want [%d, %d) with 29", r.From, r.To, len(r.Links), s1+2*hour, s1+26*hour)
	}
	for j, l := range r.Links {
		want := s1 + 2*hour + int64(j)*1800
		if l.Start != want {
			t.Errorf("link %d: started %d, want %d", j+1, l.Start, want)
		}
	}
	if r.UpSec != 24*hour || r.Interruptions != 0 || r.NodeSec != (40+27*40+600)*60 {
		t.Errorf("up %d s, %d interruptions, %d node-s; want %d, 0, %d", r.UpSec, r.Interruptions, r.NodeSec, 24*hour, (40+27*40+600)*60)
	}
}
