package reports

import (
	"fmt"
	"math"
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
	for k, p := range preds {
		s := Series{Label: labels[k], Kind: "points", Style: 1 + k}
		var mae float64
		for i := range p.ActualH {
			a, q := p.ActualH[i], p.PredH[i]
			s.X, s.Y = append(s.X, round(a)), append(s.Y, round(q))
			mae += math.Abs(q - a)
			lo, hi = min(lo, a, q), max(hi, a, q)
		}
		if n := len(p.ActualH); n > 0 {
			parts = append(parts, fmt.Sprintf("%s: MAE %.2f h over %d rows", labels[k], mae/float64(n), n))
		} else {
			parts = append(parts, fmt.Sprintf("%s: no labelled rows", labels[k]))
		}
		f.Series = append(f.Series, s)
	}
	if lo <= hi {
		f.Series = append(f.Series, Series{Label: "y = x", Kind: "curve", X: []float64{round(lo), round(hi)},
			Y: []float64{round(lo), round(hi)}})
	}
	f.Caption = "One point per sample (r > 0: interruption, r < 0: overlap); the line is y = x. " +
		strings.Join(parts, "; ") + "."
	return f
}
