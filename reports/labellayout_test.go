package reports

import (
	"context"
	"testing"

	"github.com/mirage-hpc/mirage/evaluate"
)

// crowdedFrontier is a frontier whose sweep ends and off-scale points
// fall on one another (θ=0, τ=0.7 and λ=0.2 near the oracle's dot, as
// on the synthetic study), which labels written beside their points
// overlap on.
func crowdedFrontier() Figure {
	f := Figure{Name: FrontierFigure, Title: "crowded", Panels: []Panel{{XLabel: "overlap", YLabel: "interruption", XMax: ptr(4)}}}
	f.Series = append(f.Series,
		Series{Label: "oracle", Kind: "points", X: []float64{0.89}, Y: []float64{0}},
		Series{Label: "forest (sweep)", Kind: "line", Style: 1, X: []float64{0.05, 0.5, 3.7}, Y: []float64{1.33, 1.0, 0.53}, Names: []string{"θ=0", "", "θ=4"}},
		Series{Label: "xgboost (sweep)", Kind: "line", Style: 2, X: []float64{0.08, 0.6, 3.7}, Y: []float64{1.43, 0.9, 0.69}, Names: []string{"θ=0", "", "θ=4"}},
		Series{Label: "xgb-int (sweep)", Kind: "line", Style: 3, X: []float64{0.1, 0.2}, Y: []float64{1.4, 1.38}, Names: []string{"τ=0.7", "τ=0.2"}},
		Series{Label: "oracle-cost (sweep)", Kind: "line", Style: 13, X: []float64{0.2, 0.86}, Y: []float64{0.3, 0.0}, Names: []string{"λ=1", "λ=0.2"}},
		Series{Label: "slurm-est", Kind: "points", Style: 4, X: []float64{4.9}, Y: []float64{0.55}},
		Series{Label: "immediate", Kind: "points", Style: 5, X: []float64{47.6}, Y: []float64{0}},
		Series{Label: "other", Kind: "points", Style: 6, X: []float64{12}, Y: []float64{0.05}},
	)
	return f
}

// TestLabelLayout_NoOverlap: the point labels of a crowded frontier are
// laid out apart, inside the plot, and every one is drawn.
func TestLabelLayout_NoOverlap(t *testing.T) {
	f := crowdedFrontier()
	for _, format := range []string{"svg", "png"} {
		_, layers, err := draw1(&f, format)
		if err != nil {
			t.Fatal(err)
		}
		boxes := layers[0].Placed
		want := 0
		for _, s := range f.Series {
			for _, n := range s.Names {
				if n != "" {
					want++
				}
			}
			for _, x := range s.X {
				if x > 4 {
					want++
				}
			}
		}
		if len(boxes) != want {
			t.Fatalf("%s: %d labels placed, want %d", format, len(boxes), want)
		}
		for i := range boxes {
			for j := i + 1; j < len(boxes); j++ {
				a, b := boxes[i], boxes[j]
				if min(a.Max.X, b.Max.X) > max(a.Min.X, b.Min.X) && min(a.Max.Y, b.Max.Y) > max(a.Min.Y, b.Min.Y) {
					t.Errorf("%s: labels %d %v and %d %v overlap", format, i, a, j, b)
				}
			}
		}
	}
}

// TestRCDF_SharedRange: the signed-r panels share one x range, on the
// asinh scale, however different the load classes' values are.
func TestRCDF_SharedRange(t *testing.T) {
	rows := handRows()
	for i := range rows {
		if rows[i].Window == 2 { // a heavy window far from 0
			switch rows[i].Policy {
			case "reactive":
				rows[i].RSec = 40 * 3600
			case "oracle":
				rows[i].RSec = -30 * 3600
			}
			rows[i].ReactiveRSec = 40 * 3600
		}
	}
	dir := t.TempDir()
	if err := evaluate.WriteDir(dir, evaluate.Compute(rows, evaluate.DefaultLambda), rows); err != nil {
		t.Fatal(err)
	}
	rep, err := build(context.Background(), dir, withDefaults(Options{Resamples: 50}))
	if err != nil {
		t.Fatal(err)
	}
	var f *Figure
	for i := range rep.Figures {
		if rep.Figures[i].Name == RCDFFigure {
			f = &rep.Figures[i]
		}
	}
	if f == nil || len(f.Panels) != 3 {
		t.Fatalf("r CDF figure %+v", f)
	}
	p0 := f.Panels[0]
	if p0.XMin == nil || p0.XMax == nil || *p0.XMin > -24 || !p0.XSymHours {
		t.Fatalf("first panel %+v: want the asinh scale down to the heavy window's −30 h", p0)
	}
	for _, p := range f.Panels[1:] {
		if *p.XMin != *p0.XMin || *p.XMax != *p0.XMax || !p.XSymHours {
			t.Errorf("panel %q: x from %g to %g, the first's from %g to %g", p.Title, *p.XMin, *p.XMax, *p0.XMin, *p0.XMax)
		}
	}
}
