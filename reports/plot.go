package reports

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// okabeIto is the Okabe–Ito colour-blind-safe palette without its yellow
// (too faint on white): black, orange, sky blue, bluish green, blue,
// vermillion, reddish purple.
var okabeIto = []color.NRGBA{
	{0, 0, 0, 255}, {230, 159, 0, 255}, {86, 180, 233, 255}, {0, 158, 115, 255},
	{0, 114, 178, 255}, {213, 94, 0, 255}, {204, 121, 167, 255},
}

// dashes are the line styles cycled with the colours: solid, dashed,
// dotted.
var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(1.5), vg.Points(2.5)}}

// glyphs are the point shapes cycled with the colours.
var glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PlusGlyph{},
	draw.CrossGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}}

// guide is the colour of unlabelled reference lines (r = 0).
var guide = color.NRGBA{R: 120, G: 120, B: 120, A: 255}

// faint is the colour of Series.Faint points.
var faint = color.NRGBA{R: 110, G: 110, B: 110, A: 70}

func styleColor(s int) color.Color  { return okabeIto[s%len(okabeIto)] }
func styleDashes(s int) []vg.Length { return dashes[s%len(dashes)] }
func styleGlyph(s int) draw.GlyphDrawer {
	return glyphs[(s+s/len(okabeIto))%len(glyphs)]
}

// sans is the figures' typeface: Liberation Sans, vendored with gonum.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// Figure geometry: the width a screen shows it at, the height of a row of
// panels and the legend strip at the right, all at 96 CSS pixels per inch;
// PNGs are drawn at 2× for sharp text on high-density screens.
const (
	figureWidth  = 10 * vg.Inch
	rowHeight    = 3.6 * vg.Inch
	legendWidth  = 2.3 * vg.Inch
	pngDPI       = 192
	cssPxPerInch = 96
)

// FigureWidthPx is the width, in CSS pixels, the page shows figures at.
const FigureWidthPx = int(figureWidth / vg.Inch * cssPxPerInch)

// newPlot returns a plot with sans-serif text at screen sizes.
func newPlot(pn Panel) *plot.Plot {
	p := plot.New()
	p.Title.Text = pn.Title
	p.Title.TextStyle.Font = font.From(sans, 10)
	p.X.Label.Text, p.Y.Label.Text = pn.XLabel, pn.YLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 10)
		a.Tick.Label.Font = font.From(sans, 9)
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = tidyTicks{}, tidyTicks{}
	p.Add(plotter.NewGrid())
	return p
}

// tidyTicks are gonum's default ticks with trailing zeros dropped from
// their labels ("25.00" → "25", "0.50" → "0.5").
type tidyTicks struct{}

func (tidyTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		l := ts[i].Label
		if strings.Contains(l, ".") && !strings.ContainsAny(l, "eE") {
			l = strings.TrimRight(strings.TrimRight(l, "0"), ".")
			if l == "-0" {
				l = "0"
			}
			ts[i].Label = l
		}
	}
	return ts
}

// legend collects one entry per label, in first-seen order.
type legend struct {
	seen    map[string]bool
	entries []legendEntry
}

type legendEntry struct {
	label  string
	thumbs []plot.Thumbnailer
}

func (l *legend) add(label string, thumbs ...plot.Thumbnailer) {
	if label == "" || l.seen[label] {
		return
	}
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	l.seen[label] = true
	l.entries = append(l.entries, legendEntry{label, thumbs})
}

// buildPlots returns one plot per panel and the shared legend.
func buildPlots(f *Figure) ([]*plot.Plot, *legend, error) {
	if len(f.Panels) == 0 {
		return nil, nil, fmt.Errorf("figure %s: no panels", f.Name)
	}
	var leg legend
	ps := make([]*plot.Plot, len(f.Panels))
	for i, pn := range f.Panels {
		ps[i] = newPlot(pn)
	}
	for _, s := range f.Series {
		if s.Panel < 0 || s.Panel >= len(f.Panels) {
			return nil, nil, fmt.Errorf("series %q: panel %d of %d", s.Label, s.Panel, len(f.Panels))
		}
		if len(s.Y) != len(s.X) || (s.Kind == "whiskers" && (len(s.Lo) != len(s.X) || len(s.Hi) != len(s.X))) {
			return nil, nil, fmt.Errorf("series %q: %d x, %d y, %d lo, %d hi", s.Label, len(s.X), len(s.Y), len(s.Lo), len(s.Hi))
		}
		if err := addSeries(ps[s.Panel], f.Panels[s.Panel], s, &leg); err != nil {
			return nil, nil, fmt.Errorf("series %q: %w", s.Label, err)
		}
	}
	for i, pn := range f.Panels {
		finishAxes(ps[i], pn)
	}
	return ps, &leg, nil
}

// clipX moves x into the panel's fixed x range; off reports whether it
// was moved.
func clipX(pn Panel, x float64) (float64, bool) {
	if pn.XMax != nil && x > *pn.XMax {
		return *pn.XMax, true
	}
	if pn.XMin != nil && x < *pn.XMin {
		return *pn.XMin, true
	}
	return x, false
}

