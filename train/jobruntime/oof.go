package jobruntime

import "github.com/mirage-hpc/mirage/trace"

// DefaultEncodingBlocks is the number of time blocks of the out-of-fold
// target encoding (Options.EncodingBlocks' default).
const DefaultEncodingBlocks = 5

// DistributionOOF is Distribution, except that the jobs the model was
// fitted on (labelled, submitted in Manifest.TrainPeriod and ended by its
// end) get their target encodings fitted out of fold, in blocks time
// blocks (0: DefaultEncodingBlocks), as the booster saw them at training:
// no such job's prediction includes its own run time through an encoding.
// The booster was still fitted on those jobs, so their predictions stay
// in-sample (mildly optimistic); jobs outside the period are as in
// Distribution.
func (m *Model) DistributionOOF(jobs []trace.Job, blocks int) ([]float32, []bool) {
	pmf, ok := m.Distribution(jobs)
	if blocks <= 0 {
		blocks = DefaultEncodingBlocks
	}
	tp := m.Manifest.TrainPeriod
	tr := selectRows(jobs, tp[0], tp[1], tp[1], m.Manifest.Edges)
	if len(tr.rows) == 0 {
		return pmf, ok
	}
	h := BuildHistory(jobs, m.Manifest.History)
	b := newBase(jobs, h, m.loc)
	x := b.oofMatrix(jobs, tr.rows, tr.ratio, blocks, m.Manifest.Smoothing)
	nb := len(m.Manifest.Edges) - 1
	row := make([]float32, len(x.Cols))
	cdf := make([]float64, len(m.heads))
	for r, i := range tr.rows {
		if !ok[i] {
			continue
		}
		m.predictRow(pmf[i*nb:(i+1)*nb], x, r, row, cdf)
	}
	return pmf, ok
}

// CDFAt returns the distribution p's (over the bins of edges, as
// Distribution gives it) CDF just below ratio y, F(y−), in [0, 1].
func CDFAt(edges []float64, p []float32, y float64) float64 {
	lo, _ := cdfAt(edges, p, y)
	return lo
}

// Quantile returns the ratio at level q in [0, 1] of the distribution p
// over the bins of edges: log-uniform within a bin, the first bin a point
// mass at 0 and the last a point mass at 1.
func Quantile(edges []float64, p []float32, q float64) float64 {
	return quantile(edges, p, q)
}
