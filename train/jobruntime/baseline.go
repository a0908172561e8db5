package jobruntime

import (
	"fmt"
	"slices"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// Baseline names in Figures.Predictor.
const (
	BaselineLimit   = "limit"
	BaselineHistory = "user-history" // sim.PredictRunTimes
)

// HistoryBaseline returns sim.PredictRunTimes' prediction for every job
// (seconds, indexed like jobs): the mean ratio of its user's last two
// ended jobs times its limit, or the limit without history (and 0 for a
// job without Submit or limit). The jobs go through sim.FromTrace with
// default options, as features.Protocol.Prepare does.
func HistoryBaseline(jobs []trace.Job) ([]float64, error) {
	sj, _, err := sim.FromTrace(jobs, sim.FromTraceOptions{})
	if err != nil {
		return nil, err
	}
	sim.PredictRunTimes(sj, sim.RunTimeHistory{})
	// FromTrace keeps the jobs with a Submit, in a stable order of Submit.
	order := make([]int, 0, len(jobs))
	for i := range jobs {
		if !jobs[i].Submit.IsZero() {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return jobs[a].Submit.Compare(jobs[b].Submit) })
	if len(order) != len(sj) {
		return nil, fmt.Errorf("history baseline: %d jobs with a submit, sim.FromTrace kept %d", len(order), len(sj))
	}
	out := make([]float64, len(jobs))
	for k, i := range order {
		p := sj[k].PredRunSec
		if p == 0 {
			p = sj[k].LimitSec
		}
		out[i] = float64(p)
	}
	return out, nil
}
