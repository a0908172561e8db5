package sim

// Slurm's --time-min (Job.TimeMinSec). The backfill pass plans a job that
// has one with its minimum limit. When that plan lets it start now, the
// job's limit is raised as high as it can go without delaying any
// reservation of the plan at that point (the higher-priority jobs planned
// before it in the pass, and the jobs started earlier in it): up to the
// first time its nodes are no longer free in the plan, never below its
// time-min and never above its LimitSec, and at LimitSec when nothing in
// the backfill window stops it. The limit is fixed once the job starts,
// and the job ends at min(run time, granted limit): a job whose trace run
// time is longer is killed at its granted limit (Job.RunSec is then what
// it would have run, not what it runs). This is the sched/backfill
// plugin's behaviour (it lowers the limit to time_min for the test,
// starts the job, then resets the limit to the earliest reservation its
// nodes overlap, floored at time_min), in node counts instead of node
// bitmaps and on the plan's resolution grid rather than whole minutes.
//
// The main pass (sched/builtin) starts a job with its full limit, as
// Slurm's main scheduler does outside advance reservations, which the
// simulator does not model. Slurm's SchedulerParameters
// time_min_as_soft_limit (the job is planned and started with its
// time-min but only killed at its --time) is not modelled.

// grant is the limit backfill started a job with a time-min under.
type grant struct {
	id       JobID
	limitSec int64
}

// grantSec returns the limit for a job of nodes nodes that the plan p
// (at now, without the job) lets start now with its time-min minSec: the
// time from now to the first time in the window at which fewer than
// nodes are free, within [minSec, limitSec]; limitSec when there is none.
func grantSec(p planner, now int64, nodes int, minSec, limitSec int64) int64 {
	at, ok := p.shortAt(nodes)
	if !ok {
		return limitSec
	}
	return min(max(at-now, minSec), limitSec)
}

// shortAt for the slot grid: the first slot with fewer than nodes free.
func (p *slotPlan) shortAt(nodes int) (int64, bool) {
	for k, f := range p.free {
		if f < nodes {
			return p.now + int64(k)*p.res, true
		}
	}
	return 0, false
}

// shortAt for the step list: the first step before the window's end with
// fewer than nodes free.
func (s *stepPlan) shortAt(nodes int) (int64, bool) {
	for k := 0; k < len(s.p.times) && s.p.times[k] < s.limitAt; k++ {
		if s.p.free[k] < nodes {
			return s.p.times[k], true
		}
	}
	return 0, false
}

// Limit returns the time limit (seconds) a started job runs under: its
// LimitSec, or the limit backfill granted it when it has a time-min
// (Job.TimeMinSec); false when it has not started.
func (s *Sim) Limit(id JobID) (int64, bool) {
	if _, ok := s.Started(id); !ok {
		return 0, false
	}
	if s.jobs[id].timeMin > 0 {
		for i := len(s.granted) - 1; i >= 0; i-- {
			if s.granted[i].id == id {
				return s.granted[i].limitSec, true
			}
		}
	}
	return s.jobs[id].LimitSec, true
}
