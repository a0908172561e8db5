package jobruntime

import (
	"bytes"
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/mirage-hpc/mirage/internal/atomicfile"
)

// CalibrationSeries returns the plotted data of the calibration figure:
// one curve per quantile model in met (CV, then validation), the nominal
// level against the observed coverage, in order.
func CalibrationSeries(met *Metrics) (labels []string, curves [][]CoveragePoint) {
	add := func(prefix string, fs []Figures) {
		for _, f := range fs {
			if len(f.Curve) == 0 {
				continue
			}
			labels = append(labels, fmt.Sprintf("%s %s (error %.3f)", prefix, f.Predictor, f.CalibrationError))
			curves = append(curves, f.Curve)
		}
	}
	add("cv", met.CV)
	add("validation", met.Validation)
	return labels, curves
}

// writeCalibrationPlot draws CalibrationSeries with the diagonal as a PNG
// (14 x 12 cm) at path, atomically.
func writeCalibrationPlot(path string, met *Metrics) error {
	p := plot.New()
	p.Title.Text = "Run-time quantiles: nominal level vs observed coverage"
	p.X.Label.Text = "quantile level"
	p.Y.Label.Text = "share of jobs at or below the quantile"
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		return fmt.Errorf("calibration plot: %w", err)
	}
	diag.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(diag)
	p.Legend.Add("ideal", diag)
	labels, curves := CalibrationSeries(met)
	for i, c := range curves {
		xys := make(plotter.XYs, len(c))
		for k, pt := range c {
			xys[k] = plotter.XY{X: pt.Level, Y: pt.Observed}
		}
		l, s, err := plotter.NewLinePoints(xys)
		if err != nil {
			return fmt.Errorf("calibration plot: %w", err)
		}
		l.Color, s.Color = plotutil.Color(i), plotutil.Color(i)
		s.Shape = plotutil.Shape(i)
		p.Add(l, s)
		p.Legend.Add(labels[i], l, s)
	}
	c, err := draw.NewFormattedCanvas(14*vg.Centimeter, 12*vg.Centimeter, "png")
	if err != nil {
		return fmt.Errorf("calibration plot: %w", err)
	}
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return fmt.Errorf("calibration plot: %w", err)
	}
	if err := atomicfile.WriteFile(path, buf.Bytes()); err != nil {
		return fmt.Errorf("calibration plot: %w", err)
	}
	return nil
}
