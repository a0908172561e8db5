package reports

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// whiskers draws one vertical interval per point, with caps.
type whiskers struct {
	x, lo, hi []float64
	color     color.Color
}

func (w *whiskers) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	ls := draw.LineStyle{Color: w.color, Width: vg.Points(1.2)}
	cap := vg.Points(3)
	for i := range w.x {
		x, lo, hi := tx(w.x[i]), ty(w.lo[i]), ty(w.hi[i])
		c.StrokeLine2(ls, x, lo, x, hi)
		c.StrokeLine2(ls, x-cap, lo, x+cap, lo)
		c.StrokeLine2(ls, x-cap, hi, x+cap, hi)
	}
}

func (w *whiskers) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for i := range w.x {
		xmin, xmax = min(xmin, w.x[i]), max(xmax, w.x[i])
		ymin, ymax = min(ymin, w.lo[i]), max(ymax, w.hi[i])
	}
	return xmin, xmax, ymin, ymax
}

// vline is a vertical line at x across the plot (a budget).
type vline struct {
	x      float64
	color  color.Color
	dashes []vg.Length
}

func (v *vline) style() draw.LineStyle {
	return draw.LineStyle{Color: v.color, Width: vg.Points(1.2), Dashes: v.dashes}
}

func (v *vline) Plot(c draw.Canvas, p *plot.Plot) {
	tx, _ := p.Transforms(&c)
	x := tx(v.x)
	c.StrokeLine2(v.style(), x, c.Min.Y, x, c.Max.Y)
}

// DataRange keeps x in range; y is left to the other series.
func (v *vline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return v.x, v.x, math.Inf(1), math.Inf(-1)
}

// Thumbnail draws the legend's sample.
func (v *vline) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(v.style(), c.Min.X, y, c.Max.X, y)
}
