package evaluate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/simtest"
)

const day0 = 1667260800 // 2022-11-01T00:00:00Z

// busyJobs is simtest.BusyJobs from day0.
func busyJobs(n, days int, seed uint64) []sim.Job { return simtest.BusyJobs(n, days, seed, day0) }

func testOptions(mode sim.WindowMode, workers int) Options {
	cfg := sim.DefaultConfig()
	cfg.Nodes = 8
	o := features.DefaultOptions()
	o.Config, o.Mode = cfg, mode
	o.Start, o.Windows, o.IntervalSec = day0+86400, 4, 6*3600
	o.WarmupSec, o.WorkloadSec = 86400, 4*86400
	o.ChainLimitSec = 12 * 3600
	o.ChainNodes = []int{1, 4}
	return Options{Features: o, DecisionSec: 1800, Workers: workers, Lambda: DefaultLambda}
}

// queuePolicy submits when the pending queue (a feature) is short: it
// exercises the lazily computed features.
type queuePolicy struct{}

func (queuePolicy) Name() string { return "queue" }
func (queuePolicy) Decide(c *DecisionContext) (bool, error) {
	f, err := c.Features()
	if err != nil {
		return false, err
	}
	return c.PStarted && f[0] < 3, nil
}

func allPolicies() []Policy {
	return []Policy{Reactive{}, Immediate{}, Avg{}, SlurmEstimate{}, Oracle{}, OracleCost{}, queuePolicy{}}
}

