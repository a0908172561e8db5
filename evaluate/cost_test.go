package evaluate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mirage-hpc/mirage/sim"
)

func TestCostH(t *testing.T) {
	const h = 3600
	for _, c := range []struct {
		r      int64
		lambda float64
		want   float64
	}{
		{0, 0.5, 0}, {2 * h, 0.5, 2}, {-2 * h, 0.5, 1}, {-2 * h, 0, 0}, {-h, 2, 2}, {h / 2, 2, 0.5},
	} {
		if got := CostH(c.r, c.lambda); got != c.want {
			t.Errorf("CostH(%d, %v) = %v, want %v", c.r, c.lambda, got, c.want)
		}
	}
}

// TestBestCost: hand-made outcomes; the least cost wins, the earliest on
// ties, and it may differ from Best's lexicographic choice.
func TestBestCost(t *testing.T) {
	const h = 3600
	for _, c := range []struct {
		name   string
		r      []int64
		lambda float64
		want   int
	}{
		{"none", nil, 0.5, -1},
		{"least interruption", []int64{5 * h, 3 * h, 9 * h}, 0.5, 1},
		{"small interruption beats big overlap", []int64{-4 * h, h, -3 * h}, 0.5, 1}, // costs 2, 1, 1.5
		{"overlap beats interruption", []int64{2 * h, -2 * h}, 0.5, 1},               // 2 vs 1
		{"earliest of equal costs", []int64{3 * h, -2 * h, h, -2 * h}, 0.5, 1},       // 3, 1, 1, 1
		{"tie across signs: earliest", []int64{h / 2, -h}, 0.5, 0},                   // 0.5, 0.5
		{"lambda 0: overlap is free", []int64{h, -5 * h, -h}, 0, 1},
		{"zero", []int64{-600, 0, 0}, 0.5, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := BestCost(c.r, c.lambda); got != c.want {
				t.Errorf("BestCost(%v, %v) = %d, want %d", c.r, c.lambda, got, c.want)
			}
		})
	}
	// Lexicographic and cost-optimal oracles disagree: zero interruption
	// with 4 h of overlap (cost 2) vs 1 h of interruption (cost 1).
	r := []int64{-4 * h, h}
	if Best(r) != 0 || BestCost(r, 0.5) != 1 {
		t.Errorf("Best %d, BestCost %d; want 0, 1", Best(r), BestCost(r, 0.5))
	}
}

func TestFamily(t *testing.T) {
	for in, want := range map[string]string{
		"forest:m@θ=0.5": "forest:m", "slurm-estimate@margin=0.25": "slurm-estimate", "oracle": "oracle",
		"forest:a@b/m": "forest:a@b/m", "forest:a@b/m@θ=1": "forest:a@b/m", "oracle-cost": "oracle-cost",
	} {
		if got := Family(in); got != want {
			t.Errorf("Family(%q) = %q, want %q", in, got, want)
		}
	}
}

// costRows: two chain sizes, two windows each; reactive, both oracles and
// a policy x.
func costRows() []Row {
	const h = 3600
	var rows []Row
	add := func(nodes, w int, react int64, rs map[string]int64) {
		for _, p := range []string{"reactive", OracleName, OracleCostName, "x"} {
			r := react
			if p != "reactive" {
				r = rs[p]
			}
			rows = append(rows, Row{Policy: p, ChainNodes: nodes, Window: w, RSec: r, ReactiveRSec: react})
		}
	}
	add(1, 0, 4*h, map[string]int64{OracleName: -4 * h, OracleCostName: h, "x": -2 * h})
	add(1, 1, 2*h, map[string]int64{OracleName: 0, OracleCostName: 0, "x": h})
	add(8, 0, 10*h, map[string]int64{OracleName: 0, OracleCostName: 0, "x": 0})
	add(8, 1, 0, map[string]int64{OracleName: 0, OracleCostName: 0, "x": -h})
	return rows
}

