package jobruntime

import (
	"time"

	"github.com/mirage-hpc/mirage/trace"
	"github.com/mirage-hpc/mirage/train/xgbjson"
)

// Model is a loaded run-time model (Open); prediction is pure Go and safe
// for concurrent use.
type Model struct {
	Manifest Manifest
	Encoding *Encoding
	approach Approach
	loc      *time.Location
	softprob *xgbjson.MultiModel
	heads    []*xgbjson.Model
}

// Quantiles are one job's predicted run time at the levels 10, 50 and 90 %
// (seconds, within [0, limit]). OK is false for a job that cannot be
// predicted (no Submit or no finite limit); its quantiles are then 0.
type Quantiles struct {
	P10Sec float64 `json:"p10_s"`
	P50Sec float64 `json:"p50_s"`
	P90Sec float64 `json:"p90_s"`
	OK     bool    `json:"ok"`
}

// Predict returns the run-time quantiles of every job (indexed like jobs)
// under model m, from what is known at each job's submission: the history
// features use only jobs of the slice that ended at or before it, so pass
// the trace up to the present (running jobs without an End contribute
// nothing but their count). The target encodings are the training
// period's: for a job of that period they include its own label, so
// predictions of training jobs are optimistic (out-of-fold figures are
// in metrics.json).
func Predict(jobs []trace.Job, m *Model) []Quantiles {
	pmf, ok := m.Distribution(jobs)
	nb := len(m.Manifest.Edges) - 1
	out := make([]Quantiles, len(jobs))
	for i := range jobs {
		if !ok[i] {
			continue
		}
		p := pmf[i*nb : (i+1)*nb]
		lim := float64(jobs[i].TimelimitSec)
		out[i] = Quantiles{
			P10Sec: quantile(m.Manifest.Edges, p, Levels[0]) * lim,
			P50Sec: quantile(m.Manifest.Edges, p, Levels[1]) * lim,
			P90Sec: quantile(m.Manifest.Edges, p, Levels[2]) * lim,
			OK:     true,
		}
	}
	return out
}

// Distribution returns every job's probabilities over the ratio bins
// (Manifest.Edges), row-major (len(jobs) x bins), and whether the job
// could be predicted (see Quantiles.OK; its row is then zero). A sampler
// conditioned on elapsed time can draw from it: bins are uniform within,
// and the last is a point mass at ratio 1.
func (m *Model) Distribution(jobs []trace.Job) ([]float32, []bool) {
	rows := make([]int, len(jobs))
	for i := range rows {
		rows[i] = i
	}
	return m.DistributionOf(jobs, rows)
}

// DistributionOf is Distribution for the jobs jobs[rows[k]] only: row k
// of the result (len(rows) x bins) and ok[k] are job rows[k]'s, the same
// values Distribution gives it. The history features still come from all
// of jobs, so pass the trace up to the present (a live queue: the jobs of
// the accounting history and the queue) and predict only the jobs needed.
func (m *Model) DistributionOf(jobs []trace.Job, rows []int) ([]float32, []bool) {
	h := BuildHistory(jobs, m.Manifest.History)
	b := newBase(jobs, h, m.loc)
	pred := make([]int, 0, len(rows)) // the predictable jobs' indices in jobs
	at := make([]int, 0, len(rows))   // and in rows
	ok := make([]bool, len(rows))
	for k, i := range rows {
		j := &jobs[i]
		if !j.Submit.IsZero() && j.TimelimitSec != trace.NoLimit && j.TimelimitSec > 0 {
			pred = append(pred, i)
			at = append(at, k)
			ok[k] = true
		}
	}
	x := b.matrix(jobs, pred, m.Encoding)
	nb := len(m.Manifest.Edges) - 1
	out := make([]float32, len(rows)*nb)
	row := make([]float32, len(x.Cols))
	cdf := make([]float64, len(m.heads))
	for r, k := range at {
		m.predictRow(out[k*nb:(k+1)*nb], x, r, row, cdf)
	}
	return out, ok
}

// predictRow writes the distribution over the ratio bins of row r of x
// into dst (one value per bin); row and cdf are scratch space of
// len(x.Cols) and one value per head.
func (m *Model) predictRow(dst []float32, x *Matrix, r int, row []float32, cdf []float64) {
	for f := range x.Cols {
		row[f] = float32(x.Cols[f][r])
	}
	if m.approach == ApproachSoftprob {
		m.softprob.Predict(dst, row)
		return
	}
	for k, hd := range m.heads {
		cdf[k] = float64(hd.Predict(row))
	}
	copy(dst, pmfFromCDF(cdf))
}
