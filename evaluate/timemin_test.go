package evaluate

import (
	"context"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
)

// TestReplay_WithTimeMin: on 4 nodes, b (3 nodes) runs to day0+4h, P (1
// node, 2 h) from day0+1h to its end at day0+3h, and w (4 nodes, older
// than Q) is reserved at day0+4h. A reactive Q of 2 h fits nowhere
// before w's end (day0+5h: r = 2 h); the same policy with a time-min of
// 20 min starts Q at P's end under the 1 h that ends at w's reservation
// (r = 0, a shorter link), and only its row changes.
func TestReplay_WithTimeMin(t *testing.T) {
	h := int64(3600)
	jobs := []sim.Job{
		{Name: "b", User: 0, Nodes: 3, Submit: day0, After: sim.NoJob, LimitSec: 4 * h, RunSec: 4 * h},
		{Name: "w", User: 1, Nodes: 4, Submit: day0 + h + 60, After: sim.NoJob, LimitSec: h, RunSec: h},
	}
	cfg := sim.MirageCompat()
	cfg.Nodes = 4
	cfg.Backfill = sim.Backfill{Flavour: sim.BackfillConservative, IntervalSec: 60, ResolutionSec: 60, WindowSec: 2 * 86400}
	fo := features.Options{
		Config: cfg, Mode: sim.WindowCold, Start: day0, Windows: 1, IntervalSec: h,
		WarmupSec: h, WorkloadSec: 8 * h, Probes: 1, ChainNodes: []int{1},
		ChainLimitSec: 2 * h, ChainRunSec: 2 * h, Location: time.UTC,
	}
	pols := []Policy{Reactive{}, WithTimeMin(Reactive{}, 1200)}
	res, err := Replay(context.Background(), jobs, pols, Options{Features: fo})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 || res.Policies[1] != "reactive+time-min=20m0s" {
		t.Fatalf("rows %+v, policies %v", res.Rows, res.Policies)
	}
	type want struct{ qStart, rSec, limit int64 }
	for i, w := range []want{{day0 + 5*h, 2 * h, 2 * h}, {day0 + 3*h, 0, h}} {
		r := res.Rows[i]
		if r.PEnd != day0+3*h || r.QStart != w.qStart || r.RSec != w.rSec || r.QLimitSec != w.limit {
			t.Errorf("%s: P ends +%d, Q starts +%d (r %d) under %d s; want P at +%d, Q at +%d (r %d) under %d s",
				r.Policy, r.PEnd-day0, r.QStart-day0, r.RSec, r.QLimitSec, 3*h, w.qStart-day0, w.rSec, w.limit)
		}
	}
	// The same with the protocol's time-min: reactive's own Q has it.
	fo.QTimeMinSec = 1200
	res, err = Replay(context.Background(), jobs, []Policy{Reactive{}}, Options{Features: fo})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Rows[0]; r.QStart != day0+3*h || r.QLimitSec != h {
		t.Errorf("protocol time-min: Q at +%d under %d s, want +%d under %d", r.QStart-day0, r.QLimitSec, 3*h, h)
	}
}
