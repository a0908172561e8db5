package jobruntime

import (
	"math"
)

// MinRunSec is the floor applied to real and predicted run times (s)
// before the within-2× test, so a job that failed in its first seconds is
// not judged by a ratio of seconds.
const MinRunSec = 60

// Figures are one predictor's run-time figures on a set of jobs.
type Figures struct {
	Predictor string `json:"predictor"`
	Jobs      int    `json:"jobs"`
	// MAEH is the mean absolute error of the point prediction (the median
	// for a quantile model) of the run time, hours.
	MAEH float64 `json:"mae_h"`
	// Within2x is the share of jobs whose point prediction is within a
	// factor 2 of the real run time, both floored at MinRunSec.
	Within2x float64 `json:"within_2x"`
	// Coverage is the share of jobs whose real run time is at or below the
	// predicted 10, 50 and 90 % quantiles (ideally 0.1, 0.5, 0.9), with a
	// real run time on a point mass of the prediction (0 s, or the limit)
	// counted by the share of its mass below the level (covered). A point
	// predictor (PointOnly) uses its point for all three.
	Coverage  [3]float64 `json:"coverage_10_50_90"`
	PointOnly bool       `json:"point_only,omitempty"`
	// RawCoverage is the plain share of jobs whose real run time is at or
	// below each predicted quantile (at least Coverage: a job that ran 0 s
	// is below every quantile).
	RawCoverage [3]float64 `json:"raw_coverage_10_50_90"`
	// CalibrationError is the mean |coverage(q) - q| over
	// CalibrationLevels (quantile models only).
	CalibrationError float64 `json:"calibration_error,omitempty"`
	// PinballH is the mean pinball (quantile) loss over the levels 10, 50
	// and 90 %, hours (quantile models only).
	PinballH float64 `json:"pinball_h,omitempty"`
	// Curve is the coverage at each CalibrationLevels level.
	Curve []CoveragePoint `json:"calibration_curve,omitempty"`
}

// CoveragePoint is the observed coverage of one nominal level.
type CoveragePoint struct {
	Level    float64 `json:"level"`
	Observed float64 `json:"observed"`
}

// scorePoint returns the figures of point predictions predSec against
// the real run times runSec (seconds).
func scorePoint(name string, runSec, predSec []float64) Figures {
	f := Figures{Predictor: name, Jobs: len(runSec), PointOnly: true}
	if len(runSec) == 0 {
		return f
	}
	var ae float64
	var in2, below int
	for i, y := range runSec {
		p := predSec[i]
		ae += math.Abs(p - y)
		if within2x(p, y) {
			in2++
		}
		if y <= p {
			below++
		}
	}
	n := float64(len(runSec))
	f.MAEH, f.Within2x = ae/n/3600, float64(in2)/n
	c := float64(below) / n
	f.Coverage, f.RawCoverage = [3]float64{c, c, c}, [3]float64{c, c, c}
	return f
}

func within2x(p, y float64) bool {
	p, y = max(p, MinRunSec), max(y, MinRunSec)
	return p <= 2*y && y <= 2*p
}

// scoreDist returns the figures of the bin distributions pmf (row-major,
// len(runSec) x bins) against the real run times runSec with limits
// limitSec (seconds).
func scoreDist(name string, edges []float64, pmf []float32, runSec, limitSec []float64) Figures {
	nb := len(edges) - 1
	f := Figures{Predictor: name, Jobs: len(runSec)}
	if len(runSec) == 0 {
		return f
	}
	below := make([]float64, len(CalibrationLevels))
	var ae, pin float64
	var in2 int
	var cov, raw [3]float64
	for i, y := range runSec {
		p := pmf[i*nb : (i+1)*nb]
		lim := limitSec[i]
		lo, hi := cdfAt(edges, p, y/lim)
		for l, q := range CalibrationLevels {
			below[l] += covered(lo, hi, q)
		}
		for l, q := range Levels {
			qs := quantile(edges, p, q) * lim
			cov[l] += covered(lo, hi, q)
			if y <= qs {
				raw[l]++
			}
			pin += pinball(y-qs, q)
			if l == 1 {
				ae += math.Abs(qs - y)
				if within2x(qs, y) {
					in2++
				}
			}
		}
	}
	n := float64(len(runSec))
	f.MAEH, f.Within2x = ae/n/3600, float64(in2)/n
	for l := range cov {
		f.Coverage[l], f.RawCoverage[l] = cov[l]/n, raw[l]/n
	}
	f.PinballH = pin / n / float64(len(Levels)) / 3600
	for l, q := range CalibrationLevels {
		o := below[l] / n
		f.Curve = append(f.Curve, CoveragePoint{Level: q, Observed: o})
		f.CalibrationError += math.Abs(o - q)
	}
	f.CalibrationError /= float64(len(CalibrationLevels))
	return f
}

// pinball is the quantile loss of residual r = real - predicted at level q.
func pinball(r, q float64) float64 {
	if r >= 0 {
		return q * r
	}
	return (q - 1) * r
}
