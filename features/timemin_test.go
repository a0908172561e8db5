package features

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/sim"
)

// timeMinScenario: on 4 nodes, b (3 nodes) runs to day0+2.5h and P (1
// node, 2 h) from day0+1h to day0+3h; w (4 nodes, older than any Q) is
// reserved at P's end. At day0+2.5h three nodes are free until then: a
// Q of 2 h does not fit before w, one with a time-min of 20 min does.
func timeMinScenario(qTimeMin int64) ([]sim.Job, Options) {
	h := int64(3600)
	jobs := []sim.Job{
		{Name: "b", User: 0, Nodes: 3, Submit: day0, After: sim.NoJob, LimitSec: 5 * h / 2, RunSec: 5 * h / 2},
		{Name: "w", User: 1, Nodes: 4, Submit: day0 + h + 60, After: sim.NoJob, LimitSec: h, RunSec: h},
	}
	cfg := sim.MirageCompat()
	cfg.Nodes = 4
	cfg.Backfill = sim.Backfill{Flavour: sim.BackfillConservative, IntervalSec: 60, ResolutionSec: 60, WindowSec: 2 * 86400}
	o := Options{
		Config: cfg, Mode: sim.WindowCold, Start: day0, Windows: 1, IntervalSec: h,
		WarmupSec: h, WorkloadSec: 6 * h, Probes: 3, ChainNodes: []int{1},
		ChainLimitSec: 2 * h, ChainRunSec: 2 * h, Location: time.UTC, QTimeMinSec: qTimeMin,
	}
	return jobs, o
}

// TestTimeline_QTimeMin: with Q's time-min, Q submitted at day0+2.5h is
// backfilled before w's reservation at P's end under the limit that ends
// there (QStart's LimitSec: a shorter link); without one it waits for w.
func TestTimeline_QTimeMin(t *testing.T) {
	ctx := context.Background()
	h := int64(3600)
	for _, tm := range []int64{0, 1200} {
		jobs, o := timeMinScenario(tm)
		if err := Normalise(&o); err != nil {
			t.Fatal(err)
		}
		tl, err := NewTimeline(ctx, jobs, &o, 0, 1, ChainUser(jobs))
		if err != nil {
			t.Fatal(err)
		}
		pEnd := day0 + 3*h
		at := day0 + 5*h/2
		if err := tl.Advance(ctx, at); err != nil {
			t.Fatal(err)
		}
		res, err := tl.QStart(ctx, at, pEnd)
		if err != nil {
			t.Fatal(err)
		}
		if tm == 0 {
			if res.Start != day0+4*h || res.LimitSec != 2*h || res.RSec != h {
				t.Errorf("no time-min: Q starts at +%d s under %d s (r %d), want after w (+%d) under %d", res.Start-day0, res.LimitSec, res.RSec, 4*h, 2*h)
			}
			continue
		}
		if res.Start >= pEnd || res.Start+res.LimitSec != pEnd || res.LimitSec < tm || res.RSec != res.Start-pEnd {
			t.Errorf("time-min %d s: Q starts at +%d s under %d s (r %d), want before P's end +%d under the limit that ends there",
				tm, res.Start-day0, res.LimitSec, res.RSec, pEnd-day0)
		}
		if s, r, _ := tl.QOutcome(ctx, at, pEnd); s != res.Start || r != res.RSec {
			t.Errorf("QOutcome %d, %d; QStart %d, %d", s, r, res.Start, res.RSec)
		}
	}
}

// TestProtocol_QTimeMin: a protocol without Q's time-min marshals as it
// did (no q_time_min key: study keys and caches are unchanged); the
// override sets it and Prepare passes it on.
func TestProtocol_QTimeMin(t *testing.T) {
	p, err := LookupProtocol("mirage-ls6")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(p)
	if strings.Contains(string(b), "q_time_min") {
		t.Errorf("protocol JSON without a time-min has q_time_min: %s", b)
	}
	q, err := Overrides{QTimeMin: 12 * time.Hour}.Apply(p)
	if err != nil || q.QTimeMin != 12*time.Hour {
		t.Fatalf("Apply: %v, %v", q.QTimeMin, err)
	}
	if _, err := (Overrides{QTimeMin: 1500 * time.Millisecond}).Apply(p); err == nil {
		t.Error("a time-min of 1.5 s: no error")
	}
	b, _ = json.Marshal(q)
	if !strings.Contains(string(b), `"q_time_min":43200000000000`) {
		t.Errorf("protocol JSON: %s", b)
	}
}
