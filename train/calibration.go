package train

import "math"

// Calibration says how well predicted probabilities of interruption
// (TargetInterrupt) match the observed frequencies: the Brier score, the
// log loss and a reliability curve.
type Calibration struct {
	Rows int `json:"rows"`
	// BaseRate is the share of rows with r > 0.
	BaseRate float64 `json:"base_rate"`
	// Brier is the mean squared difference between the probability and
	// the outcome (0 or 1); BrierBaseRate is the Brier score of always
	// predicting BaseRate (a skill reference).
	Brier         float64 `json:"brier"`
	BrierBaseRate float64 `json:"brier_base_rate"`
	// LogLoss is the mean negative log-likelihood (natural log), with
	// probabilities clipped to [1e-15, 1−1e-15].
	LogLoss float64 `json:"log_loss"`
	// Reliability is the curve over ReliabilityBins equal-width bins of
	// the predicted probability; empty bins are left out.
	Reliability []ReliabilityBin `json:"reliability"`
}

// ReliabilityBin is one bin of a reliability curve.
type ReliabilityBin struct {
	// Lo and Hi bound the predicted probabilities of the bin: [Lo, Hi),
	// the last bin [Lo, 1].
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	Rows int     `json:"rows"`
	// MeanPredicted is the mean predicted probability in the bin and
	// Observed the share of its rows with r > 0.
	MeanPredicted float64 `json:"mean_predicted"`
	Observed      float64 `json:"observed"`
}

// ReliabilityBins is the number of bins of a reliability curve.
const ReliabilityBins = 10

// Calibrate computes the Calibration of probabilities p against outcomes
// y (0 or 1), unweighted.
func Calibrate(y []float64, p []float32) Calibration {
	c := Calibration{Rows: len(y)}
	if len(y) == 0 {
		return c
	}
	type acc struct {
		n         int
		sumP, pos float64
	}
	bins := make([]acc, ReliabilityBins)
	for i, t := range y {
		q := float64(p[i])
		c.BaseRate += t
		c.Brier += (q - t) * (q - t)
		qc := min(max(q, 1e-15), 1-1e-15)
		c.LogLoss -= t*math.Log(qc) + (1-t)*math.Log(1-qc)
		b := min(max(int(q*ReliabilityBins), 0), ReliabilityBins-1)
		bins[b].n++
		bins[b].sumP += q
		bins[b].pos += t
	}
	n := float64(len(y))
	c.BaseRate /= n
	c.Brier /= n
	c.LogLoss /= n
	c.BrierBaseRate = c.BaseRate * (1 - c.BaseRate)
	for b, a := range bins {
		if a.n == 0 {
			continue
		}
		c.Reliability = append(c.Reliability, ReliabilityBin{
			Lo: float64(b) / ReliabilityBins, Hi: float64(b+1) / ReliabilityBins, Rows: a.n,
			MeanPredicted: a.sumP / float64(a.n), Observed: a.pos / float64(a.n),
		})
	}
	return c
}
