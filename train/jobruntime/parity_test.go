package jobruntime

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mirage-hpc/mirage/train/xgbjson"
	"github.com/mirage-hpc/mirage/train/xgboost"
)

// TestParity_PureGo checks that the pure-Go evaluators (xgbjson.ParseMulti
// for softprob, xgbjson.Parse per head) reproduce libxgboost's bin
// probabilities, with missing values.
func TestParity_PureGo(t *testing.T) {
	if !xgboost.Available {
		t.Skip("skipping: libxgboost not linked")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	n, nf := 600, 4
	m := &Matrix{Cols: make([][]float64, nf)}
	for f := range m.Cols {
		m.Cols[f] = make([]float64, n)
	}
	edges := []float64{0, 1e-6, 0.1, 0.5, AtLimitRatio, 1}
	bins := make([]int, n)
	for i := range n {
		for f := range nf {
			m.Cols[f][i] = rng.NormFloat64()
			if rng.IntN(10) == 0 {
				m.Cols[f][i] = math.NaN()
			}
		}
		r := 1 / (1 + math.Exp(-2*m.Cols[0][i]+0.3*rng.NormFloat64()))
		if math.IsNaN(r) {
			r = 0
		}
		bins[i] = binOf(edges, r)
	}
	p := DefaultParams()
	p.Rounds, p.Threads = 12, 1
	for _, a := range Approaches {
		t.Run(a.String(), func(t *testing.T) {
			ft, err := fitApproach(context.Background(), a, m, bins, edges, seq(n), nil, []int{12, 12, 12, 12}, p)
			if err != nil {
				t.Fatal(err)
			}
			defer ft.close()
			want, err := ft.predict(m, seq(n))
			if err != nil {
				t.Fatal(err)
			}
			models, err := ft.save()
			if err != nil {
				t.Fatal(err)
			}
			got := make([]float32, len(want))
			nb := len(edges) - 1
			row := make([]float32, nf)
			cdf := make([]float64, nb-1)
			for i := range n {
				for f := range nf {
					row[f] = float32(m.Cols[f][i])
				}
				dst := got[i*nb : (i+1)*nb]
				if a == ApproachSoftprob {
					mm, err := xgbjson.ParseMulti(models[0])
					if err != nil {
						t.Fatal(err)
					}
					mm.Predict(dst, row)
					continue
				}
				for k, b := range models {
					h, err := xgbjson.Parse(b)
					if err != nil {
						t.Fatal(err)
					}
					cdf[k] = float64(h.Predict(row))
				}
				copy(dst, pmfFromCDF(cdf))
			}
			for i := range want {
				if d := math.Abs(float64(got[i] - want[i])); d > 1e-6 {
					t.Fatalf("row %d bin %d: pure Go %v, libxgboost %v", i/nb, i%nb, got[i], want[i])
				}
			}
		})
	}
}

func TestQuantile_PointMasses(t *testing.T) {
	edges := []float64{0, 1e-6, 0.5, AtLimitRatio, 1}
	tests := []struct {
		Name string
		P    []float32
		Q    float64
		Want float64
	}{
		{"ZeroMass", []float32{0.3, 0.2, 0.2, 0.3}, 0.1, 0},
		{"LimitMass", []float32{0.3, 0.2, 0.2, 0.3}, 0.9, 1},
		{"LogUniformInside", []float32{0, 1, 0, 0}, 0.5, math.Sqrt(1e-6 * 0.5)},
		{"Edge", []float32{0, 0.5, 0.5, 0}, 0.5, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			if got := quantile(edges, tt.P, tt.Q); math.Abs(got-tt.Want) > 1e-9 {
				t.Errorf("quantile(%v, %v) = %v, want %v", tt.P, tt.Q, got, tt.Want)
			}
		})
	}
	// A job that ran 0 s sits on the point mass at 0: it counts as covered
	// at level q by the share of that mass below q.
	lo, hi := cdfAt(edges, []float32{0.3, 0.2, 0.2, 0.3}, 0)
	if lo != 0 || math.Abs(hi-0.3) > 1e-7 || math.Abs(covered(lo, hi, 0.1)-1.0/3) > 1e-6 {
		t.Errorf("cdfAt(0) = %v, %v; covered at 0.1 = %v, want 1/3", lo, hi, covered(lo, hi, 0.1))
	}
}

func TestIsotonic(t *testing.T) {
	c := []float64{0.1, 0.3, 0.2, 0.5, 1.2}
	isotonic(c)
	want := []float64{0.1, 0.25, 0.25, 0.5, 1}
	for i := range c {
		if math.Abs(c[i]-want[i]) > 1e-12 {
			t.Fatalf("isotonic = %v, want %v", c, want)
		}
	}
}
