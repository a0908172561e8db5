package analyze

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/mirage-hpc/mirage/internal/plotticks"
)

// palette is Okabe and Ito's colour-blind-safe palette (black first).
var palette = []color.Color{
	color.NRGBA{0, 0, 0, 255},
	color.NRGBA{0xE6, 0x9F, 0x00, 255}, // orange
	color.NRGBA{0x56, 0xB4, 0xE9, 255}, // sky blue
	color.NRGBA{0x00, 0x9E, 0x73, 255}, // bluish green
	color.NRGBA{0x00, 0x72, 0xB2, 255}, // blue
	color.NRGBA{0xD5, 0x5E, 0x00, 255}, // vermillion
	color.NRGBA{0xCC, 0x79, 0xA7, 255}, // reddish purple
	color.NRGBA{0xF0, 0xE4, 0x42, 255}, // yellow
}

func colour(i int) color.Color { return palette[i%len(palette)] }

// sans is the figures' typeface (Liberation Sans, bundled with gonum/plot).
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// figure is one rendered figure.
type figure struct {
	name, title, caption string
	section              string // Section.ID it belongs to
	png, svg             []byte
}

// series is one line or set of bars of a figure.
type series struct {
	label string
	x, y  []float64
}

// figSpec describes a figure before rendering.
type figSpec struct {
	name, section, title, caption, xLabel, yLabel string
	lines                                         []series
	bars                                          []series // nominal x: names
	names                                         []string
	timeX, logX                                   bool
	// logHours draws x (hours) on a log axis with time ticks (1 min, 1 h,
	// 1 day, …) from 1 min; yMax, when set, fixes the y axis' top (a CDF's
	// 1) and puts the legend at the bottom right.
	logHours bool
	yMax     *float64
	// xStep, when > 0, labels x every xStep (hours of the day: 3).
	xStep float64
}

// monthTicks labels a time axis (Unix seconds) at the first of each
// month (UTC), "2006-01", every 1, 2, 3, 6 or 12 months so that at most
// 12 are labelled, with an unlabelled tick at the months between.
func monthTicks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return nil
	}
	t := time.Unix(int64(lo), 0).UTC()
	m := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	if m.Unix() < int64(math.Ceil(lo)) {
		m = m.AddDate(0, 1, 0)
	}
	n := int((hi-lo)/(30.44*86400)) + 1
	every := 12
	for _, e := range []int{1, 2, 3, 6, 12} {
		if n/e <= 12 {
			every = e
			break
		}
	}
	var out []plot.Tick
	for ; float64(m.Unix()) <= hi; m = m.AddDate(0, 1, 0) {
		tk := plot.Tick{Value: float64(m.Unix())}
		if (int(m.Month())-1)%every == 0 {
			tk.Label = m.Format("2006-01")
		}
		out = append(out, tk)
	}
	return out
}

// stepTicks labels [lo, hi] at the multiples of step.
func stepTicks(lo, hi, step float64) []plot.Tick {
	var out []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
	}
	return out
}

// newPlot returns a plot in the page's style: sans-serif, grid, legend
// at the top.
func newPlot(s *figSpec) *plot.Plot {
	p := plot.New()
	// no title inside the figure: the caption under it has it, as in the
	// report
	p.X.Label.Text, p.Y.Label.Text = s.xLabel, s.yLabel
	// the report's sizes: 10 pt titles, 9 pt ticks and legend
	for _, ts := range []*draw.TextStyle{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle} {
		ts.Font = font.From(sans, 10)
	}
	for _, ts := range []*draw.TextStyle{&p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		ts.Font = font.From(sans, 9)
	}
	p.X.Label.Padding, p.Y.Label.Padding = vg.Points(5), vg.Points(5)
	p.X.Tick.Marker, p.Y.Tick.Marker = plotticks.Tidy{}, plotticks.Tidy{}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	return p
}

