package dqn

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/simtest"
)

const day0 = 1667260800 // 2022-11-01T00:00:00Z

// busyJobs is simtest.BusyJobs from day0.
func busyJobs(n, days int, seed uint64) []sim.Job { return simtest.BusyJobs(n, days, seed, day0) }

func testEnv(t testing.TB) *Env {
	t.Helper()
	cfg := sim.DefaultConfig()
	cfg.Nodes = 8
	o := features.DefaultOptions()
	o.Config, o.Mode = cfg, sim.WindowCold
	o.Start, o.Windows, o.IntervalSec = day0+86400, 12, 12*3600
	o.WarmupSec, o.WorkloadSec = 12*3600, 86400
	o.ChainLimitSec = 6 * 3600
	o.ChainNodes = []int{1, 4}
	e, err := NewEnv(busyJobs(400, 5, 1), o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func testConfig() Config {
	c := DefaultConfig()
	c.Hidden = []int{16, 16}
	c.Episodes, c.StatsEps = 6, 2
	c.BatchSize, c.LearnStart, c.TargetSync = 8, 16, 10
	c.EpsSteps = 100
	c.DecisionSec = 1800
	c.ValidShare, c.ValidBlocks, c.ValidEpisodes, c.ValidEvery, c.Patience = 0.3, 1, 1, 3, 5
	return c
}

func TestTrain_Deterministic(t *testing.T) {
	ctx := context.Background()
	a, err := Train(ctx, testEnv(t), testConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Train(ctx, testEnv(t), testConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.GradSteps == 0 || len(a.Curve) != 6 {
		t.Fatalf("%d gradient steps, %d episodes", a.GradSteps, len(a.Curve))
	}
	for k, p := range a.Net.Params() {
		if !slices.Equal(p, b.Net.Params()[k]) {
			t.Fatalf("param %d differs between runs with the same seed", k)
		}
	}
	var ca, cb bytes.Buffer
	if err := WriteCurveCSV(&ca, a.Curve); err != nil {
		t.Fatal(err)
	}
	WriteCurveCSV(&cb, b.Curve)
	if !bytes.Equal(ca.Bytes(), cb.Bytes()) {
		t.Fatalf("curves differ:\n%s\n%s", ca.String(), cb.String())
	}
	for _, c := range a.Curve {
		if c.Return > 0 || c.Return != Reward(c.RSec, 0.5) {
			t.Errorf("episode %d: return %g for r %d s", c.Episode, c.Return, c.RSec)
		}
	}

	// Artifact round trip.
	dir := t.TempDir()
	m := &Manifest{Features: features.Schema(), FeatureSchemaVersion: features.FeatureSchemaVersion,
		Standardisation: a.Stats, Config: testConfig(), Seed: 1, Training: Summarise(a)}
	if err := WriteArtifact(dir, a.Net, ca.Bytes(), m); err != nil {
		t.Fatal(err)
	}
	mod, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := mod.Check(features.Names(), features.FeatureSchemaVersion); err != nil {
		t.Fatal(err)
	}
	x := make([]float64, features.NumFeatures())
	r := rand.New(rand.NewPCG(9, 9))
	for range 5 {
		for i := range x {
			x[i] = a.Stats.Mean[i] + a.Stats.Std[i]*r.NormFloat64()
		}
		got, want := mod.Q(nil, x), a.Net.Forward(nil, a.Stats.Apply(nil, x))
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-3*math.Max(1, math.Abs(want[i])) {
				t.Fatalf("Q %v after round trip, %v before", got, want)
			}
		}
	}
	// A changed weights file fails the digest check.
	wf := filepath.Join(dir, WeightsFile)
	wb, _ := os.ReadFile(wf)
	wb[len(wb)-1] ^= 1
	os.WriteFile(wf, wb, 0o644)
	if _, err := Open(dir); !errors.Is(err, ErrDigest) {
		t.Fatalf("Open of a changed file: %v", err)
	}
}

func TestEnv_WaitUntilForced(t *testing.T) {
	ctx := context.Background()
	e := testEnv(t)
	e.DecisionSec = 1800
	raw := make([]float64, features.NumFeatures())
	first, _ := e.Span()
	if err := e.Reset(ctx, first, 1, raw); err != nil {
		t.Fatal(err)
	}
	steps := 0
	for {
		steps++
		r, done, err := e.Step(ctx, ActionWait, raw)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			if r != Reward(e.RSec(), 0.5) || e.RSec() < 0 {
				t.Fatalf("reactive: reward %g, r %d s", r, e.RSec())
			}
			break
		}
		if r != 0 {
			t.Fatalf("non-terminal reward %g", r)
		}
	}
	if steps != len(e.grid) {
		t.Fatalf("%d steps on a grid of %d", steps, len(e.grid))
	}
}

func TestSafetensors_RoundTrip(t *testing.T) {
	ts := []Tensor{
		{Name: "a", Shape: []int{2, 3}, Data: []float32{1, 2, 3, 4, 5, float32(math.Inf(-1))}},
		{Name: "b", Shape: []int{1}, Data: []float32{-0.5}},
		{Name: "c", Shape: []int{}, Data: []float32{7}},
	}
	b, err := EncodeSafetensors(ts, map[string]string{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	if hl := int(b[0]) | int(b[1])<<8; (8+hl)%8 != 0 || b[8] != '{' {
		t.Fatalf("header length %d", hl)
	}
	got, meta, err := DecodeSafetensors(b)
	if err != nil {
		t.Fatal(err)
	}
	if meta["k"] != "v" || len(got) != len(ts) {
		t.Fatalf("meta %v, %d tensors", meta, len(got))
	}
	for i := range ts {
		if got[i].Name != ts[i].Name || !slices.Equal(got[i].Shape, ts[i].Shape) || !slices.Equal(got[i].Data, ts[i].Data) {
			t.Fatalf("tensor %d: %+v, want %+v", i, got[i], ts[i])
		}
	}
	for _, bad := range [][]byte{nil, b[:10], append([]byte{0xff, 0xff, 0, 0, 0, 0, 0, 0}, b[8:]...), b[:len(b)-4]} {
		if _, _, err := DecodeSafetensors(bad); !errors.Is(err, ErrSafetensors) {
			t.Errorf("%d bytes: err %v", len(bad), err)
		}
	}
}

func BenchmarkEnvDecisions(b *testing.B) {
	ctx := context.Background()
	e := testEnv(b)
	raw := make([]float64, features.NumFeatures())
	first, _ := e.Span()
	n := 0
	for b.Loop() {
		if err := e.Reset(ctx, first, 1, raw); err != nil {
			b.Fatal(err)
		}
		for {
			n++
			_, done, err := e.Step(ctx, ActionWait, raw)
			if err != nil {
				b.Fatal(err)
			}
			if done {
				break
			}
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "decisions/s")
}

func BenchmarkGradStep(b *testing.B) {
	a, err := NewAgent([]int{features.NumFeatures(), 128, 128, 2}, 1, 1e-3)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	buf := NewReplay(1000)
	for range 1000 {
		s, s2 := make([]float64, features.NumFeatures()), make([]float64, features.NumFeatures())
		for i := range s {
			s[i], s2[i] = r.NormFloat64(), r.NormFloat64()
		}
		buf.Add(Transition{S: s, A: r.IntN(2), R: -r.Float64(), S2: s2, Done: r.IntN(10) == 0})
	}
	var batch []Transition
	for b.Loop() {
		batch = buf.Sample(batch[:0], 64, r)
		a.Update(batch)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}

// TestEnv_SubmitOutcomeIsolated: asking for submit's outcome at every
// decision (a fork) leaves the episode exactly as it was: same states,
// same terminal reward; and the outcome equals what Step(submit) gives.
func TestEnv_SubmitOutcomeIsolated(t *testing.T) {
	ctx := context.Background()
	e := testEnv(t)
	first, _ := e.Span()
	run := func(probe bool) (states [][]float64, outcomes []float64, final float64) {
		raw := make([]float64, features.NumFeatures())
		if err := e.Reset(ctx, first, 4, raw); err != nil {
			t.Fatal(err)
		}
		for {
			states = append(states, slices.Clone(raw))
			if probe && !e.Last() {
				r, _, err := e.SubmitOutcome(ctx)
				if err != nil {
					t.Fatal(err)
				}
				outcomes = append(outcomes, r)
			}
			r, done, err := e.Step(ctx, ActionWait, raw)
			if err != nil {
				t.Fatal(err)
			}
			if done {
				return states, outcomes, r
			}
		}
	}
	s0, _, f0 := run(false)
	s1, outs, f1 := run(true)
	if f0 != f1 || len(s0) != len(s1) {
		t.Fatalf("probing changed the episode: final %v vs %v, %d vs %d decisions", f0, f1, len(s0), len(s1))
	}
	for k := range s0 {
		for j := range s0[k] {
			if s0[k][j] != s1[k][j] && !(math.IsNaN(s0[k][j]) && math.IsNaN(s1[k][j])) {
				t.Fatalf("decision %d feature %d: %v without probing, %v with", k, j, s0[k][j], s1[k][j])
			}
		}
	}
	// Submitting for real at decision k gives the probed outcome.
	raw := make([]float64, features.NumFeatures())
	for _, k := range []int{0, len(outs) / 2, len(outs) - 1} {
		if err := e.Reset(ctx, first, 4, raw); err != nil {
			t.Fatal(err)
		}
		for range k {
			if _, _, err := e.Step(ctx, ActionWait, raw); err != nil {
				t.Fatal(err)
			}
		}
		r, done, err := e.Step(ctx, ActionSubmit, raw)
		if err != nil || !done || r != outs[k] {
			t.Errorf("submit at decision %d: reward %v done %v err %v, probe said %v", k, r, done, err, outs[k])
		}
	}
}

// TestBounds: the oracle is never worse than reactive, and no policy beats
// the oracle on the same windows.
func TestBounds(t *testing.T) {
	ctx := context.Background()
	e := testEnv(t)
	first, last := e.Span()
	starts := []int64{first, last}
	reactive, oracle, err := Bounds(ctx, e, starts)
	if err != nil {
		t.Fatal(err)
	}
	if oracle < reactive || oracle > 0 {
		t.Fatalf("reactive %v, oracle %v", reactive, oracle)
	}
	for seed := range uint64(5) {
		net, err := NewMLP([]int{features.NumFeatures(), 8, 2}, seed)
		if err != nil {
			t.Fatal(err)
		}
		st := NewStats(nil, features.NumFeatures())
		v, err := Validate(ctx, e, net, st, starts)
		if err != nil {
			t.Fatal(err)
		}
		if v > oracle+1e-9 {
			t.Errorf("seed %d: policy return %v beats the oracle %v", seed, v, oracle)
		}
	}
}

func TestStats_Clip(t *testing.T) {
	s := Stats{Mean: []float64{0, 10}, Std: []float64{1, 2}, Clip: 3}
	got := s.Apply(nil, []float64{100, 4})
	if got[0] != 3 || got[1] != -3 {
		t.Fatalf("got %v, want [3 -3]", got)
	}
	s.Clip = 0
	if got := s.Apply(nil, []float64{100, math.NaN()}); got[0] != 100 || got[1] != 0 {
		t.Fatalf("no clip: got %v, want [100 0]", got)
	}
}

// TestHeldOut: the held-out starts are spread over ValidBlocks segments,
// the last at the period's end, and every start outside the excluded
// intervals is more than the workload span away from every held-out start
// (no trace job in both a training and a held-out window).
func TestHeldOut(t *testing.T) {
	const day = 86400
	first, last := int64(1_664_000_000), int64(1_664_000_000+120*day)
	for _, c := range []struct {
		share  float64
		blocks int
		n      int
	}{{0.1, 1, 24}, {0.1, 2, 24}, {0.2, 4, 33}, {0.05, 3, 7}} {
		cfg := DefaultConfig()
		cfg.ValidShare, cfg.ValidBlocks, cfg.ValidEpisodes = c.share, c.blocks, c.n
		w := int64(5 * day)
		starts, excl := heldOut(first, last, cfg, w)
		if len(starts) != c.n || len(excl) != c.blocks {
			t.Fatalf("%+v: %d starts, %d intervals", c, len(starts), len(excl))
		}
		if !slices.IsSorted(starts) || starts[0] < first || starts[len(starts)-1] > last {
			t.Errorf("%+v: starts %v outside [%d, %d] or unsorted", c, starts, first, last)
		}
		if excl[len(excl)-1][1] < last {
			t.Errorf("%+v: the last segment does not reach the period's end", c)
		}
		perBlock := map[int]int{}
		for _, v := range starts {
			for i, iv := range excl {
				if v >= iv[0]+w && v <= iv[1]-w {
					perBlock[i]++
				}
			}
		}
		for i := range c.blocks {
			if perBlock[i] < c.n/c.blocks {
				t.Errorf("%+v: segment %d holds %d starts, want >= %d", c, i, perBlock[i], c.n/c.blocks)
			}
		}
		trained := 0
		for s := first; s <= last; s += 600 {
			if slices.ContainsFunc(excl, func(iv [2]int64) bool { return s >= iv[0] && s <= iv[1] }) {
				continue
			}
			trained++
			for _, v := range starts {
				if d := max(s-v, v-s); d <= w {
					t.Fatalf("%+v: training start %d is %d s from held-out start %d (workload %d)", c, s, d, v, w)
				}
			}
		}
		if trained == 0 {
			t.Errorf("%+v: no training starts", c)
		}
	}
	if s, e := heldOut(first, last, Config{}, day); s != nil || e != nil {
		t.Errorf("no validation: %v %v", s, e)
	}
}

// TestDecodeSafetensors_Strict: the decoder holds files to the format
// (exact keys, two data offsets, data covering the buffer with no gap,
// overlap or trailing bytes), and orders tensors with no values before
// the tensor that starts where they do, then by name, so that a decoded
// file re-encodes to the same order (a fuzz-found case: an empty tensor
// and its neighbour at one offset came back swapped).
func TestDecodeSafetensors_Strict(t *testing.T) {
	file := func(header string, data int) []byte {
		b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
		return append(append(b, header...), make([]byte, data)...)
	}
	for _, c := range []struct {
		name, header string
		data         int
	}{
		{"key case", `{"a":{"dtYpe":"F32","shape":[1],"data_offsets":[0,4]}}`, 4},
		{"no offsets", `{"a":{"dtype":"F32","shape":[0]}}`, 0},
		{"unknown key", `{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1}}`, 4},
		{"three offsets", `{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4,8]}}`, 8},
		{"gap", `{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, 8},
		{"overlap", `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, 8},
		{"trailing bytes", `{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, 12},
		{"huge shape", `{"a":{"dtype":"F32","shape":[4294967296,4294967296,4],"data_offsets":[0,4]}}`, 4},
	} {
		if _, _, err := DecodeSafetensors(file(c.header, c.data)); !errors.Is(err, ErrSafetensors) {
			t.Errorf("%s: err %v, want ErrSafetensors", c.name, err)
		}
	}
	ts := []Tensor{{Name: "z", Shape: []int{2, 0}}, {Name: "a", Shape: []int{0}}, {Name: "m", Shape: []int{1}, Data: []float32{3}}, {Name: "e", Shape: []int{3, 0}}}
	b, err := EncodeSafetensors(ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := DecodeSafetensors(b)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range got {
		names = append(names, g.Name)
	}
	if want := []string{"a", "z", "m", "e"}; !slices.Equal(names, want) {
		t.Fatalf("order %v, want %v", names, want)
	}
	again, _ := EncodeSafetensors(got, nil)
	if got2, _, _ := DecodeSafetensors(again); len(got2) != 4 || got2[0].Name != "a" || got2[1].Name != "z" || got2[3].Name != "e" {
		t.Fatalf("round trip changed the order: %v", got2)
	}
}
