//go:build cgo && !noxgboost

package train

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/train/xgbjson"
	"github.com/mirage-hpc/mirage/train/xgboost"
)

// benchRows and benchFeatures size the fixed synthetic benchmark set,
// about the size of the mirage-ls6 samples (9576 rows, 79 features).
const (
	benchRows     = 10000
	benchFeatures = 80
)

var benchData = sync.OnceValue(func() *Data {
	r := rand.New(rand.NewPCG(7, 7))
	d := &Data{Y: make([]float64, benchRows)}
	for f := range benchFeatures {
		d.Names = append(d.Names, "f"+formatFloat(float64(f)))
		col := make([]float64, benchRows)
		for i := range col {
			col[i] = r.NormFloat64()
			if r.IntN(50) == 0 {
				col[i] = math.NaN()
			}
		}
		d.Cols = append(d.Cols, col)
	}
	for i := range d.Y {
		a, b := d.Cols[0][i], d.Cols[1][i]
		if math.IsNaN(a) {
			a = 0
		}
		if math.IsNaN(b) {
			b = 0
		}
		d.Y[i] = 3*a - 20 + 2*math.Max(b, 0) + r.NormFloat64()
	}
	return d
})

func benchIdx() []int {
	idx := make([]int, benchRows)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// benchParams are each kind's defaults; boosted trees run a fixed 300
// rounds (no early stopping) so the time is comparable across runs.
func benchParams(k Kind) Params {
	p := DefaultParams(k)
	if k == KindXGBoost {
		p.Rounds, p.EarlyStopping = 300, 0
	}
	return p
}

// BenchmarkTrain reports the seconds to fit each model on 10k rows x 80
// features with libxgboost's default threads.
func BenchmarkTrain(b *testing.B) {
	d, idx := benchData(), benchIdx()
	for _, k := range []Kind{KindForest, KindXGBoost} {
		b.Run(k.String(), func(b *testing.B) {
			p := benchParams(k)
			began := time.Now()
			for b.Loop() {
				f, err := Fit(context.Background(), d, idx, nil, p)
				if err != nil {
					b.Fatal(err)
				}
				f.Booster.Close()
			}
			b.ReportMetric(time.Since(began).Seconds()/float64(b.N), "s/train")
		})
	}
}

// BenchmarkPredict reports rows/s of the pure-Go evaluator (one
// goroutine) and of libxgboost (its default threads, DMatrix creation
// included) on the same boosted model.
func BenchmarkPredict(b *testing.B) {
	d, idx := benchData(), benchIdx()
	for _, k := range []Kind{KindForest, KindXGBoost} {
		p := benchParams(k)
		f, err := Fit(context.Background(), d, idx, nil, p)
		if err != nil {
			b.Fatal(err)
		}
		js, err := f.Booster.Save(xgboost.FormatJSON)
		if err != nil {
			b.Fatal(err)
		}
		m, err := xgbjson.Parse(js)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(k.String()+"/purego", func(b *testing.B) {
			out := make([]float32, benchRows)
			began := time.Now()
			for b.Loop() {
				out = m.PredictColumns(out, d.Cols)
			}
			b.ReportMetric(float64(benchRows*b.N)/time.Since(began).Seconds(), "rows/s")
		})
		b.Run(k.String()+"/libxgboost", func(b *testing.B) {
			began := time.Now()
			for b.Loop() {
				if _, err := f.Predict(d, idx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(benchRows*b.N)/time.Since(began).Seconds(), "rows/s")
		})
		f.Booster.Close()
	}
}
