package evaluate

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
)

// TestLifetimes_TimeMinGolden: a lifetime of 24 h on 3 nodes, computed by
// hand. b (2 nodes) runs from day0 to s1+14 h, P₁ (1 node, 10 h) from s1
// = day0+1 h, and w (3 nodes, 1 h, older than every link) is reserved at
// s1+14 h. reactive's Q₂ (10 h) fits nowhere before w's end and starts
// at s1+15 h: 2 links, 5 h down. With a time-min of 2 h (the policy's or
// the protocol's) Q₂ starts at P₁'s end under the 4 h up to w's
// reservation and ends at s1+14 h; the lifetime is then not covered, and
// Q₃, submitted at Q₂'s granted end, waits for w (s1+15 h): 3 links, 1 h
// down, 23 node-hours.
func TestLifetimes_TimeMinGolden(t *testing.T) {
	h := int64(3600)
	s1 := int64(day0) + h
	jobs := []sim.Job{
		{Name: "b", User: 0, Nodes: 2, Submit: day0, After: sim.NoJob, LimitSec: 15 * h, RunSec: 15 * h},
		{Name: "w", User: 1, Nodes: 3, Submit: s1 + 5*h, After: sim.NoJob, LimitSec: h, RunSec: h},
	}
	cfg := sim.MirageCompat()
	cfg.Nodes = 3
	cfg.Backfill = sim.Backfill{Flavour: sim.BackfillConservative, IntervalSec: 60, ResolutionSec: 60, WindowSec: 2 * 86400}
	fo := features.Options{
		Config: cfg, Mode: sim.WindowCold, Start: day0, Windows: 1, IntervalSec: h,
		WarmupSec: h, WorkloadSec: 8 * h, Probes: 1, ChainNodes: []int{1},
		ChainLimitSec: 10 * h, ChainRunSec: 10 * h, Location: time.UTC,
	}
	lo := LifetimeOptions{LengthSec: 24 * h, HandoverSec: DefaultHandoverSec}
	type want struct {
		starts, ends  []int64
		up, nodeSec   int64
		interruptions int
	}
	plain := want{[]int64{s1, s1 + 15*h}, []int64{s1 + 10*h, s1 + 25*h}, 19 * h, 19 * h, 1}
	tmin := want{[]int64{s1, s1 + 10*h, s1 + 15*h}, []int64{s1 + 10*h, s1 + 14*h, s1 + 25*h}, 23 * h, 23 * h, 1}
	check := func(label string, r LifetimeRow, w want) {
		t.Helper()
		var starts, ends []int64
		for _, l := range r.Links {
			starts, ends = append(starts, l.Start), append(ends, l.End)
		}
		if r.From != s1 || r.To != s1+24*h || !reflect.DeepEqual(starts, w.starts) || !reflect.DeepEqual(ends, w.ends) {
			t.Errorf("%s: [%d, %d), links from %v to %v; want [%d, %d), %v to %v", label, r.From, r.To, starts, ends, s1, s1+24*h, w.starts, w.ends)
		}
		if r.UpSec != w.up || r.NodeSec != w.nodeSec || r.Interruptions != w.interruptions {
			t.Errorf("%s: up %d s, %d node-s, %d interruptions; want %d, %d, %d", label, r.UpSec, r.NodeSec, r.Interruptions, w.up, w.nodeSec, w.interruptions)
		}
	}
	ps, err := ParsePolicies("reactive,reactive@tmin=2h", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Lifetimes(context.Background(), jobs, ps, Options{Features: fo, DecisionSec: 1800, Workers: 1}, lo)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	check("reactive", rows[0], plain)
	check("reactive@tmin=2h", rows[1], tmin)
	// The protocol's time-min gives every link the same.
	fo.QTimeMinSec = 2 * h
	rows, err = Lifetimes(context.Background(), jobs, []Policy{Reactive{}}, Options{Features: fo, DecisionSec: 1800, Workers: 1}, lo)
	if err != nil {
		t.Fatal(err)
	}
	check("reactive, protocol time-min", rows[0], tmin)
}
