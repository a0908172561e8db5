package features

import "github.com/mirage-hpc/mirage/sim"

// SubmitSuccessor submits q on the main timeline at its clock (the time
// the last Advance left it at; q.Submit is set to it) and makes it the
// chain's new P, the predecessor the features and QOutcome then describe:
// the next link of a service that runs several links in a row (evaluate's
// lifetimes). Q's template is unchanged. It returns q's job ID.
func (t *Timeline) SubmitSuccessor(q sim.Job) (sim.JobID, error) {
	q.Submit = t.wr.s.Now()
	id, err := t.wr.s.Submit(q)
	if err != nil {
		return sim.NoJob, err
	}
	t.wr.pid, t.wr.p = id, t.wr.s.Job(id)
	return id, nil
}

// GrantP sets the limit the chain's P runs under, seconds: the one
// backfill granted a P submitted with a --time-min (sim.Sim.Limit). P's
// LimitSec and RunSec, as the features, QOutcome and P() see them, are
// then at most limitSec (the job ends at its run time or its granted
// limit, whichever is first); the simulation's job is unchanged. A
// limitSec <= 0 changes nothing.
func (t *Timeline) GrantP(limitSec int64) {
	if limitSec <= 0 {
		return
	}
	t.wr.p.LimitSec = min(t.wr.p.LimitSec, limitSec)
	t.wr.p.RunSec = min(t.wr.p.RunSec, limitSec)
}
