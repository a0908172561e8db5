package features

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mirage-hpc/mirage/internal/golden"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/simtest"
)

// day0 is 2022-11-01T00:00:00Z.
const day0 = 1667260800

// busyJobs is simtest.BusyJobs from day0.
func busyJobs(n, days int, seed uint64) []sim.Job { return simtest.BusyJobs(n, days, seed, day0) }

func testOptions(mode sim.WindowMode) Options {
	cfg := sim.DefaultConfig()
	cfg.Nodes = 8
	o := DefaultOptions()
	o.Config, o.Mode = cfg, mode
	o.Start, o.Windows, o.IntervalSec = day0+86400, 4, 6*3600
	o.WarmupSec, o.WorkloadSec = 86400, 4*86400
	o.ChainLimitSec = 12 * 3600
	o.ChainNodes = []int{1, 4}
	o.Probes = 5
	return o
}

func TestBuild_NoLeakage(t *testing.T) {
	jobs := busyJobs(600, 8, 1)
	for _, mode := range []sim.WindowMode{sim.WindowCold, sim.WindowWarm} {
		t.Run(mode.String(), func(t *testing.T) {
			o := testOptions(mode)
			if err := o.normalise(); err != nil {
				t.Fatal(err)
			}
			waited := 0
			for w := range o.Windows {
				for _, n := range o.ChainNodes {
					with, err := runWindow(context.Background(), jobs, &o, w, n, 5, false)
					if err != nil {
						t.Fatal(err)
					}
					without, err := runWindow(context.Background(), jobs, &o, w, n, 5, true)
					if err != nil {
						t.Fatal(err)
					}
					if d := cmp.Diff(without.feats, with.feats); d != "" {
						t.Fatalf("window %d, %d nodes: features differ when Q is submitted (-never +submitted):\n%s", w, n, d)
					}
					for _, wt := range with.wait {
						if wt > 0 {
							waited++
						}
					}
				}
			}
			if waited == 0 {
				t.Errorf("no probe made Q wait: the workload does not exercise contention")
			}
		})
	}
}

func TestBuild_WorkersIdentical(t *testing.T) {
	jobs := busyJobs(600, 8, 2)
	o := testOptions(sim.WindowWarm)
	o.Workers = 1
	one, sum1, err := Build(context.Background(), jobs, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Workers = 3
	many, sumN, err := Build(context.Background(), jobs, o)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(one, many); d != "" {
		t.Errorf("1 vs 3 workers (-1 +3):\n%s", d)
	}
	if sum1 != sumN {
		t.Errorf("summaries differ: %+v vs %+v", sum1, sumN)
	}
	if want := o.Windows * len(o.ChainNodes) * o.Probes; one.Len() != want || sum1.Samples != want {
		t.Errorf("%d rows, summary %d, want %d", one.Len(), sum1.Samples, want)
	}
}

func TestBuild_LabelProperties(t *testing.T) {
	jobs := busyJobs(600, 8, 3)
	for _, mode := range []sim.WindowMode{sim.WindowCold, sim.WindowWarm} {
		o := testOptions(mode)
		s, _, err := Build(context.Background(), jobs, o)
		if err != nil {
			t.Fatal(err)
		}
		pRemaining := s.Features[indexOf(t, "p_remaining_sec")]
		positive := 0
		for i := range s.Len() {
			r, wait := s.LabelRSec[i], s.LabelWaitSec[i]
			if r < -o.ChainLimitSec {
				t.Errorf("%s row %d: r = %d < -(P's run time %d)", mode, i, r, o.ChainLimitSec)
			}
			if wait < 0 {
				t.Errorf("%s row %d: wait %d < 0", mode, i, wait)
			}
			if (i+1)%o.Probes == 0 { // the last probe is at P.end
				if r != wait {
					t.Errorf("%s row %d: probe at P.end: r = %d, wait = %d", mode, i, r, wait)
				}
				if pRemaining[i] != 0 {
					t.Errorf("%s row %d: probe at P.end with p_remaining_sec %v", mode, i, pRemaining[i])
				}
			}
			if r > 0 {
				positive++
			}
		}
		if positive == 0 {
			t.Errorf("%s: no interruption in %d samples: the workload does not exercise contention", mode, s.Len())
		}
	}
}

func TestBuild_ErrOptions(t *testing.T) {
	o := testOptions(sim.WindowCold)
	o.ChainNodes = []int{9}
	if _, _, err := Build(context.Background(), nil, o); !errorsIs(err, ErrOptions) {
		t.Errorf("chain wider than the cluster: err = %v, want ErrOptions", err)
	}
}

func TestBuild_Canceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Build(ctx, busyJobs(100, 8, 1), testOptions(sim.WindowCold)); err == nil {
		t.Error("no error from a cancelled context")
	}
}

func indexOf(t *testing.T, name string) int {
	t.Helper()
	for i, n := range Names() {
		if n == name {
			return i
		}
	}
	t.Fatalf("no feature %q", name)
	return -1
}

// TestBuild_Golden pins the feature vectors and labels of a tiny
// hand-built scenario: 4 nodes, a 3-node job running from the window's
// start, a 2-node job pending behind it, a chain of 2 nodes for 2 hours.
func TestBuild_Golden(t *testing.T) {
	h := int64(3600)
	jobs := []sim.Job{
		{Name: "a", User: 0, Nodes: 3, Submit: day0, After: sim.NoJob, LimitSec: 4 * h, RunSec: 3 * h},
		{Name: "b", User: 1, Nodes: 2, Submit: day0 + 600, After: sim.NoJob, LimitSec: 2 * h, RunSec: 2 * h},
		{Name: "c", User: 1, Nodes: 1, Submit: day0 + 2*h, After: sim.NoJob, LimitSec: 5 * h, RunSec: 5 * h},
		{Name: "d", User: 2, Nodes: 4, Submit: day0 + 3*h, After: sim.NoJob, LimitSec: h, RunSec: h},
	}
	cfg := sim.DefaultConfig()
	cfg.Nodes = 4
	o := Options{
		Config: cfg, Mode: sim.WindowCold, Start: day0, Windows: 1, IntervalSec: h,
		WarmupSec: h, WorkloadSec: 6 * h, Probes: 3, ChainNodes: []int{2},
		ChainLimitSec: 2 * h, Location: time.UTC,
	}
	s, _, err := Build(context.Background(), jobs, o)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range s.Len() {
		fmt.Fprintf(&b, "row %d window %d nodes %d probe %+d label_r_sec %d label_wait_sec %d\n",
			i, s.WindowID[i], s.ChainNodes[i], s.ProbeTime[i]-day0, s.LabelRSec[i], s.LabelWaitSec[i])
		for f, n := range s.Names {
			fmt.Fprintf(&b, "  %-42s %.6g\n", n, s.Features[f][i])
		}
	}
	golden.Check(t, "testdata/tiny.golden", []byte(b.String()))
}

func BenchmarkBuild(b *testing.B) {
	jobs := busyJobs(600, 8, 1)
	o := testOptions(sim.WindowWarm)
	if _, _, err := Build(context.Background(), jobs, o); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Build(context.Background(), jobs, o); err != nil {
			b.Fatal(err)
		}
	}
}