// render draws s as PNG and SVG at the report's figure size.
func render(s figSpec) (figure, error) {
	p := newPlot(&s)
	for i, l := range s.lines {
		xys := make(plotter.XYs, 0, len(l.x))
		for k := range l.x {
			x := l.x[k]
			if s.logX {
				x = math.Max(x, 1)
			}
			if s.logHours {
				x = math.Max(x, minLogHours)
			}
			xys = append(xys, plotter.XY{X: x, Y: l.y[k]})
		}
		if len(xys) == 0 {
			continue
		}
		xys = thin(xys, maxLinePoints)
		ln, err := plotter.NewLine(xys)
		if err != nil {
			return figure{}, err
		}
		ln.Color = colour(i)
		ln.Width = vg.Points(1.5)
		ln.Dashes = dashes(i)
		p.Add(ln)
		if len(s.lines)+len(s.bars) > 1 { // one series needs no legend
			p.Legend.Add(l.label, ln)
		}
	}
	for i, b := range s.bars {
		// bars fill 70 % of each category's slot, shared by the series
		slot := 0.85 * figureWidth / vg.Length(max(len(b.y), 1))
		width := min(max(0.7*slot/vg.Length(len(s.bars)), vg.Points(4)), vg.Points(60))
		bc, err := plotter.NewBarChart(plotter.Values(b.y), width)
		if err != nil {
			return figure{}, err
		}
		bc.Color = colour(i + 1)
		bc.LineStyle.Width = 0
		bc.Offset = width * vg.Length(float64(i)-float64(len(s.bars)-1)/2)
		p.Add(bc)
		if len(s.lines)+len(s.bars) > 1 {
			p.Legend.Add(b.label, bc)
		}
	}
	if s.names != nil {
		p.NominalX(s.names...)
		if len(s.names) > 8 {
			p.X.Tick.Label.Rotation = 0.6
			p.X.Tick.Label.XAlign = draw.XRight
		}
	}
	if s.timeX {
		p.X.Tick.Marker = plot.TickerFunc(monthTicks)
	}
	if s.xStep > 0 {
		step := s.xStep
		p.X.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick { return stepTicks(lo, hi, step) })
	}
	if s.logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if s.logHours {
		p.X.Min = math.Max(p.X.Min, minLogHours)
		p.X.Max = math.Max(p.X.Max, p.X.Min*10)
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.TickerFunc(plotticks.LogHours)
	}
	pad(&p.X)
	pad(&p.Y)
	if s.names != nil { // whole bars at the ends
		p.X.Min, p.X.Max = -0.5, float64(len(s.names))-0.5
	}
	if s.yMax != nil {
		p.Y.Min, p.Y.Max = 0, *s.yMax
		p.Legend.Top, p.Legend.Left = false, false
		p.Legend.XOffs, p.Legend.YOffs = -vg.Points(6), vg.Points(6)
	} else {
		p.Y.Max += 0.2 * (p.Y.Max - p.Y.Min) // headroom for the legend
	}
	f := figure{name: s.name, title: s.title, caption: s.caption, section: s.section}
	var err error
	if f.png, err = encode(p, "png"); err != nil {
		return figure{}, err
	}
	if f.svg, err = encode(p, "svg"); err != nil {
		return figure{}, err
	}
	return f, nil
}

// maxLinePoints bounds the points of a drawn line: a longer series (a
// decade of hours) is drawn as means of consecutive points. The tables
// keep every point.
const maxLinePoints = 2000

// thin returns xys with at most n points: the mean x and y of each run of
// ceil(len/n) consecutive points.
func thin(xys plotter.XYs, n int) plotter.XYs {
	if len(xys) <= n {
		return xys
	}
	k := (len(xys) + n - 1) / n
	out := make(plotter.XYs, 0, n)
	for i := 0; i < len(xys); i += k {
		var p plotter.XY
		m := min(len(xys), i+k) - i
		for _, q := range xys[i : i+m] {
			p.X += q.X
			p.Y += q.Y
		}
		out = append(out, plotter.XY{X: p.X / float64(m), Y: p.Y / float64(m)})
	}
	return out
}

// dashes gives lines after the palette's first four a dash pattern, so
// they stay apart in greyscale too.
func dashes(i int) []vg.Length {
	if i < 4 {
		return nil
	}
	return []vg.Length{vg.Points(4), vg.Points(2)}
}

