// Package plotticks has the tick markers Mirage's figures (gonum/plot)
// share: round linear ticks with tidy labels, and time ticks for a log
// axis of hours.
package plotticks

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// Tidy labels an axis at 5 to 10 round values (steps of 1, 2, 2.5
// or 5 × 10^k), with an unlabelled tick between each, and write the
// labels without trailing zeros ("25", "0.5").
type Tidy struct{}

// Ticks returns the ticks of [lo, hi].
func (Tidy) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	step := niceStep(hi - lo)
	var out []plot.Tick
	first := math.Ceil(lo/step-1e-9) * step
	for k := 0; ; k++ {
		v := first + float64(k)*step
		if v > hi+step*1e-9 {
			break
		}
		v = math.Round(v/step) * step // no -0, no 0.30000000000000004
		if v == 0 {
			v = 0
		}
		out = append(out, plot.Tick{Value: v, Label: tickLabel(v, step)})
		if m := v + step/2; m <= hi {
			out = append(out, plot.Tick{Value: m})
		}
	}
	if m := first - step/2; m >= lo {
		out = append(out, plot.Tick{Value: m})
	}
	return out
}

// niceStep returns the round step that cuts span into 5 to 10 parts.
func niceStep(span float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(span/5)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if span/(m*mag) <= 10 {
			return m * mag
		}
	}
	return 10 * mag
}

// tickLabel writes v with as many decimals as step needs.
func tickLabel(v, step float64) string {
	dec := 0
	for d := step; d < 1-1e-9 && dec < 8; d *= 10 {
		dec++
	}
	if r := step * math.Pow(10, float64(dec)); math.Abs(r-math.Round(r)) > 1e-6 { // 2.5 × 10^k
		dec++
	}
	l := strconv.FormatFloat(v, 'f', dec, 64)
	if strings.Contains(l, ".") {
		l = strings.TrimRight(strings.TrimRight(l, "0"), ".")
	}
	if l == "-0" {
		l = "0"
	}
	return l
}

// LogHours labels a log axis of hours at 1 min, 10 min, 1 h, 6 h, 1 day,
// 1 week and 30 days (those within [lo, hi]).
func LogHours(lo, hi float64) []plot.Tick {
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
