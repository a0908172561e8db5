//go:build cgo && !noxgboost

package train

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mirage-hpc/mirage/features"
)

// stopPair returns samples of two kinds of window, told apart by the
// feature heavy: both cross the cliff between the second and the third
// decision (r ≤ 0, then r > 0), so P(r > 0) and P(r > 0 at the next
// decision) are the same for both, but waiting past the second decision
// costs a heavy window a 5 h interruption and a light one 5 minutes.
func stopPair(n int) *features.Samples {
	heavy := []int64{-3600, -1800, 5 * 3600, 5*3600 + 600}
	light := []int64{-3600, -1800, 300, 360}
	s := &features.Samples{Names: []string{"heavy", "step"}, Features: make([][]float64, 2)}
	for w := range 2 * n {
		r, hv := light, 0.0
		if w%2 == 1 {
			r, hv = heavy, 1
		}
		for k, v := range r {
			s.WindowID = append(s.WindowID, int32(w))
			s.WindowStart = append(s.WindowStart, int64(w)*86400)
			s.ChainNodes = append(s.ChainNodes, 1)
			s.ProbeTime = append(s.ProbeTime, int64(w)*86400+int64(k)*600)
			s.LabelRSec = append(s.LabelRSec, v)
			s.LabelWaitSec = append(s.LabelWaitSec, 0)
			s.Features[0] = append(s.Features[0], hv)
			s.Features[1] = append(s.Features[1], float64(k))
		}
	}
	return s
}

// TestTargetStop_RanksByInterruption trains the stopping target on a
// hand-built pair of windows that the probability targets cannot tell
// apart and checks that it ranks them by interruption size: the heavy
// window's stop score before the cliff is the larger, and at the default
// λ (and at the operating point chosen by CV) the heavy window is
// submitted earlier than the light one.
func TestTargetStop_RanksByInterruption(t *testing.T) {
	s := stopPair(30)
	for _, tg := range []Target{TargetInterrupt, TargetCliff} {
		y, err := tg.labels(s)
		if err != nil {
			t.Fatal(err)
		}
		for k := range 4 {
			if y[k] != y[4+k] {
				t.Fatalf("%s labels differ between the windows at decision %d: the pair does not isolate the magnitude", tg, k)
			}
		}
	}
	meta := SamplesMeta{SchemaVersion: features.FeatureSchemaVersion, Protocol: "test",
		Features: []features.Feature{{Name: "heavy", Unit: "1"}, {Name: "step", Unit: "1"}}, Options: []byte(`{"warmup": 0, "workload": 0}`)}
	p := DefaultParams(KindXGBoost)
	p.Rounds, p.Threads = 50, 1
	dir := filepath.Join(t.TempDir(), "stop")
	m, err := Run(context.Background(), s, meta, dir, Options{Params: p, Target: TargetStop, K: 3, OverlapBudgetH: 0.5, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	pred, err := a.Predict(s, features.FeatureSchemaVersion)
	if err != nil {
		t.Fatal(err)
	}
	lightRows, heavyRows := pred[0:4], pred[4:8]
	if !(heavyRows[1] > lightRows[1]+1) {
		t.Errorf("stop score before the cliff: heavy %v, light %v; want the heavy window's larger", heavyRows[1], lightRows[1])
	}
	first := func(rows []float32, lambda float64) int {
		for k, v := range rows {
			if float64(v) >= lambda {
				return k
			}
		}
		return len(rows) - 1
	}
	for _, lambda := range []float64{DefaultStopLambda, m.OperatingPoint.For(1).Value} {
		if h, l := first(heavyRows, lambda), first(lightRows, lambda); h >= l || h > 1 {
			t.Errorf("λ = %v: heavy window submitted at decision %d, light at %d; want the heavy one before its cliff and earlier (scores heavy %v, light %v)",
				lambda, h, l, heavyRows, lightRows)
		}
	}
	if m.OperatingPoint.Param != "lambda" || m.Target != string(TargetStop) {
		t.Errorf("manifest target %s param %s", m.Target, m.OperatingPoint.Param)
	}
}