func TestCompute_Cost(t *testing.T) {
	m := Compute(costRows(), 0.5)
	if m.Lambda != 0.5 || !cmp.Equal(m.ChainNodes, []int{1, 8}) || m.Windows != 4 {
		t.Fatalf("lambda %v, chain nodes %v, windows %d", m.Lambda, m.ChainNodes, m.Windows)
	}
	f := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		policy, chain string
		cost          float64
		gap, ratio    *float64
	}{
		{"x", "1", (1 + 1) / 2.0, f(1 - 0.5), f(2 / 1.0)},
		{OracleName, "1", (2 + 0) / 2.0, f(0.5), f(2)},
		{OracleCostName, "1", 0.5, f(0), f(1)},
		{"reactive", "1", 3, f(2.5), f(6)},
		{"x", "8", 0.25, f(0.25), nil}, // the oracle's cost is 0: no ratio
		{OracleCostName, "8", 0, f(0), nil},
	} {
		s := m.Policies[c.policy].ByChain[c.chain]
		if s.MeanCostH != c.cost || !cmp.Equal(s.GapToOracleCostH, c.gap) || !cmp.Equal(s.CostVsOracleCost, c.ratio) {
			t.Errorf("%s, %s nodes: cost %v gap %v ratio %v; want %v %v %v", c.policy, c.chain, s.MeanCostH,
				deref(s.GapToOracleCostH), deref(s.CostVsOracleCost), c.cost, deref(c.gap), deref(c.ratio))
		}
	}
	// Without an oracle-cost there is no cost gap.
	var rows []Row
	for _, r := range costRows() {
		if r.Policy != OracleCostName {
			rows = append(rows, r)
		}
	}
	if s := Compute(rows, 0.5).Policies["x"].ByChain["1"]; s.GapToOracleCostH != nil || s.CostVsOracleCost != nil {
		t.Errorf("cost gap without oracle-cost: %+v", s)
	}
	// λ = 2 weighs overlap more.
	if s := Compute(costRows(), 2).Policies["x"].ByChain["1"]; s.MeanCostH != (4+1)/2.0 {
		t.Errorf("λ=2: cost %v", s.MeanCostH)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestCompute_JSONShape: per chain size first, by load inside each, the
// pooled summary only under "pooled", λ and the frontier stated.
func TestCompute_JSONShape(t *testing.T) {
	b, err := json.Marshal(Compute(costRows(), 0.5))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Lambda   *float64 `json:"lambda"`
		Policies map[string]map[string]json.RawMessage
		Frontier map[string]map[string]map[string]*FrontierPoint
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Lambda == nil || *doc.Lambda != 0.5 {
		t.Errorf("lambda: %s", b)
	}
	for name, p := range doc.Policies {
		var keys []string
		for k := range p {
			keys = append(keys, k)
		}
		if len(p) != 2 || p["by_chain_nodes"] == nil || p["pooled"] == nil {
			t.Errorf("%s: keys %v, want by_chain_nodes and pooled only", name, keys)
		}
		var chains map[string]map[string]json.RawMessage
		if err := json.Unmarshal(p["by_chain_nodes"], &chains); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"by_load", "mean_cost_h", "interruption_reduction", "mean_overlap_h", "zero_interruption_share"} {
			if chains["1"][k] == nil {
				t.Errorf("%s: by_chain_nodes[1] lacks %s", name, k)
			}
		}
	}
	if _, ok := doc.Frontier["x"]["8"]["0.5"]; !ok {
		t.Errorf("frontier: %s", b)
	}
}

