package reports

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// pointLabel is one text to write beside a data point.
type pointLabel struct {
	x, y float64 // data coordinates
	text string
	// left prefers the left side (an off-scale point at the right edge).
	left bool
}

// labelLayer writes a panel's point labels after its data, each where it
// overlaps no label placed before it, no data point and stays inside
// the plot area: beside its point when there is room, else further out
// with a thin leader line to the point. Placed holds the boxes it drew
// (canvas coordinates), for tests.
type labelLayer struct {
	labels    []pointLabel
	obstacles []plotter.XY // data points, data coordinates
	Placed    []vg.Rectangle
}

// labelStyle is the point labels' text style.
func labelStyle() draw.TextStyle {
	return draw.TextStyle{Color: color.Black, Font: font.From(sans, 8), Handler: plot.DefaultTextHandler,
		XAlign: draw.XLeft, YAlign: draw.YBottom}
}

// obstacleRadius is the half-size of the square a data point occupies.
const obstacleRadius = vg.Length(4.5)

// Plot places and draws the labels.
func (l *labelLayer) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	ts := labelStyle()
	var obst []vg.Rectangle
	for _, o := range l.obstacles {
		x, y := tx(o.X), ty(o.Y)
		obst = append(obst, vg.Rectangle{Min: vg.Point{X: x - obstacleRadius, Y: y - obstacleRadius},
			Max: vg.Point{X: x + obstacleRadius, Y: y + obstacleRadius}})
	}
	l.Placed = l.Placed[:0]
	leader := draw.LineStyle{Color: guide, Width: vg.Points(0.5)}
	for _, lb := range l.labels {
		px, py := tx(lb.x), ty(lb.y)
		w, h := ts.Width(lb.text), ts.Height(lb.text)
		best, bestScore, bestFar := vg.Rectangle{}, vg.Length(-1), false
		for _, cand := range labelCandidates(px, py, w, h, lb.left) {
			score := overlapArea(cand.r, l.Placed)*4 + overlapArea(cand.r, obst) + outside(cand.r, c.Rectangle)*8
			if bestScore < 0 || score < bestScore {
				best, bestScore, bestFar = cand.r, score, cand.far
			}
			if score == 0 {
				break
			}
		}
		if bestFar {
			// a leader from the point to the box's nearest corner or edge
			ex := min(max(px, best.Min.X), best.Max.X)
			ey := min(max(py, best.Min.Y), best.Max.Y)
			c.StrokeLine2(leader, px, py, ex, ey)
		}
		c.FillText(ts, best.Min, lb.text)
		l.Placed = append(l.Placed, best)
	}
}

// candidate is one place a label may go; far ones get a leader line.
type candidate struct {
	r   vg.Rectangle
	far bool
}

// labelCandidates lists the boxes (w × h) a label of the point (px, py)
// may take, the preferred first: the four corners beside it, above and
// below it, then rings further out in eight directions.
func labelCandidates(px, py, w, h vg.Length, left bool) []candidate {
	const g = vg.Length(5)
	box := func(x, y vg.Length, far bool) candidate {
		return candidate{r: vg.Rectangle{Min: vg.Point{X: x, Y: y}, Max: vg.Point{X: x + w, Y: y + h}}, far: far}
	}
	right := []candidate{box(px+g, py+1, false), box(px+g, py-1-h, false)}
	lft := []candidate{box(px-g-w, py+1, false), box(px-g-w, py-1-h, false)}
	out := append(right, lft...)
	if left {
		out = append(lft, right...)
	}
	out = append(out, box(px-w/2, py+g+1, false), box(px-w/2, py-g-1-h, false))
	for _, d := range []vg.Length{14, 24, 36, 50, 70} {
		dirs := [][2]vg.Length{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}, {0, 1}, {0, -1}, {1, 0}, {-1, 0}}
		if left {
			dirs = [][2]vg.Length{{-1, 1}, {-1, -1}, {1, 1}, {1, -1}, {0, 1}, {0, -1}, {-1, 0}, {1, 0}}
		}
		for _, dir := range dirs {
			cx, cy := px+dir[0]*d, py+dir[1]*d
			x := cx - w/2
			if dir[0] > 0 {
				x = cx
			} else if dir[0] < 0 {
				x = cx - w
			}
			y := cy - h/2
			if dir[1] > 0 {
				y = cy
			} else if dir[1] < 0 {
				y = cy - h
			}
			out = append(out, box(x, y, true))
		}
	}
	return out
}

// overlapArea sums r's overlap with each of rs.
func overlapArea(r vg.Rectangle, rs []vg.Rectangle) vg.Length {
	var a vg.Length
	for _, o := range rs {
		w := min(r.Max.X, o.Max.X) - max(r.Min.X, o.Min.X)
		h := min(r.Max.Y, o.Max.Y) - max(r.Min.Y, o.Min.Y)
		if w > 0 && h > 0 {
			a += w * h
		}
	}
	return a
}

// outside is how much of r lies outside area (area of r minus its
// intersection).
func outside(r, area vg.Rectangle) vg.Length {
	w := min(r.Max.X, area.Max.X) - max(r.Min.X, area.Min.X)
	h := min(r.Max.Y, area.Max.Y) - max(r.Min.Y, area.Min.Y)
	in := vg.Length(0)
	if w > 0 && h > 0 {
		in = w * h
	}
	return (r.Max.X-r.Min.X)*(r.Max.Y-r.Min.Y) - in
}
