package jobruntime

import (
	"math"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/trace"
)

// historyFeatures are the History columns, in Features' order.
var historyFeatures = []features.Feature{
	{Name: "user_prev_jobs", Unit: "jobs"},
	{Name: "user_ratio_median", Unit: "ratio"},
	{Name: "user_ratio_std", Unit: "ratio"},
	{Name: "user_ratio_mean2", Unit: "ratio"},
	{Name: "user_ratio_last", Unit: "ratio"},
	{Name: "user_at_limit_share", Unit: "share"},
	{Name: "user_run_median_log10s", Unit: "log10 s"},
	{Name: "user_limit_median_log10s", Unit: "log10 s"},
	{Name: "name_ratio_median", Unit: "ratio"},
	{Name: "name_prev_jobs", Unit: "jobs"},
	{Name: "since_user_last_end_log10s", Unit: "log10 s"},
	{Name: "user_running_jobs", Unit: "jobs"},
}

// staticFeatures are the job's own request and submission time.
var staticFeatures = []features.Feature{
	{Name: "limit_s", Unit: "s"},
	{Name: "limit_vs_user_log10", Unit: "log10 ratio"},
	{Name: "nodes", Unit: "nodes"},
	{Name: "cpus", Unit: "cpus"},
	{Name: "gpus", Unit: "gpus"},
	{Name: "submit_hour", Unit: "hour"},
	{Name: "submit_weekday", Unit: "day"},
}

// Features returns the model's ordered feature list: the history
// columns, the static columns, then a ratio and a row count per
// EncodedKeys element ("te_name_ratio", "te_name_rows", ...). Hours and
// weekdays (0 = Sunday) are in the model's zone.
func Features() []features.Feature {
	out := append([]features.Feature(nil), historyFeatures...)
	out = append(out, staticFeatures...)
	for _, k := range EncodedKeys {
		out = append(out, features.Feature{Name: "te_" + k + "_ratio", Unit: "ratio"},
			features.Feature{Name: "te_" + k + "_rows", Unit: "rows"})
	}
	return out
}

// FeatureNames returns the names of Features in order.
func FeatureNames() []string {
	fs := Features()
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

// Matrix is a column-major design matrix: Cols[f][i] is feature f of
// row i, in FeatureNames' order; NaN is missing.
type Matrix struct {
	Cols [][]float64
}

// Rows returns the number of rows.
func (m *Matrix) Rows() int {
	if len(m.Cols) == 0 {
		return 0
	}
	return len(m.Cols[0])
}

// base is the part of the design matrix that does not depend on the
// target encoding: the History and static columns of every job.
type base struct {
	cols [][]float64 // len(historyFeatures)+len(staticFeatures) columns over all jobs
}

func newBase(jobs []trace.Job, h *History, loc *time.Location) *base {
	n := len(jobs)
	b := &base{cols: [][]float64{
		h.UserPrevJobs, h.UserRatioMedian, h.UserRatioStd, h.UserRatioMean2, h.UserRatioLast, h.UserAtLimitShare,
		h.UserRunMedianLog10, h.UserLimitMedianLog10, h.NameRatioMedian, h.NamePrevJobs, h.SinceLastEndLog10, h.UserRunning,
	}}
	st := make([][]float64, len(staticFeatures))
	for f := range st {
		st[f] = make([]float64, n)
	}
	for i := range jobs {
		j := &jobs[i]
		lim := math.NaN()
		if j.TimelimitSec != trace.NoLimit && j.TimelimitSec > 0 {
			lim = float64(j.TimelimitSec)
		}
		st[0][i] = lim
		st[1][i] = math.Log10(lim) - h.UserLimitMedianLog10[i]
		st[2][i] = float64(max(1, j.NNodes))
		st[3][i] = float64(j.NCPUs)
		st[4][i] = float64(j.NGPUs)
		st[5][i], st[6][i] = math.NaN(), math.NaN()
		if !j.Submit.IsZero() {
			st[5][i], st[6][i] = hourWeekday(j.Submit, loc)
		}
	}
	b.cols = append(b.cols, st...)
	return b
}

// matrix returns the design matrix of jobs[rows] with enc's columns.
func (b *base) matrix(jobs []trace.Job, rows []int, enc *Encoding) *Matrix {
	nk := len(EncodedKeys)
	m := &Matrix{Cols: make([][]float64, 0, len(b.cols)+2*nk)}
	for _, c := range b.cols {
		col := make([]float64, len(rows))
		for i, r := range rows {
			col[i] = c[r]
		}
		m.Cols = append(m.Cols, col)
	}
	ratio, count := make([][]float64, nk), make([][]float64, nk)
	for k := range nk {
		ratio[k], count[k] = make([]float64, len(rows)), make([]float64, len(rows))
	}
	enc.Apply(ratio, count, jobs, rows)
	for k := range nk {
		m.Cols = append(m.Cols, ratio[k], count[k])
	}
	return m
}

// oofMatrix returns the design matrix of the training rows with their
// target encoding fitted out of fold: rows (in Submit order) are cut into
// blocks contiguous blocks and each block is encoded by the others. y[i]
// is the ratio of rows[i].
func (b *base) oofMatrix(jobs []trace.Job, rows []int, y []float64, blocks int, smoothing float64) *Matrix {
	m := b.matrix(jobs, rows, FitEncoding(jobs, nil, nil, smoothing)) // encoding columns overwritten below
	nb := len(b.cols)
	n := len(rows)
	blocks = max(1, min(blocks, n))
	for k := range blocks {
		lo, hi := k*n/blocks, (k+1)*n/blocks
		var fitRows []int
		var fitY []float64
		fitRows = append(append(fitRows, rows[:lo]...), rows[hi:]...)
		fitY = append(append(fitY, y[:lo]...), y[hi:]...)
		if blocks == 1 {
			fitRows, fitY = rows, y
		}
		enc := FitEncoding(jobs, fitRows, fitY, smoothing)
		nk := len(EncodedKeys)
		ratio, count := make([][]float64, nk), make([][]float64, nk)
		for e := range nk {
			ratio[e], count[e] = m.Cols[nb+2*e][lo:hi], m.Cols[nb+2*e+1][lo:hi]
		}
		enc.Apply(ratio, count, jobs, rows[lo:hi])
	}
	return m
}