// addSeries draws s into p.
func addSeries(p *plot.Plot, pn Panel, s Series, leg *legend) error {
	xys := make(plotter.XYs, 0, len(s.X))
	var offX, offY []float64
	var offNames []string
	for k := range s.X {
		x, off := clipX(pn, s.X[k])
		if !plottable(x) || !plottable(s.Y[k]) {
			continue
		}
		if pn.XLogHours {
			x = max(x, minLogHours)
		}
		xys = append(xys, plotter.XY{X: x, Y: s.Y[k]})
		if off && s.Kind != "step" {
			offX, offY = append(offX, x), append(offY, s.Y[k])
			offNames = append(offNames, "→ "+strconv.FormatFloat(s.X[k], 'f', 1, 64)+" h")
			if s.X[k] < x {
				offNames[len(offNames)-1] = strconv.FormatFloat(s.X[k], 'f', 1, 64) + " h ←"
			}
		}
	}
	if len(xys) == 0 && s.Kind != "vline" {
		return nil
	}
	col := styleColor(s.Style)
	if s.Label == "" && (s.Kind == "vline" || s.Kind == "curve") {
		col = guide // an unlabelled reference line
	}
	line := func() (*plotter.Line, error) {
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes, l.Width = col, styleDashes(s.Style), vg.Points(1.6)
		return l, nil
	}
	scatter := func() (*plotter.Scatter, error) {
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sc.Color, sc.Shape, sc.Radius = col, styleGlyph(s.Style), vg.Points(3.2)
		if s.Faint {
			sc.Color, sc.Shape, sc.Radius = faint, draw.CircleGlyph{}, vg.Points(1.2)
		}
		return sc, nil
	}
	switch s.Kind {
	case "step":
		xys = append(plotter.XYs{{X: xys[0].X, Y: 0}}, xys...) // rise from 0 at the first value
		l, err := line()
		if err != nil {
			return err
		}
		l.StepStyle = plotter.PostStep
		p.Add(l)
		leg.add(s.Label, l)
	case "curve":
		l, err := line()
		if err != nil {
			return err
		}
		p.Add(l)
		leg.add(s.Label, l)
	case "line":
		l, err := line()
		if err != nil {
			return err
		}
		sc, err := scatter()
		if err != nil {
			return err
		}
		p.Add(l, sc)
		leg.add(s.Label, l, sc)
	case "points":
		sc, err := scatter()
		if err != nil {
			return err
		}
		if s.Highlight {
			ring, err := plotter.NewScatter(xys)
			if err != nil {
				return err
			}
			ring.Shape, ring.Radius, ring.Color = draw.RingGlyph{}, vg.Points(7), color.Black
			sc.Radius = vg.Points(4.5)
			p.Add(sc, ring)
			leg.add(s.Label, sc, ring)
		} else {
			p.Add(sc)
			leg.add(s.Label, sc)
		}
	case "whiskers":
		w := &whiskers{color: col}
		for k := range s.X {
			if plottable(s.X[k]) && plottable(s.Lo[k]) && plottable(s.Hi[k]) {
				w.x, w.lo, w.hi = append(w.x, s.X[k]), append(w.lo, s.Lo[k]), append(w.hi, s.Hi[k])
			}
		}
		sc, err := scatter()
		if err != nil {
			return err
		}
		p.Add(w, sc)
		leg.add(s.Label, sc)
	case "vline":
		if len(s.X) == 0 {
			return nil
		}
		v := &vline{x: s.X[0], color: col, dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
		if s.Label == "" {
			v.dashes = nil
		}
		p.Add(v)
		leg.add(s.Label, v)
	default:
		return fmt.Errorf("unknown series kind %q", s.Kind)
	}
	names := s.Names
	if len(names) == len(s.X) && len(xys) == len(s.X) {
		if err := addLabels(p, xys, names, 0); err != nil {
			return err
		}
	}
	if len(offX) > 0 {
		off := make(plotter.XYs, len(offX))
		for i := range offX {
			off[i] = plotter.XY{X: offX[i], Y: offY[i]}
		}
		if err := addLabels(p, off, offNames, -1); err != nil {
			return err
		}
	}
	return nil
}

// addLabels writes names beside xys: to the right (side 0) or, for
// off-scale points at the right edge, to the left (side -1), below.
func addLabels(p *plot.Plot, xys plotter.XYs, names []string, side int) error {
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: names})
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font = font.From(sans, 8)
		l.TextStyle[i].XAlign = draw.XLeft
		if side < 0 {
			l.TextStyle[i].XAlign = draw.XRight
			l.TextStyle[i].YAlign = draw.YTop
		}
	}
	l.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(2)}
	if side < 0 {
		l.Offset = vg.Point{X: vg.Points(-4), Y: vg.Points(-5)}
	}
	p.Add(l)
	return nil
}

