package reports

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// newPlots builds f's plots: one, or with f.Panels one per panel, top
// to bottom, sharing the x range.
func newPlots(f *Figure) ([]*plot.Plot, error) {
	if len(f.Panels) == 0 {
		p, err := newPlot(f.Title, f.XLabel, f.YLabel, f.Series)
		if err != nil {
			return nil, err
		}
		p.Legend.Left = f.LegendLeft
		return []*plot.Plot{p}, nil
	}
	for _, s := range f.Series {
		if s.Panel < 0 || s.Panel >= len(f.Panels) {
			return nil, fmt.Errorf("series %q: panel %d of %d", s.Label, s.Panel, len(f.Panels))
		}
	}
	ps := make([]*plot.Plot, len(f.Panels))
	lo, hi := math.Inf(1), math.Inf(-1)
	for k, yl := range f.Panels {
		var ss []Series
		for _, s := range f.Series {
			if s.Panel == k {
				ss = append(ss, s)
			}
		}
		title, xl := "", ""
		if k == 0 {
			title = f.Title
		}
		if k == len(f.Panels)-1 {
			xl = f.XLabel
		}
		p, err := newPlot(title, xl, yl, ss)
		if err != nil {
			return nil, err
		}
		p.Legend.Left = f.LegendLeft
		lo, hi = min(lo, p.X.Min), max(hi, p.X.Max)
		ps[k] = p
	}
	for _, p := range ps {
		p.X.Min, p.X.Max = lo, hi
		padRange(&p.X)
	}
	return ps, nil
}

// padRange widens an axis whose data is one value by ±1, as gonum/plot
// does, or by a millionth of the value when ±1 would be lost to rounding
// (gonum/plot panics on an empty range).
func padRange(a *plot.Axis) {
	if a.Min == a.Max && !math.IsInf(a.Min, 0) && !math.IsNaN(a.Min) {
		d := max(1, math.Abs(a.Min)*1e-6)
		a.Min, a.Max = a.Min-d, a.Max+d
	}
}

// faint is the colour of Series.Faint points.
var faint = color.NRGBA{R: 110, G: 110, B: 110, A: 70}

// newPlot builds one plot of series.
func newPlot(title, xLabel, yLabel string, series []Series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	var names []string
	nBars := 0
	for _, s := range series {
		if s.Kind == "bars" {
			nBars++
		}
	}
	bar := 0
	for i, s := range series {
		if len(s.Y) != len(s.X) {
			return nil, fmt.Errorf("series %q: %d x and %d y", s.Label, len(s.X), len(s.Y))
		}
		xys := make(plotter.XYs, len(s.X))
		for k := range s.X {
			xys[k] = plotter.XY{X: s.X[k], Y: s.Y[k]}
		}
		switch s.Kind {
		case "curve":
			if len(xys) == 0 {
				continue
			}
			l, err := plotter.NewLine(xys)
			if err != nil {
				return nil, err
			}
			l.Color = plotutil.Color(i)
			l.Width = vg.Points(1.5)
			p.Add(l)
			p.Legend.Add(s.Label, l)
		case "step", "line":
			if len(xys) == 0 {
				continue
			}
			if s.Kind == "step" {
				// Start each CDF at (first x, 0) so the step rises there.
				xys = append(plotter.XYs{{X: xys[0].X, Y: 0}}, xys...)
			}
			l, err := plotter.NewLine(xys)
			if err != nil {
				return nil, err
			}
			l.Color = plotutil.Color(i)
			l.Dashes = plotutil.Dashes(i / 7)
			l.Width = vg.Points(1.5)
			if s.Kind == "step" {
				l.StepStyle = plotter.PostStep
				p.Add(l)
				p.Legend.Add(s.Label, l)
				continue
			}
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, err
			}
			sc.Color = l.Color
			p.Add(l, sc)
			p.Legend.Add(s.Label, l, sc)
			if err := addLabels(p, xys, s.Names); err != nil {
				return nil, err
			}
		case "points":
			if len(xys) == 0 {
				continue
			}
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, err
			}
			sc.Color = plotutil.Color(i)
			sc.Radius = vg.Points(3)
			if s.Faint {
				sc.Color = faint
				sc.Radius = vg.Points(1.2)
				sc.Shape = draw.CircleGlyph{}
			}
			switch s.Label {
			case "oracle":
				sc.Shape = draw.PyramidGlyph{}
				sc.Radius = vg.Points(5)
				sc.Color = plotutil.Color(1)
			case "chosen": // an operating point
				sc.Shape = draw.RingGlyph{}
				sc.Radius = vg.Points(6)
				sc.Color = color.Black
			case "oracle-cost":
				sc.Shape = draw.SquareGlyph{}
				sc.Radius = vg.Points(4)
				sc.Color = plotutil.Color(2)
			}
			p.Add(sc)
			p.Legend.Add(s.Label, sc)
			if err := addLabels(p, xys, s.Names); err != nil {
				return nil, err
			}
		case "bars":
			b, err := plotter.NewBarChart(plotter.Values(s.Y), vg.Points(12))
			if err != nil {
				return nil, err
			}
			b.Color = plotutil.Color(bar)
			b.LineStyle.Width = 0
			b.Offset = vg.Points(12 * (float64(bar) - float64(nBars-1)/2))
			bar++
			p.Add(b)
			p.Legend.Add(s.Label, b)
			names = s.Names
		default:
			return nil, fmt.Errorf("unknown series kind %q", s.Kind)
		}
	}
	if names != nil {
		p.NominalX(names...)
		p.X.Tick.Label.Rotation = 0.5
		p.X.Tick.Label.XAlign = draw.XRight
		p.Y.Min, p.Y.Max = 0, 1.15
	}
	padRange(&p.X)
	padRange(&p.Y)
	return p, nil
}

func addLabels(p *plot.Plot, xys plotter.XYs, names []string) error {
	if len(names) != len(xys) {
		return nil
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: names})
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font.Size = vg.Points(7)
		l.TextStyle[i].XAlign = draw.XLeft
	}
	l.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(2)}
	p.Add(l)
	return nil
}

// encode renders plots (stacked top to bottom, data areas aligned) in
// format ("png", "svg").
func encode(plots []*plot.Plot, wCm, hCm float64, format string) ([]byte, error) {
	w, h := vg.Length(wCm)*vg.Centimeter, vg.Length(hCm)*vg.Centimeter
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return nil, err
	}
	dc := draw.New(c)
	if len(plots) == 1 {
		plots[0].Draw(dc)
	} else {
		rows := make([][]*plot.Plot, len(plots))
		for i, p := range plots {
			rows[i] = []*plot.Plot{p}
		}
		tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: vg.Points(6)}
		for i, cv := range plot.Align(rows, tiles, dc) {
			plots[i].Draw(cv[0])
		}
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// figureHeight is the height (cm) of f drawn at hCm per single-panel
// figure: each panel after the first adds 60%.
func figureHeight(f *Figure, hCm float64) float64 {
	if n := len(f.Panels); n > 1 {
		return hCm * (1 + 0.6*float64(n-1))
	}
	return hCm
}
