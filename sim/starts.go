package sim

import (
	"context"
	"fmt"
	"slices"
)

// StartEstimate is what the planner says of a job at its submission, the
// way `squeue --start` would, and what then happened.
type StartEstimate struct {
	Job JobID
	// Limits is EstimatedStart at the job's submission (Unix seconds),
	// planning running and pending jobs with their time limits; Pred is
	// EstimatedStartPredicted, with their predicted run times
	// (Job.PredRunSec). LimitsOK and PredOK are false when the job fits
	// nowhere in the backfill window (the times are then 0).
	Limits, Pred     int64
	LimitsOK, PredOK bool
	// Replay is the job's start in the replay (with true run times,
	// which no estimate knows), -1 when it never started.
	Replay int64
	// Extra is EstimateStartsWith's extra prediction (Unix seconds),
	// ExtraOK false when it gave none.
	Extra   int64
	ExtraOK bool
}

// ExtraStart predicts job id's start at its submission from the
// simulation s just before it (s must only be read or cloned).
type ExtraStart func(ctx context.Context, s *Sim, id JobID) (int64, bool, error)

// EstimateStarts replays jobs under cfg and, for each job submitted in
// [from, to) (Unix seconds; to 0 = no end), asks the planner at its
// submission, just before that second's events (RunBefore): the estimate
// with time limits and with predicted run times. Jobs that never run
// (Job.Cancel > 0 under CancelLeave) are left out. The result is ordered
// by submission, then JobID. Only Job.PredRunSec of jobs other than the
// one asked about matter for Pred: the job itself is planned with its
// limit.
func EstimateStarts(ctx context.Context, cfg Config, jobs []Job, from, to int64) ([]StartEstimate, error) {
	return EstimateStartsWith(ctx, cfg, jobs, from, to, nil)
}

// EstimateStartsWith is EstimateStarts with an extra predictor asked at
// the same moments (nil: none).
func EstimateStartsWith(ctx context.Context, cfg Config, jobs []Job, from, to int64, extra ExtraStart) ([]StartEstimate, error) {
	var ids []JobID
	for i := range jobs {
		j := &jobs[i]
		if j.Submit < from || to != 0 && j.Submit >= to || j.Cancel > 0 && cfg.Cancelled == CancelLeave {
			continue
		}
		ids = append(ids, JobID(i))
	}
	slices.SortFunc(ids, func(a, b JobID) int {
		if c := cmpInt64(jobs[a].Submit, jobs[b].Submit); c != 0 {
			return c
		}
		return cmpInt64(int64(a), int64(b))
	})
	rec := &startRecorder{starts: make([]int64, len(jobs))}
	for i := range rec.starts {
		rec.starts[i] = -1
	}
	s, err := New(cfg, jobs, rec)
	if err != nil {
		return nil, fmt.Errorf("estimate starts: %w", err)
	}
	out := make([]StartEstimate, len(ids))
	for k, id := range ids {
		if err := s.RunBefore(ctx, jobs[id].Submit); err != nil {
			return nil, fmt.Errorf("estimate starts: %w", err)
		}
		e := &out[k]
		e.Job = id
		e.Limits, e.LimitsOK = s.EstimatedStart(jobs[id])
		e.Pred, e.PredOK = s.EstimatedStartPredicted(jobs[id])
		if extra != nil {
			at, ok, err := extra(ctx, s, id)
			if err != nil {
				return nil, fmt.Errorf("estimate starts: job %s: %w", jobs[id].Name, err)
			}
			e.Extra, e.ExtraOK = at, ok
		}
	}
	if err := s.Run(ctx); err != nil {
		return nil, fmt.Errorf("estimate starts: %w", err)
	}
	for k := range out {
		out[k].Replay = rec.starts[out[k].Job]
	}
	return out, nil
}

// StartAccuracy scores start-time predictions against real starts.
type StartAccuracy struct {
	// Jobs is the number of jobs scored; NoEstimate of them got none (the
	// predictor said the job fits nowhere in its window): they count as
	// misses in the shares and are left out of the errors.
	Jobs       int `json:"jobs"`
	NoEstimate int `json:"no_estimate"`
	// Within1Min and Within10Min are the shares of Jobs whose predicted
	// start is within 60 s and 600 s of the real one; Within2x the share
	// whose predicted wait is within a factor of 2 of the real wait (both
	// floored at 60 s, so waits under a minute agree).
	Within1Min  float64 `json:"within_1min"`
	Within10Min float64 `json:"within_10min"`
	Within2x    float64 `json:"within_2x"`
	// MAESec and MedianAbsErrSec are the mean and median |predicted −
	// real start| in seconds; BiasSec the mean (predicted − real), > 0
	// when the predictor says later than it happens.
	MAESec          float64 `json:"mae_sec"`
	MedianAbsErrSec float64 `json:"median_abs_err_sec"`
	BiasSec         float64 `json:"bias_sec"`
}

// ScoreStarts scores predicted starts (ok false: no estimate) against
// real ones, for jobs submitted at submit (all Unix seconds, same
// length).
func ScoreStarts(submit, real, predicted []int64, ok []bool) StartAccuracy {
	a := StartAccuracy{Jobs: len(real)}
	if a.Jobs == 0 {
		return a
	}
	var errs []float64
	var in1, in10, in2x int
	sum, bias := 0.0, 0.0
	for i := range real {
		if !ok[i] {
			a.NoEstimate++
			continue
		}
		d := predicted[i] - real[i]
		ad := max(d, -d)
		errs = append(errs, float64(ad))
		sum += float64(ad)
		bias += float64(d)
		if ad <= 60 {
			in1++
		}
		if ad <= 600 {
			in10++
		}
		pw, rw := max(predicted[i]-submit[i], 60), max(real[i]-submit[i], 60)
		if pw <= 2*rw && rw <= 2*pw {
			in2x++
		}
	}
	n := float64(a.Jobs)
	a.Within1Min, a.Within10Min, a.Within2x = float64(in1)/n, float64(in10)/n, float64(in2x)/n
	if len(errs) > 0 {
		a.MAESec, a.BiasSec = sum/float64(len(errs)), bias/float64(len(errs))
		slices.Sort(errs)
		m := len(errs) / 2
		a.MedianAbsErrSec = errs[m]
		if len(errs)%2 == 0 {
			a.MedianAbsErrSec = (errs[m-1] + errs[m]) / 2
		}
	}
	return a
}