// TestFrontier: a family swept over θ, a family of one and budgets no
// variant meets.
func TestFrontier(t *testing.T) {
	sum := func(red, ovl float64) ChainMetrics {
		return ChainMetrics{Summary: Summary{Windows: 3, InterruptionReduction: red, MeanOverlapH: ovl, MeanCostH: ovl}}
	}
	pm := func(byChain map[string]ChainMetrics) PolicyMetrics { return PolicyMetrics{ByChain: byChain} }
	got := Frontier(map[string]PolicyMetrics{
		"forest:m@θ=0.25": pm(map[string]ChainMetrics{"1": sum(0.3, 0.4), "8": sum(0.1, 0.6)}),
		"forest:m@θ=0.5":  pm(map[string]ChainMetrics{"1": sum(0.5, 0.9), "8": sum(0.2, 1.5)}),
		"forest:m@θ=1":    pm(map[string]ChainMetrics{"1": sum(0.7, 2.5), "8": sum(0.2, 1.2)}),
		"forest:m@θ=2":    pm(map[string]ChainMetrics{"1": sum(0.6, 1.9), "8": sum(0.2, 1.2)}),
		"reactive":        pm(map[string]ChainMetrics{"1": sum(0, 0), "8": sum(0, 0)}),
		"immediate":       pm(map[string]ChainMetrics{"1": sum(0.9, 5), "8": {}}),
	})
	p := func(name string, red, ovl float64) *FrontierPoint {
		return &FrontierPoint{Policy: name, InterruptionReduction: red, MeanOverlapH: ovl, MeanCostH: ovl}
	}
	want := FrontierTable{
		"forest:m": {
			"1": {"0.5": p("forest:m@θ=0.25", 0.3, 0.4), "1": p("forest:m@θ=0.5", 0.5, 0.9), "2": p("forest:m@θ=2", 0.6, 1.9)},
			// θ=0.5, 1 and 2 tie on reduction in 2 h: the least overlap,
			// then the first name.
			"8": {"0.5": nil, "1": p("forest:m@θ=0.25", 0.1, 0.6), "2": p("forest:m@θ=1", 0.2, 1.2)},
		},
		"reactive":  {"1": {"0.5": p("reactive", 0, 0), "1": p("reactive", 0, 0), "2": p("reactive", 0, 0)}, "8": {"0.5": p("reactive", 0, 0), "1": p("reactive", 0, 0), "2": p("reactive", 0, 0)}},
		"immediate": {"1": {"0.5": nil, "1": nil, "2": nil}, "8": {"0.5": nil, "1": nil, "2": nil}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatal(d)
	}
	b, _ := json.Marshal(got["immediate"]["1"])
	if string(b) != `{"0.5":null,"1":null,"2":null}` {
		t.Errorf("budgets no variant meets: %s", b)
	}
}

func TestSweepMargins(t *testing.T) {
	ps := SweepMargins([]Policy{Reactive{}, SlurmEstimate{}, Oracle{}}, []int64{0, 900, 3600})
	var names []string
	for _, p := range ps {
		names = append(names, p.Name())
	}
	want := []string{"reactive", "slurm-estimate@margin=0", "slurm-estimate@margin=0.25", "slurm-estimate@margin=1", "oracle"}
	if !cmp.Equal(names, want) {
		t.Fatalf("names %v, want %v", names, want)
	}
	if m := ps[2].(sweptSlurmEstimate).MarginSec; m != 900 {
		t.Errorf("margin %d", m)
	}
	if got := SweepMargins([]Policy{SlurmEstimate{}}, []int64{60}); got[0].Name() != "slurm-estimate" || got[0].(SlurmEstimate).MarginSec != 60 {
		t.Errorf("one margin: %s %+v", got[0].Name(), got[0])
	}
}

func TestParsePolicies_OracleCost(t *testing.T) {
	ps, err := ParsePolicies("oracle,oracle-cost", nil, 0)
	if err != nil || len(ps) != 2 || ps[1].Name() != OracleCostName {
		t.Fatalf("%v %v", ps, err)
	}
}

// TestReplay_OracleCostNeverBeaten: in every window no policy's outcome
// costs less than the cost-optimal oracle's, and a policy that submits at
// the same time as it gets the same outcome.
func TestReplay_OracleCostNeverBeaten(t *testing.T) {
	res := replay(t, sim.WindowCold, 2)
	n := len(res.Policies)
	for u := 0; u < len(res.Rows); u += n {
		unit := res.Rows[u : u+n]
		var oc Row
		for _, r := range unit {
			if r.Policy == OracleCostName {
				oc = r
			}
		}
		for _, r := range unit {
			if CostH(r.RSec, DefaultLambda) < CostH(oc.RSec, DefaultLambda) {
				t.Errorf("window %d (%d nodes): %s r=%d costs less than oracle-cost's r=%d", r.Window, r.ChainNodes, r.Policy, r.RSec, oc.RSec)
			}
			if CostH(r.RSec, DefaultLambda) == CostH(oc.RSec, DefaultLambda) && r.Submit < oc.Submit {
				t.Errorf("window %d: %s reaches oracle-cost's cost earlier (%d < %d)", r.Window, r.Policy, r.Submit, oc.Submit)
			}
		}
	}
}

func TestReplay_BadLambda(t *testing.T) {
	for _, l := range []float64{-0.5, math.NaN(), math.Inf(1)} {
		o := testOptions(sim.WindowCold, 1)
		o.Lambda = l
		if _, err := Replay(context.Background(), busyJobs(10, 8, 1), allPolicies(), o); err == nil {
			t.Errorf("λ %v: no error", l)
		}
	}
}

// TestReadCSV_Old: a windows.csv written before cost_h still reads;
// one whose leading columns differ does not.
func TestReadCSV_Old(t *testing.T) {
	rows := costRows()
	var buf bytes.Buffer
	if err := WriteCSV(&buf, rows, 0.5); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if !strings.HasSuffix(lines[0], ",cost_h") || !strings.HasSuffix(lines[2], ",2.0000") { // oracle, 4 h overlap
		t.Fatalf("windows.csv: %s\n%s", lines[0], lines[2])
	}
	var old strings.Builder
	for _, l := range lines {
		old.WriteString(l[:strings.LastIndex(l, ",")] + "\n")
	}
	got, err := ReadCSV(strings.NewReader(old.String()))
	if err != nil || !cmp.Equal(got, rows) {
		t.Fatalf("old windows.csv: %v\n%v", err, cmp.Diff(rows, got))
	}
	if _, err := ReadCSV(strings.NewReader("a,b\n1,2\n")); err == nil {
		t.Error("a foreign CSV read")
	}
}

func TestParsePolicies_OracleCostLambda(t *testing.T) {
	ps, err := ParsePolicies("oracle-cost@λ=0.25,oracle-cost", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ps[0].Name() != "oracle-cost@λ=0.25" || *ps[0].(OracleCost).Lambda != 0.25 || ps[1].Name() != OracleCostName {
		t.Fatalf("%s %s", ps[0].Name(), ps[1].Name())
	}
	for _, bad := range []string{"oracle-cost@λ=-1", "oracle-cost@λ=x", "oracle-cost@λ=Inf", "oracle-cost@λ=NaN", "oracle-cost@λ="} {
		if _, err := ParsePolicies(bad, nil, 0); !errors.Is(err, ErrPolicy) || !strings.Contains(err.Error(), bad) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func TestSweepModels_OracleCost(t *testing.T) {
	l := 0.5
	ps := SweepModels([]Policy{Reactive{}, OracleCost{}, OracleCost{Lambda: &l}})
	var names []string
	for _, p := range ps {
		names = append(names, p.Name())
	}
	want := []string{"reactive", "oracle-cost"}
	for _, v := range SweepLambdas {
		if v != l { // given already
			want = append(want, "oracle-cost@λ="+strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	want = append(want, "oracle-cost@λ=0.5")
	if !cmp.Equal(names, want) {
		t.Fatalf("names %v\nwant %v", names, want)
	}
}

// TestReplay_OracleCostLambda: oracle-cost@λ=V chooses what oracle-cost
// chooses under Options.Lambda = V, and along the sweep (the hindsight
// frontier) a larger λ never gives more mean overlap nor less
// interruption, in every window.
func TestReplay_OracleCostLambda(t *testing.T) {
	jobs := busyJobs(700, 8, 1)
	var ps []Policy
	for _, v := range SweepLambdas {
		v := v
		ps = append(ps, OracleCost{Lambda: &v})
	}
	o := testOptions(sim.WindowCold, 2)
	res, err := Replay(context.Background(), jobs, append([]Policy{OracleCost{}}, ps...), o)
	if err != nil {
		t.Fatal(err)
	}
	n := len(res.Policies)
	varied := false
	for u := 0; u < len(res.Rows); u += n {
		unit := res.Rows[u : u+n]
		for i := 2; i < n; i++ {
			a, b := unit[i-1], unit[i]
			if OverlapH(b.RSec) > OverlapH(a.RSec) || InterruptionH(b.RSec) < InterruptionH(a.RSec) {
				t.Errorf("window %d: %s r %d, then %s r %d", a.Window, a.Policy, a.RSec, b.Policy, b.RSec)
			}
			varied = varied || a.RSec != b.RSec
		}
	}
	if !varied {
		t.Error("every λ chose the same outcome in every window: the test cannot tell them apart")
	}
	for _, v := range []float64{0.1, 2} {
		o.Lambda = v
		ref, err := Replay(context.Background(), jobs, []Policy{OracleCost{}}, o)
		if err != nil {
			t.Fatal(err)
		}
		name := OracleCost{Lambda: &v}.Name()
		k := 0
		for _, r := range res.Rows {
			if r.Policy != name {
				continue
			}
			w := ref.Rows[k]
			k++
			if w.Window != r.Window || w.ChainNodes != r.ChainNodes || w.Submit != r.Submit || w.RSec != r.RSec {
				t.Errorf("%s window %d: submit %d r %d; oracle-cost with λ %v: submit %d r %d", name, r.Window, r.Submit, r.RSec, v, w.Submit, w.RSec)
			}
		}
		if k != len(ref.Rows) {
			t.Errorf("%s: %d rows, want %d", name, k, len(ref.Rows))
		}
	}
}
