package dqn

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/mirage-hpc/mirage/internal/golden"
)

// TestTrain_Golden pins what Train computes (testdata/train.golden): for
// the stopping target (with early stopping), Double DQN with an averaged
// net and weight decay, and Double DQN without all-action transitions or
// standardisation episodes, the curve, the counts, the held-out bounds and
// digests of the standardisation and of the returned net's float64
// parameters. A change of Train that should not change its results (a
// refactoring) must leave the file as it is. amd64 only: other
// architectures may fuse multiply-adds, which changes the last bits.
func TestTrain_Golden(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("results pinned on amd64, not %s (fused multiply-adds change the last bits)", runtime.GOARCH)
	}
	stopping := testConfig()
	stopping.Episodes, stopping.Patience = 12, 2
	double := testConfig()
	double.Target, double.Average, double.WeightDecay, double.TargetSync = "double", 0.1, 0.01, 7
	plain := testConfig()
	plain.Target, plain.AllActions, plain.StatsEps, plain.TrainEvery, plain.ValidShare = "double", false, 0, 3, 0
	var out bytes.Buffer
	for _, c := range []struct {
		name string
		cfg  Config
	}{{"stopping", stopping}, {"double-average", double}, {"plain", plain}} {
		res, err := Train(t.Context(), testEnv(t), c.cfg, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		fmt.Fprintf(&out, "# %s\n", c.name)
		fmt.Fprintf(&out, "decisions %d, gradient steps %d, stopped %t, train windows %d, valid starts %v\n",
			res.Decisions, res.GradSteps, res.Stopped, res.TrainWindows, res.ValidStart)
		fmt.Fprintf(&out, "best valid %v, valid reactive %v, valid oracle %v\n", res.BestValid, res.ValidReactive, res.ValidOracle)
		fmt.Fprintf(&out, "stats %x\n", floatsDigest(append(append([]float64{res.Stats.Clip}, res.Stats.Mean...), res.Stats.Std...)))
		var params []float64
		for _, p := range res.Net.Params() {
			params = append(params, p...)
		}
		fmt.Fprintf(&out, "net %v %x\n", res.Net.Sizes, floatsDigest(params))
		if err := WriteCurveCSV(&out, res.Curve); err != nil {
			t.Fatal(err)
		}
	}
	golden.Check(t, "testdata/train.golden", out.Bytes())
}

// floatsDigest is the sha256 of xs' IEEE 754 bits, little-endian.
func floatsDigest(xs []float64) []byte {
	h := sha256.New()
	var b [8]byte
	for _, x := range xs {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
		h.Write(b[:])
	}
	return h.Sum(nil)
}