// finishAxes applies the panel's fixed ranges, log scale and nominal
// ticks.
func finishAxes(p *plot.Plot, pn Panel) {
	if pn.XMin != nil {
		p.X.Min = *pn.XMin
	}
	if pn.XMax != nil {
		p.X.Max = *pn.XMax
	}
	if pn.YMin != nil {
		p.Y.Min = *pn.YMin
	}
	if pn.YMax != nil {
		p.Y.Max = *pn.YMax
	}
	if pn.XLogHours {
		p.X.Min = max(p.X.Min, minLogHours)
		p.X.Max = max(p.X.Max, p.X.Min*10)
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.TickerFunc(timeTicks)
	}
	if pn.Nominal != nil {
		p.NominalX(pn.Nominal...)
		p.X.Min, p.X.Max = -0.6, float64(len(pn.Nominal))-0.4
		p.X.Tick.Label.Font = font.From(sans, 9)
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	if pn.Nominal == nil {
		pad(&p.X, pn.XMin == nil, pn.XMax == nil || pn.XLogHours)
	}
	pad(&p.Y, pn.YMin == nil, pn.YMax == nil)
	padRange(&p.X)
	padRange(&p.Y)
}

// pad widens a linear axis by 4 % of its span at the ends not fixed, so
// that points at the extremes are not cut by the frame.
func pad(a *plot.Axis, lo, hi bool) {
	if _, log := a.Scale.(plot.LogScale); log {
		return
	}
	d := 0.04 * (a.Max - a.Min)
	if !(d > 0) || math.IsInf(d, 0) {
		return
	}
	if lo {
		a.Min -= d
	}
	if hi {
		a.Max += d
	}
}

// minLogHours is the least value a log time axis shows: 1 minute.
const minLogHours = 1.0 / 60

// timeTicks labels a log axis of hours at 1 min, 10 min, 1 h, 6 h, 1 day,
// 1 week and 30 days (those within [lo, hi]).
func timeTicks(lo, hi float64) []plot.Tick {
	marks := []struct {
		h     float64
		label string
	}{{1.0 / 60, "1 min"}, {10.0 / 60, "10 min"}, {1, "1 h"}, {6, "6 h"}, {24, "1 day"}, {168, "1 week"}, {720, "30 days"}}
	var out []plot.Tick
	for _, m := range marks {
		if m.h >= lo*(1-1e-9) && m.h <= hi*(1+1e-9) {
			out = append(out, plot.Tick{Value: m.h, Label: m.label})
		}
	}
	return out
}

// padRange widens an axis whose data is one value by ±1, or by a
// millionth of the value when ±1 would be lost to rounding (gonum/plot
// panics on an empty range).
func padRange(a *plot.Axis) {
	if a.Min == a.Max && !math.IsInf(a.Min, 0) && !math.IsNaN(a.Min) {
		d := max(1, math.Abs(a.Min)*1e-6)
		a.Min, a.Max = a.Min-d, a.Max+d
	}
}

// encode draws f in format ("png", "svg"): its panels in a grid, the
// legend in a strip to the right of the data.
func encode(f *Figure, format string) ([]byte, error) {
	ps, leg, err := buildPlots(f)
	if err != nil {
		return nil, err
	}
	w, h := figureWidth, rowHeight*vg.Length(f.rows())
	if len(f.Panels) == 1 && f.rows() == 1 {
		h = 4.4 * vg.Inch
	}
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(pngDPI), vgimg.UseBackgroundColor(color.White))}
	case "svg":
		c = vgsvg.New(w, h)
	default:
		return nil, fmt.Errorf("figure %s: unknown format %q", f.Name, format)
	}
	dc := draw.New(c)
	plotArea := dc
	if len(leg.entries) > 0 {
		plotArea = draw.Crop(dc, 0, -legendWidth, 0, 0)
		drawLegend(draw.Crop(dc, w-legendWidth+vg.Points(6), 0, 0, -vg.Points(6)), leg)
	}
	cols := max(f.Cols, 1)
	rows := make([][]*plot.Plot, f.rows())
	for i := range rows {
		rows[i] = make([]*plot.Plot, cols)
		for j := range cols {
			if k := i*cols + j; k < len(ps) {
				rows[i][j] = ps[k]
			}
		}
	}
	tiles := draw.Tiles{Rows: len(rows), Cols: cols, PadX: vg.Points(10), PadY: vg.Points(10),
		PadTop: vg.Points(4), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: vg.Points(4)}
	canvases := plot.Align(rows, tiles, plotArea)
	for i := range rows {
		for j := range rows[i] {
			if rows[i][j] != nil {
				rows[i][j].Draw(canvases[i][j])
			}
		}
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("figure %s: %w", f.Name, err)
	}
	return buf.Bytes(), nil
}

// drawLegend draws the entries top-left in c.
func drawLegend(c draw.Canvas, leg *legend) {
	l := plot.NewLegend()
	l.TextStyle.Font = font.From(sans, 9)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = vg.Points(22)
	l.Padding = vg.Points(3)
	for _, e := range leg.entries {
		l.Add(e.label, e.thumbs...)
	}
	l.Draw(c)
}
