package reports

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"github.com/mirage-hpc/mirage/internal/plotticks"
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

// palette is okabeIto followed by six more colours (brown, and Paul
// Tol's indigo, olive, wine, teal and rose), ordered so that style s + 7
// looks unlike style s, so that up to 12 policies besides the oracles
// have a colour each.
var palette = append(append([]color.NRGBA{}, okabeIto...),
	color.NRGBA{140, 86, 75, 255}, color.NRGBA{51, 34, 136, 255}, color.NRGBA{153, 153, 51, 255},
	color.NRGBA{136, 34, 85, 255}, color.NRGBA{68, 170, 153, 255}, color.NRGBA{204, 102, 119, 255})

func styleColor(s int) color.Color  { return palette[s%len(palette)] }
func styleDashes(s int) []vg.Length { return dashes[s%len(dashes)] }
func styleGlyph(s int) draw.GlyphDrawer {
	g := s % len(palette)
	return glyphs[(g+g/len(okabeIto)+s/len(palette))%len(glyphs)]
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
		a.Label.Padding = vg.Points(5) // the title's box clear of the tick labels'
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = tidyTicks{}, tidyTicks{}
	p.Add(plotter.NewGrid())
	return p
}

// tidyTicks are plotticks.Tidy: 5 to 10 labelled round values.
type tidyTicks = plotticks.Tidy

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

// buildPlots returns one plot per panel, the shared legend and each
// panel's point labels (drawn last, laid out apart).
func buildPlots(f *Figure) ([]*plot.Plot, *legend, []*labelLayer, error) {
	if len(f.Panels) == 0 {
		return nil, nil, nil, fmt.Errorf("figure %s: no panels", f.Name)
	}
	var leg legend
	ps := make([]*plot.Plot, len(f.Panels))
	layers := make([]*labelLayer, len(f.Panels))
	for i, pn := range f.Panels {
		ps[i] = newPlot(pn)
		layers[i] = &labelLayer{}
	}
	for _, s := range f.Series {
		if s.Panel < 0 || s.Panel >= len(f.Panels) {
			return nil, nil, nil, fmt.Errorf("series %q: panel %d of %d", s.Label, s.Panel, len(f.Panels))
		}
		if len(s.Y) != len(s.X) || (s.Kind == "whiskers" && (len(s.Lo) != len(s.X) || len(s.Hi) != len(s.X))) {
			return nil, nil, nil, fmt.Errorf("series %q: %d x, %d y, %d lo, %d hi", s.Label, len(s.X), len(s.Y), len(s.Lo), len(s.Hi))
		}
		if err := addSeries(ps[s.Panel], f.Panels[s.Panel], s, &leg, layers[s.Panel]); err != nil {
			return nil, nil, nil, fmt.Errorf("series %q: %w", s.Label, err)
		}
	}
	for i, pn := range f.Panels {
		if len(layers[i].labels) > 0 {
			ps[i].Add(layers[i])
		}
		finishAxes(ps[i], pn)
	}
	return ps, &leg, layers, nil
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

// addSeries draws s into p; its point labels, and its points as
// obstacles to labels, go to labels.
func addSeries(p *plot.Plot, pn Panel, s Series, leg *legend, labels *labelLayer) error {
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
	if !s.Faint && (s.Kind == "points" || s.Kind == "line" || s.Kind == "whiskers") {
		labels.obstacles = append(labels.obstacles, xys...)
	}
	names := s.Names
	if len(names) == len(s.X) && len(xys) == len(s.X) {
		for i, n := range names {
			if n != "" {
				labels.labels = append(labels.labels, pointLabel{x: xys[i].X, y: xys[i].Y, text: n})
			}
		}
	}
	for i := range offX {
		labels.labels = append(labels.labels, pointLabel{x: offX[i], y: offY[i], text: offNames[i], left: true})
	}
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
	if pn.XSymHours {
		p.X.Scale = asinhScale{}
		p.X.Tick.Marker = plot.TickerFunc(symTicks)
	}
	if pn.Nominal != nil {
		p.NominalX(pn.Nominal...)
		p.X.Min, p.X.Max = -0.6, float64(len(pn.Nominal))-0.4
		p.X.Tick.Label.Font = font.From(sans, 9)
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	if pn.Nominal == nil && !pn.XSymHours {
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

// timeTicks labels a log axis of hours at round times
// (plotticks.LogHours).
func timeTicks(lo, hi float64) []plot.Tick { return plotticks.LogHours(lo, hi) }

// asinhScale maps hours x to asinh(x): linear near 0, logarithmic far
// from it, for signed values.
type asinhScale struct{}

func (asinhScale) Normalize(lo, hi, x float64) float64 {
	a, b := math.Asinh(lo), math.Asinh(hi)
	if b == a {
		return 0.5
	}
	return (math.Asinh(x) - a) / (b - a)
}

// symTicks labels a signed hours axis at 0, ±1, ±6, ±24 and ±72 h, with
// unlabelled ticks at ±3, ±12 and ±48 h (those within [lo, hi]).
func symTicks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, h := range []float64{-72, -48, -24, -12, -6, -3, -1, 0, 1, 3, 6, 12, 24, 48, 72} {
		if h >= lo-1e-9 && h <= hi+1e-9 {
			t := plot.Tick{Value: h}
			if a := math.Abs(h); a != 3 && a != 12 && a != 48 {
				t.Label = strconv.FormatFloat(h, 'f', -1, 64)
			}
			out = append(out, t)
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
	b, _, err := draw1(f, format)
	return b, err
}

// draw1 draws f in format and returns the file's bytes and each panel's
// point labels as placed.
func draw1(f *Figure, format string) ([]byte, []*labelLayer, error) {
	ps, leg, layers, err := buildPlots(f)
	if err != nil {
		return nil, nil, err
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
		return nil, nil, fmt.Errorf("figure %s: unknown format %q", f.Name, format)
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
		return nil, nil, fmt.Errorf("figure %s: %w", f.Name, err)
	}
	return buf.Bytes(), layers, nil
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
