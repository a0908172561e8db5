package features

import (
	"fmt"

	"github.com/mirage-hpc/mirage/sim"
)

// ModelEstimateName is the optional feature column of a learned run-time
// model (Options.RunTimes): the scheduler's estimate of Q's start if
// submitted now, planned with the model's median run times of the
// running and pending jobs (sim.Sim.EstimatedStartWith; P and Q with their
// limits), minus P's expected end, in seconds. When Q fits nowhere in the
// backfill window it is the window's end minus P's expected end, as for
// q_est_rt_start_minus_p_end_sec. It comes after the NumFeatures columns
// of Names and only with Options.RunTimes, so samples built without a
// run-time model are unchanged.
const ModelEstimateName = "q_est_model_start_minus_p_end_sec"

// ModelEstimateUnit is ModelEstimateName's unit.
const ModelEstimateUnit = "s"

// RunTimes are a learned run-time model's predicted median run times of a
// trace's jobs, for the ModelEstimateName column. They are read-only once
// built.
type RunTimes struct {
	// Dir is the run-time model's directory and SHA256 its model file's
	// digest (hex); both are recorded in the samples' metadata
	// (FileMeta.RunTimes) and in the models trained on them.
	Dir, SHA256 string
	// MedianSec[i] is the predicted median run time, seconds, of job i of
	// the jobs given to Build or NewTimeline, from what was known at its
	// submission; 0, or an index beyond its length, means none (the
	// planner uses the job's limit).
	MedianSec []int64
}

// Local returns medianSec re-indexed by a window's job IDs: job k of the
// window is job idx[k] of the trace (sim.NewWindow's index,
// Timeline.JobIndex). Jobs submitted later (P, Q) are beyond it and have
// no prediction.
func Local(medianSec []int64, idx []int) []int64 {
	out := make([]int64, len(idx))
	for k, i := range idx {
		if i < len(medianSec) {
			out[k] = medianSec[i]
		}
	}
	return out
}

// ModelEstimateR returns the ModelEstimateName column at s.Now() (the
// decision time; s is only read): Q (q, its Submit set to Now) planned by
// s.EstimatedStartWith with localMedianSec (indexed by s's job IDs, see
// Local), minus P's expected end (P's start plus its limit, or Now plus
// its limit while P, job pid of s, is pending), seconds.
func ModelEstimateR(s *sim.Sim, pid sim.JobID, p, q sim.Job, localMedianSec []int64) float64 {
	now := s.Now()
	q.Submit = now
	pEnd := expectedPEnd(s, pid, p, now)
	if est, ok := s.EstimatedStartWith(q, localMedianSec); ok {
		return float64(est - pEnd)
	}
	return float64(now + s.Config().Backfill.WindowSec - pEnd)
}

// expectedPEnd is P's end as a live provisioner knows it at now: its
// start plus its limit, or now plus its limit while it pends.
func expectedPEnd(s *sim.Sim, pid sim.JobID, p sim.Job, now int64) int64 {
	if start, ok := s.Started(pid); ok {
		return start + p.LimitSec
	}
	return now + p.LimitSec
}

// FeatureNames returns the feature columns Build writes with o: Names,
// then WideNames when o.Wide is set, then ModelEstimateName when
// o.RunTimes is set.
func (o *Options) FeatureNames() []string { return ColumnNames(o.Wide, o.RunTimes != nil) }

// ColumnNames returns the feature columns of samples built with or
// without the wide columns and the run-time model's: Names, then
// WideNames when wide, then ModelEstimateName when runTimes.
func ColumnNames(wide, runTimes bool) []string {
	n := Names()
	if wide {
		n = append(n, WideNames()...)
	}
	if runTimes {
		n = append(n, ModelEstimateName)
	}
	return n
}

// width is the length of a feature row under o.
func (o *Options) width() int { return len(o.FeatureNames()) }

// checkRunTimes validates o.RunTimes against the jobs given to Build.
func (o *Options) checkRunTimes(jobs int) error {
	if o.RunTimes == nil {
		return nil
	}
	if len(o.RunTimes.MedianSec) != jobs {
		return fmt.Errorf("%w: run-time medians of %d jobs for %d jobs", ErrOptions, len(o.RunTimes.MedianSec), jobs)
	}
	return nil
}