// pad widens an empty axis range, which gonum/plot cannot draw.
func pad(a *plot.Axis) {
	if a.Min == a.Max && !math.IsInf(a.Min, 0) && !math.IsNaN(a.Min) {
		d := max(1, math.Abs(a.Min)*1e-6)
		a.Min, a.Max = a.Min-d, a.Max+d
		if _, ok := a.Scale.(plot.LogScale); ok {
			a.Min, a.Max = math.Max(a.Min, 0.5), a.Max+1
		}
	}
}

// Figure geometry, the report's: 10 × 4.4 inches shown at 96 CSS pixels
// per inch, PNG drawn at 2× for high-density screens.
const (
	figureWidth  = 10 * vg.Inch
	figureHeight = 4.4 * vg.Inch
	pngDPI       = 192
	// FigureWidthPx is the width the page shows figures at, CSS pixels.
	FigureWidthPx = 960
)

// minLogHours is the least value a log hours axis shows: 1 minute.
const minLogHours = 1.0 / 60

func encode(p *plot.Plot, format string) ([]byte, error) {
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(figureWidth, figureHeight), vgimg.UseDPI(pngDPI),
			vgimg.UseBackgroundColor(color.White))}
	case "svg":
		c = vgsvg.New(figureWidth, figureHeight)
	default:
		return nil, fmt.Errorf("unknown figure format %q", format)
	}
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// figures renders every figure whose section is present and has data.
func (a *Analysis) figures() ([]figure, error) {
	var specs []figSpec
	absent := func(id string) bool { s := a.Section(id); return s == nil || s.Absent != "" }
	if len(a.Months) > 0 {
		var names []string
		var nh []float64
		drop := partialMonths(a.Months)
		for _, m := range a.Months {
			if drop[m.Month] {
				continue
			}
			names = append(names, m.Month)
			nh = append(nh, m.NodeHours)
		}
		specs = append(specs, figSpec{name: "volume_month", section: "volume", title: "Node-hours by month",
			caption: "Node-hours (nodes × run time) of the jobs submitted each month.", yLabel: "node-hours",
			bars: []series{{label: "node-hours", y: nh}}, names: names})
	}
	if !absent("utilisation") && len(a.Util) > 0 {
		var x, busy, capy []float64
		for _, u := range a.Util {
			x = append(x, float64(u.HourMs/1000))
			busy = append(busy, u.BusyNodesMean)
			capy = append(capy, float64(u.CapacityNodes))
		}
		specs = append(specs, figSpec{name: "utilisation", section: "utilisation", title: "Busy nodes against capacity",
			caption: "Hourly mean of the busy nodes and the capacity (" + a.CapacitySource + ").", yLabel: "nodes", timeX: true,
			lines: []series{{label: "busy (hourly mean)", x: x, y: busy}, {label: "capacity", x: x, y: capy}}})
		var hx, hu []float64
		for _, p := range a.Profiles {
			if p.Profile == "hour_of_day" {
				hx = append(hx, float64(p.Index))
				hu = append(hu, p.UtilisationMean)
			}
		}
		specs = append(specs, figSpec{name: "profile_hour", section: "utilisation", title: "Utilisation by hour of day",
			caption: "Mean utilisation of each hour of the day in " + a.Zone + ".", xLabel: "hour of day", yLabel: "utilisation", xStep: 3,
			lines: []series{{label: "utilisation", x: hx, y: hu}}})
	}
	if !absent("queue") && len(a.Queue) > 0 {
		var x, pj, bl []float64
		for _, q := range a.Queue {
			x = append(x, float64(q.HourMs/1000))
			pj = append(pj, q.PendingJobsMean)
			bl = append(bl, q.BacklogFullMachineHrs)
		}
		specs = append(specs, figSpec{name: "queue", section: "queue", title: "Pending jobs",
			caption: "Hourly mean of the pending jobs.", yLabel: "pending jobs", timeX: true,
			lines: []series{{label: "pending jobs", x: x, y: pj}}},
			figSpec{name: "backlog", section: "queue", title: "Backlog",
				caption: "Hourly mean of the backlog in hours of full-machine work (pending nodes × time limit / capacity).",
				yLabel:  "backlog (full-machine hours)", timeX: true,
				lines: []series{{label: "backlog", x: x, y: bl}}})
	}
	if !absent("waits") {
		var ls []series
		for _, g := range []string{"all", "nodes"} {
			for _, w := range a.Waits {
				if w.GroupBy != g {
					continue
				}
				s := series{label: w.Group}
				if g == "nodes" {
					s.label = w.Group + " nodes"
				}
				for _, c := range a.WaitCDF {
					if c.GroupBy == g && c.Group == w.Group {
						s.x = append(s.x, c.WaitSec/3600)
						s.y = append(s.y, c.Share)
					}
				}
				ls = append(ls, s)
			}
		}
		// no known wait (no job with both a submit and a start time): no
		// figure, whose log axis would have no range
		if slices.ContainsFunc(ls, func(s series) bool { return len(s.x) > 0 }) {
			one := 1.0
			specs = append(specs, figSpec{name: "wait_cdf", section: "waits", title: "Wait time CDF by node count",
				caption: "Share of jobs that waited at most x (log axis; waits under a minute drawn at 1 min).",
				xLabel:  "wait = Start − Submit (log scale)", yLabel: "share of jobs", logHours: true, yMax: &one, lines: ls})
		}
	}
	if !absent("runtime_limit") && len(a.RunLimit) > 0 {
		var names []string
		var p50, atl []float64
		for _, r := range a.RunLimit {
			names = append(names, r.UserClass)
			p50 = append(p50, r.P50)
			atl = append(atl, r.ShareAtLimit)
		}
		specs = append(specs, figSpec{name: "runtime_limit", section: "runtime_limit", title: "Run time / limit by user class",
			caption: "Median run time / limit and the share of jobs that ran to their limit, per user class (jobs per user).",
			bars:    []series{{label: "median ratio", y: p50}, {label: "share at limit", y: atl}}, names: names})
	}
	if !absent("chains") && len(a.Lengths) > 0 {
		var names []string
		var n []float64
		for _, l := range a.Lengths {
			names = append(names, itoa(l.Length))
			n = append(n, float64(l.Chains))
		}
		specs = append(specs, figSpec{name: "chain_lengths", section: "chains", title: "Chain lengths",
			caption: "Chains per length (jobs in the chain).", xLabel: "jobs in chain", yLabel: "chains",
			bars: []series{{label: "chains", y: n}}, names: names})
		if s := a.ChainSummary; s.ReplayedLinks > 0 {
			specs = append(specs, figSpec{name: "chain_replay", section: "chains", title: "Interruption on the replayed links",
				caption: "Hours of interruption and overlap on the same links: real, reactive (simulated) and oracle (simulated).",
				yLabel:  "hours",
				bars: []series{{label: "interruption", y: []float64{s.RealReplayedH, s.ReactiveInterruptH, s.OracleInterruptH}},
					{label: "overlap (simulated)", y: []float64{0, s.ReactiveOverlapH, s.OracleOverlapH}}},
				names: []string{"real", "reactive", "oracle"}})
		}
	}
	if !absent("fidelity") && len(a.Fidelity) > 1 {
		var sp, w2 []float64
		var names []string
		drop := partialMonths(a.Months)
		for _, f := range a.Fidelity[1:] {
			if drop[f.Month] {
				continue
			}
			names = append(names, f.Month)
			sp = append(sp, f.Spearman)
			w2 = append(w2, f.Within2x)
		}
		specs = append(specs, figSpec{name: "fidelity", section: "fidelity", title: "Simulated vs real waits by month",
			caption: "Spearman rank correlation and share within 2× of the real wait (jobs that waited over a minute).",
			bars:    []series{{label: "Spearman", y: sp}, {label: "within 2×", y: w2}}, names: names})
	}
	out := make([]figure, 0, len(specs))
	for _, s := range specs {
		f, err := render(s)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
