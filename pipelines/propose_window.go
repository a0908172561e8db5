package pipelines

import (
	"fmt"
	"time"

	"github.com/mirage-hpc/mirage/train"
)

// windowShape is a proposed window: warm-up, then workload.
type windowShape struct{ warmup, workload time.Duration }

func (w windowShape) length() time.Duration { return w.warmup + w.workload }

// proposeShapes are the windows Propose tries, longest first: the LS6
// study's (2 days of warm-up, 5 of workload), then the same proportions
// halved, quartered and eighthed for shorter traces. A shorter shape is
// used only when its workload is at least 1.25 times the chain's limit
// (the chain's jobs run within the replayed submissions).
var proposeShapes = []windowShape{
	{proposeWarmup, proposeWorkload},
	{proposeWarmup / 2, proposeWorkload / 2},
	{proposeWarmup / 4, proposeWorkload / 4},
	{proposeWarmup / 8, proposeWorkload / 8},
}

// windowPlan is where a proposed study's windows lie.
type windowPlan struct {
	shape                     windowShape
	start, trainEnd, valStart time.Time
	// train and val are the windows of each period within their budgets;
	// allTrain and allVal without them (every proposeStride).
	train, val, allTrain, allVal int
	trainStride, valStride       time.Duration
	// folds is the number of cross-validation folds the training windows
	// make, when the study needs them (wantFolds > 0); 0 otherwise.
	folds int
	// problem is why no shape fits ("" when one does); the plan is then
	// the default shape's, with the windows it has (possibly 0).
	problem string
}

// planWindows lays the windows of a study over a trace submitted from
// first to last: the first shape of proposeShapes that gives each period
// a window (and the training period wantFolds, or at least 2,
// time-blocked cross-validation folds one window apart, when wantFolds >
// 0) for a chain of limitSec seconds.
func planWindows(first, last time.Time, loc *time.Location, trainShare float64, limitSec int64, wantFolds int) windowPlan {
	span := last.Sub(first)
	var fallback windowPlan
	var why string
	for i, shape := range proposeShapes {
		if i > 0 && float64(shape.workload) < 1.25*float64(time.Duration(limitSec)*time.Second) {
			break
		}
		p := windowPlan{shape: shape}
		window := shape.length()
		p.trainEnd = first.Add(time.Duration(float64(span) * trainShare))
		// No training window overlaps a validation one; on the hour.
		p.valStart = p.trainEnd.Add(window).Truncate(time.Hour).Add(time.Hour)
		p.start = first.Add(24 * time.Hour).In(loc).Truncate(time.Hour) // a day in: the queue has filled
		p.allTrain, _ = proposePeriod(p.start, p.trainEnd, window, 1<<30)
		p.allVal, _ = proposePeriod(p.valStart, last, window, 1<<30)
		p.train, p.trainStride = proposePeriod(p.start, p.trainEnd, window, windowBudget(proposeTrainBudget, limitSec))
		p.val, p.valStride = proposePeriod(p.valStart, last, window, windowBudget(proposeValBudget, limitSec))
		if i == 0 {
			fallback = p
		}
		if p.train < 1 || p.val < 1 {
			why = fmt.Sprintf("too short for a %s window (%s warm-up, %s workload) in both periods (%d training, %d validation windows)",
				hoursText(window), hoursText(shape.warmup), hoursText(shape.workload), p.allTrain, p.allVal)
			continue
		}
		if wantFolds > 0 {
			for k := wantFolds; k >= 2 && p.folds == 0; k-- {
				if foldsFit(p.start, p.train, p.trainStride, window, k) {
					p.folds = k
				}
			}
			if p.folds == 0 {
				why = fmt.Sprintf("its %d training windows of %s every %s make no 2 cross-validation folds %s apart", p.train, hoursText(window), hoursText(p.trainStride), hoursText(window))
				continue
			}
		}
		return p
	}
	fallback.problem = fmt.Sprintf("the trace spans %s: %s, and no shorter window fits a %s chain", hoursText(span.Round(time.Hour)), why, durText(limitSec))
	return fallback
}

// foldsFit reports whether n windows every stride from start make k
// time-blocked folds with a gap of one window (checkFolds' test).
func foldsFit(start time.Time, n int, stride, window time.Duration, k int) bool {
	ids := make([]int32, n)
	starts := make([]int64, n)
	for i := range ids {
		ids[i], starts[i] = int32(i), start.Add(time.Duration(i)*stride).Unix()
	}
	_, err := train.BlockedFolds(ids, starts, k, int64(window/time.Second))
	return err == nil
}

// hoursText writes d as a study does ("168h", "4h30m").
func hoursText(d time.Duration) string { return durText(int64(d / time.Second)) }
