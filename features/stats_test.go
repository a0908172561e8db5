package features

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mirage-hpc/mirage/sim"
)

func errorsIs(err, target error) bool { return errors.Is(err, target) }

func TestPercentiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		x    []float64
		want []float64
	}{
		{"Empty", nil, []float64{0, 0, 0, 0, 0}},
		{"One", []float64{7}, []float64{7, 7, 7, 7, 7}},
		{"Two", []float64{10, 0}, []float64{0, 2.5, 5, 7.5, 10}},
		{"Five", []float64{5, 1, 4, 2, 3}, []float64{1, 2, 3, 4, 5}},
		{"Four", []float64{1, 2, 3, 4}, []float64{1, 1.75, 2.5, 3.25, 4}}, // numpy
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := make([]float64, 5)
			percentiles(got, tc.x)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Error(d)
			}
		})
	}
}

func TestQueueStats(t *testing.T) {
	snap := sim.Snapshot{
		Now: 1000, Nodes: 10, Capacity: 9, FreeNodes: 2,
		Pending: []sim.PendingJob{{Nodes: 2, LimitSec: 600, Submit: 900}, {Nodes: 3, LimitSec: 1200, Submit: 500}},
		Running: []sim.RunningJob{{Nodes: 7, LimitSec: 3600, Submit: 100, Start: 400}},
	}
	got := QueueStats(nil, &snap)
	want := []float64{
		2, 5, 600, 750, 900, 1050, 1200, 100, 200, 300, 400, 500,
		1, 7, 3600, 3600, 3600, 3600, 3600, 300, 300, 300, 300, 300, 600, 600, 600, 600, 600,
		2, 9,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Error(d)
	}
	names := Names()[:NumQueueStats]
	if names[qsRunningElapsed] != "running_elapsed_p0_sec" || names[qsCapacityNodes] != "capacity_nodes" {
		t.Errorf("schema and QueueStats disagree: %v", names)
	}
}

func TestProbeTimes(t *testing.T) {
	got := ProbeTimes(nil, 60, 60+6*3601, 7)
	want := []int64{60, 3660, 7260, 10860, 14460, 18060, 21666}
	if d := cmp.Diff(want, got); d != "" {
		t.Error(d)
	}
	if got := ProbeTimes(nil, 60, 120, 1); !cmp.Equal(got, []int64{120}) {
		t.Errorf("one probe: %v", got)
	}
}

func TestSchema(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Schema() {
		if seen[f.Name] {
			t.Errorf("duplicate feature %q", f.Name)
		}
		seen[f.Name] = true
		if f.Unit == "" {
			t.Errorf("feature %q has no unit", f.Name)
		}
	}
	if len(seen) != NumFeatures() {
		t.Errorf("%d names, NumFeatures %d", len(seen), NumFeatures())
	}
}

// TestHistoryStats_MatchQueueStats checks that the history's statistics
// are QueueStats' to the bit, on random queues.
func TestHistoryStats_MatchQueueStats(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for k := range 200 {
		snap := sim.Snapshot{Now: 1_000_000 + rng.Int64N(1000)}
		for range rng.IntN(40) * (k % 3) {
			snap.Pending = append(snap.Pending, sim.PendingJob{Nodes: 1 + rng.Int32N(9), LimitSec: 60 + rng.Int64N(9999), Submit: snap.Now - rng.Int64N(99999)})
		}
		for range rng.IntN(40) {
			snap.Running = append(snap.Running, sim.RunningJob{Nodes: 1 + rng.Int32N(9), LimitSec: 60, Submit: snap.Now - 500, Start: snap.Now - 100})
		}
		want := QueueStats(nil, &snap)
		got := make([]float64, NumQueueStats)
		historyStats(got, &snap)
		for _, s := range historySeries {
			if s.qs >= 0 && math.Float64bits(got[s.qs]) != math.Float64bits(want[s.qs]) {
				t.Fatalf("queue %d: %s = %v, QueueStats %v", k, s.name, got[s.qs], want[s.qs])
			}
		}
	}
}
