package reports

import (
	"bytes"
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// newPlot builds f's plot.
func newPlot(f *Figure) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	var names []string
	nBars := 0
	for _, s := range f.Series {
		if s.Kind == "bars" {
			nBars++
		}
	}
	bar := 0
	for i, s := range f.Series {
		xys := make(plotter.XYs, len(s.X))
		for k := range s.X {
			xys[k] = plotter.XY{X: s.X[k], Y: s.Y[k]}
		}
		switch s.Kind {
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
			if s.Label == "oracle" {
				sc.Shape = draw.PyramidGlyph{}
				sc.Radius = vg.Points(5)
				sc.Color = plotutil.Color(1)
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

// encode renders p in format ("png", "svg").
func encode(p *plot.Plot, wCm, hCm float64, format string) ([]byte, error) {
	wt, err := p.WriterTo(vg.Length(wCm)*vg.Centimeter, vg.Length(hCm)*vg.Centimeter, format)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