func replay(t *testing.T, mode sim.WindowMode, workers int) Results {
	t.Helper()
	res, err := Replay(context.Background(), busyJobs(700, 8, 1), allPolicies(), testOptions(mode, workers))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestReplay_OracleNeverBeaten(t *testing.T) {
	for _, mode := range []sim.WindowMode{sim.WindowCold, sim.WindowWarm} {
		t.Run(mode.String(), func(t *testing.T) {
			res := replay(t, mode, 2)
			if want := 2 * 4 * len(res.Policies); len(res.Rows) != want {
				t.Fatalf("%d rows, want %d", len(res.Rows), want)
			}
			n := len(res.Policies)
			interrupted := 0
			for u := 0; u < len(res.Rows); u += n {
				unit := res.Rows[u : u+n]
				var oracle Row
				for _, r := range unit {
					if r.Policy == OracleName {
						oracle = r
					}
				}
				for _, r := range unit {
					if r.Window != oracle.Window || r.ChainNodes != oracle.ChainNodes {
						t.Fatalf("rows out of order: %+v", r)
					}
					if Better(r.RSec, oracle.RSec) {
						t.Errorf("window %d (%d nodes): %s r=%d beats the oracle's %d", r.Window, r.ChainNodes, r.Policy, r.RSec, oracle.RSec)
					}
					if r.Submit < r.PSubmit || r.Submit > r.PEnd || r.QStart < r.Submit {
						t.Errorf("%s: submit %d outside [%d, %d] or Q start %d before it", r.Policy, r.Submit, r.PSubmit, r.PEnd, r.QStart)
					}
					if r.Policy == "reactive" {
						if r.RSec < 0 {
							t.Errorf("window %d: reactive overlaps (r=%d)", r.Window, r.RSec)
						}
						if r.Submit != r.PEnd || r.RSec != r.ReactiveRSec {
							t.Errorf("window %d: reactive submitted at %d, P ends %d", r.Window, r.Submit, r.PEnd)
						}
						if r.RSec > 0 {
							interrupted++
						}
					}
					// A decision at t sees the queue just before t's events
					// (Q submitted at t joins t's passes), so immediate
					// sees P started at the first grid time after its start.
					if r.Policy == "immediate" && (r.Submit <= r.PStart || r.Submit > r.PStart+1800) && r.Submit != r.PEnd {
						t.Errorf("window %d: immediate submitted at %d, P started %d", r.Window, r.Submit, r.PStart)
					}
				}
			}
			t.Logf("%d of %d windows interrupted by reactive", interrupted, len(res.Rows)/n)
		})
	}
}

func TestReplay_Deterministic(t *testing.T) {
	a := replay(t, sim.WindowWarm, 1)
	b := replay(t, sim.WindowWarm, 3)
	if d := cmp.Diff(a, b); d != "" {
		t.Fatalf("1 vs 3 workers (-1 +3):\n%s", d)
	}
}

func TestMetrics_FromCSV(t *testing.T) {
	res := replay(t, sim.WindowCold, 2)
	m := Compute(res.Rows, DefaultLambda)
	var buf bytes.Buffer
	if err := WriteCSV(&buf, res.Rows, DefaultLambda); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(m)
	got, _ := json.Marshal(Compute(rows, DefaultLambda))
	if !bytes.Equal(want, got) {
		t.Fatalf("metrics from windows.csv differ:\n%s\n%s", got, want)
	}
	if m.Windows != 8 || len(m.Policies) != len(res.Policies) {
		t.Fatalf("windows %d, policies %d", m.Windows, len(m.Policies))
	}
	r := m.Policies["reactive"].Pooled
	if r.MeanOverlapH != 0 || r.WastedNodeH != 0 || r.RescuedShare != 0 {
		t.Errorf("reactive: %+v", r)
	}
	o := m.Policies[OracleName].Pooled
	if *o.GapToOracleInterruptionH != 0 || *o.GapToOracleOverlapH != 0 {
		t.Errorf("oracle's gap to itself: %+v", o)
	}
	for name, p := range m.Policies {
		if *p.Pooled.GapToOracleInterruptionH < 0 {
			t.Errorf("%s: mean interruption below the oracle's", name)
		}
	}
}

func TestSummarise_Hand(t *testing.T) {
	rows := []Row{
		{Policy: "x", ChainNodes: 2, Window: 0, RSec: 3600, ReactiveRSec: 7200},
		{Policy: "x", ChainNodes: 2, Window: 1, RSec: -1800, ReactiveRSec: 0},
		{Policy: "x", ChainNodes: 2, Window: 2, RSec: 0, ReactiveRSec: 50 * 3600},
		{Policy: "x", ChainNodes: 2, Window: 3, RSec: 7200, ReactiveRSec: 10 * 3600},
	}
	p := Compute(rows, DefaultLambda).Policies["x"]
	want := Summary{Windows: 4, MeanInterruptionH: 0.75, MedianInterruptionH: 0.5, P90InterruptionH: 1.7,
		ZeroInterruptionShare: 0.5, ReactiveInterrupted: 3, RescuedShare: 1.0 / 3,
		InterruptionReduction: 1 - 3.0/62, MeanOverlapH: 0.125, MeanCostH: (1 + 0.25 + 0 + 2) / 4, WastedNodeH: 1}
	if d := cmp.Diff(want, p.Pooled, cmpFloat); d != "" {
		t.Fatal(d)
	}
	s := p.ByChain["2"]
	if d := cmp.Diff(want, s.Summary, cmpFloat); d != "" {
		t.Fatal(d)
	}
	if got := s.ByLoad[LoadLight].Windows + s.ByLoad[LoadMedium].Windows + s.ByLoad[LoadHeavy].Windows; got != 4 ||
		s.ByLoad[LoadHeavy].Windows != 1 || s.ByLoad[LoadLight].Windows != 2 {
		t.Fatalf("load classes: %+v", s.ByLoad)
	}
}

var cmpFloat = cmp.Comparer(func(a, b float64) bool { return a == b || (a-b < 1e-12 && b-a < 1e-12) })

func TestBest(t *testing.T) {
	for _, c := range []struct {
		r    []int64
		want int
	}{
		{nil, -1}, {[]int64{5, 3, 9}, 1}, {[]int64{-100, -5, 10, 0}, 3}, {[]int64{-7, -5, -5}, 1},
	} {
		if got := Best(c.r); got != c.want {
			t.Errorf("Best(%v) = %d, want %d", c.r, got, c.want)
		}
	}
}

func TestGrid(t *testing.T) {
	got := Grid(0, 900, 2000, 600)
	if want := []int64{0, 600, 900, 1200, 1800, 2000}; !slices.Equal(got, want) {
		t.Fatalf("Grid = %v, want %v", got, want)
	}
}

func TestParsePolicies(t *testing.T) {
	ps, err := ParsePolicies("reactive, immediate,avg,slurm-estimate,oracle", nil, 0)
	if err != nil || len(ps) != 5 {
		t.Fatalf("%v %v", ps, err)
	}
	for _, bad := range []string{"", "nope", "forest:", "reactive,reactive", "xgboost:/nonexistent"} {
		if _, err := ParsePolicies(bad, nil, 0); err == nil {
			t.Errorf("ParsePolicies(%q): no error", bad)
		}
	}
}

// TestCompute_ByChain: metrics per chain size, by hand.
func TestCompute_ByChain(t *testing.T) {
	rows := []Row{
		{Policy: "x", ChainNodes: 8, Window: 0, RSec: 7200, ReactiveRSec: 7200},
		{Policy: "x", ChainNodes: 1, Window: 0, RSec: 0, ReactiveRSec: 3600},
		{Policy: "x", ChainNodes: 1, Window: 1, RSec: -3600, ReactiveRSec: 0},
		{Policy: "x", ChainNodes: 8, Window: 1, RSec: 0, ReactiveRSec: 3600},
	}
	s := Compute(rows, DefaultLambda).Policies["x"]
	one, eight := s.ByChain["1"], s.ByChain["8"]
	if len(s.ByChain) != 2 || one.Windows != 2 || eight.Windows != 2 {
		t.Fatalf("by chain: %+v", s.ByChain)
	}
	if one.MeanInterruptionH != 0 || one.MeanOverlapH != 0.5 || one.InterruptionReduction != 1 || one.WastedNodeH != 1 {
		t.Errorf("1 node: %+v", one)
	}
	if eight.MeanInterruptionH != 1 || math.Abs(eight.InterruptionReduction-1.0/3) > 1e-12 || eight.ZeroInterruptionShare != 0.5 {
		t.Errorf("8 nodes: %+v", eight)
	}
}

// TestPolicyModes: every policy ParsePolicies gives is exactly one of
// Causal (it decides at each grid time) and Hindsight (it chooses after
// the window: the oracles), and Replay refuses a policy that is neither.
func TestPolicyModes(t *testing.T) {
	ps, err := ParsePolicies("reactive,immediate,avg,slurm-estimate,slurm-estimate-rt,oracle,oracle-cost,oracle-cost@λ=0.2", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		_, causal := p.(Causal)
		_, hindsight := p.(Hindsight)
		if causal == hindsight {
			t.Errorf("%s: causal %v, hindsight %v; want exactly one", p.Name(), causal, hindsight)
		}
		if want := strings.HasPrefix(p.Name(), "oracle"); hindsight != want {
			t.Errorf("%s: hindsight %v, want %v", p.Name(), hindsight, want)
		}
	}
	if _, err := Replay(context.Background(), nil, []Policy{namedOnly{}}, Options{}); !errors.Is(err, ErrPolicy) {
		t.Errorf("Replay of a policy that neither decides nor chooses: %v, want ErrPolicy", err)
	}
	rs := []int64{-7200, -60, 300, 9000}
	if got, want := (Oracle{}).Choose(rs, 0.5), Best(rs); got != want {
		t.Errorf("Oracle.Choose = %d, Best = %d", got, want)
	}
	l := 2.0
	if got, want := (OracleCost{Lambda: &l}).Choose(rs, 0.5), BestCost(rs, 2); got != want {
		t.Errorf("OracleCost{λ=2}.Choose = %d, BestCost(λ=2) = %d", got, want)
	}
	if got, want := (OracleCost{}).Choose(rs, 0.5), BestCost(rs, 0.5); got != want {
		t.Errorf("OracleCost{}.Choose = %d, BestCost(the evaluation's λ) = %d", got, want)
	}
}

// namedOnly is a Policy that neither decides nor chooses.
type namedOnly struct{}

func (namedOnly) Name() string { return "named-only" }
