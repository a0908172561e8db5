package reports

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mirage-hpc/mirage/train"
)

// PredictionFigureName is the predicted-vs-actual figure's file stem.
const PredictionFigureName = "predicted-vs-actual"

// predictionFigure draws actual vs predicted r for each set, with y = x.
// The caption gives each set's MAE and count.
func predictionFigure(preds []train.Predictions, labels []string) Figure {
	f := Figure{Name: PredictionFigureName, Title: "Predicted vs actual r",
		Panels: []Panel{{XLabel: "actual r (h)", YLabel: "predicted r (h)"}}}
	lo, hi := math.Inf(1), math.Inf(-1)
	var parts []string
	raw := false
	for k, p := range preds {
		var mae float64
		var xs, ys []float64
		for i := range p.ActualH {
			a, q := p.ActualH[i], p.PredH[i]
			if !plottable(a) || !plottable(q) {
				continue
			}
			xs, ys = append(xs, a), append(ys, q)
			mae += math.Abs(q - a)
		}
		if n := len(p.ActualH); n > 0 {
			parts = append(parts, fmt.Sprintf("%s: MAE %.2f h over %d rows", labels[k], mae/float64(n), n))
		} else {
			parts = append(parts, fmt.Sprintf("%s: no labelled rows", labels[k]))
		}
		if len(xs) <= maxRawPredictions {
			raw = raw || len(xs) > 0
			r := Series{Kind: "points", Faint: true}
			for i := range xs {
				r.X, r.Y = append(r.X, round(xs[i])), append(r.Y, round(ys[i]))
			}
			f.Series = append(f.Series, r)
		}
		med, iqr := binnedMedians(xs, ys)
		med.Label, med.Style = labels[k], 1+k
		iqr.Style = 1 + k
		f.Series = append(f.Series, med, iqr)
		for i := range med.X {
			lo, hi = min(lo, med.X[i], iqr.Lo[i]), max(hi, med.X[i], iqr.Hi[i])
		}
	}
	if lo <= hi {
		f.Series = append(f.Series, Series{Label: "y = x", Kind: "curve", X: []float64{round(lo), round(hi)},
			Y: []float64{round(lo), round(hi)}})
	}
	f.Caption = fmt.Sprintf("Samples binned by actual r (r > 0: interruption, r < 0: overlap) into up to %d bins of equal width "+
		"between its 1st and 99th percentiles (the samples beyond go to the end bins): per bin, the median prediction "+
		"against the median actual r (line) and the interquartile range of the predictions (whiskers)", predictionBins)
	if raw {
		f.Caption += fmt.Sprintf("; with at most %d samples, each is drawn too (grey)", maxRawPredictions)
	}
	f.Caption += ". The line is y = x. " + strings.Join(parts, "; ") + "."
	return f
}

// predictionBins is the most bins of predictionFigure; maxRawPredictions
// the most samples per model it draws one by one.
const (
	predictionBins    = 24
	maxRawPredictions = 500
)

// binnedMedians bins (x, y) by x into up to predictionBins bins of equal
// width between x's 1st and 99th percentiles (at least 10 samples a bin
// on average) and returns, per non-empty bin, the median x and y as a
// line and y's quartiles as whiskers.
func binnedMedians(x, y []float64) (Series, Series) {
	med := Series{Kind: "line"}
	iqr := Series{Kind: "whiskers"}
	if len(x) == 0 {
		return med, iqr
	}
	sx := slices.Clone(x)
	slices.Sort(sx)
	lo, hi := quantile(sx, 0.01), quantile(sx, 0.99)
	nb := max(1, min(predictionBins, len(x)/10))
	width := (hi - lo) / float64(nb)
	bins := make([][2][]float64, nb)
	for i := range x {
		b := 0
		if width > 0 {
			b = min(max(int((x[i]-lo)/width), 0), nb-1)
		}
		bins[b][0], bins[b][1] = append(bins[b][0], x[i]), append(bins[b][1], y[i])
	}
	for _, b := range bins {
		if len(b[0]) == 0 {
			continue
		}
		slices.Sort(b[0])
		slices.Sort(b[1])
		mx, my := round(quantile(b[0], 0.5)), round(quantile(b[1], 0.5))
		med.X, med.Y = append(med.X, mx), append(med.Y, my)
		iqr.X, iqr.Y = append(iqr.X, mx), append(iqr.Y, my)
		iqr.Lo, iqr.Hi = append(iqr.Lo, round(quantile(b[1], 0.25))), append(iqr.Hi, round(quantile(b[1], 0.75)))
	}
	return med, iqr
}

// quantile is the q-quantile of sorted s (linear interpolation).
func quantile(s []float64, q float64) float64 {
	if len(s) == 1 {
		return s[0]
	}
	pos := q * float64(len(s)-1)
	i := int(pos)
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[i] + (pos-float64(i))*(s[i+1]-s[i])
}
