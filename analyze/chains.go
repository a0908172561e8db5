package analyze

import (
	"strconv"

	"github.com/mirage-hpc/mirage/trace"
)

// chainJob is one job of a chain, or a job that may become a chain's
// predecessor (it ran to its limit). Times are Unix seconds.
type chainJob struct {
	row                       int64 // 0-indexed row in the trace file
	jobID                     string
	submit, start, end, limit int64
	nodes                     int32
	chain                     int32 // index into detector.chains; -1 when in none
	state                     trace.State
	hasSucc                   bool
	byShape                   bool // linked to its predecessor by shape, not name
}

// runSec returns the job's run time in seconds.
func (j *chainJob) runSec() int64 { return j.end - j.start }

// matchedBy says how the job was linked to its predecessor.
func (j *chainJob) matchedBy() string {
	if j.byShape {
		return "shape"
	}
	return "name"
}

// chain is one detected service chain.
type chain struct {
	user, account, name string
	jobs                []*chainJob
}

// detector finds service chains while the trace streams by (see
// README.md, "Service chains"). Predecessor candidates are kept per key
// until no later submission can link to them.
type detector struct {
	o          ChainOptions
	cands      map[string][]*chainJob
	chains     []*chain
	lastSubmit int64
	rows       int64
	// Jobs held for a dependency (Reason Dependency), and how many of them
	// were linked as successors: the check against --dependency chains.
	depJobs, depLinked int64
}

func newDetector(o ChainOptions) *detector {
	return &detector{o: o, cands: map[string][]*chainJob{}}
}

// ranToLimit reports whether a job of run time rt and limit lim (seconds;
// <= 0 unknown) in state st ran to (near) its limit: TIMEOUT, or rt >=
// lim - min(LimitSlackSec, lim/10).
func (d *detector) ranToLimit(st trace.State, rt, lim int64) bool {
	if st == trace.StateTimeout {
		return true
	}
	return lim > 0 && rt >= lim-min(d.o.LimitSlackSec, lim/10)
}

// keys returns job j's name and shape keys ("" when not matched that way).
func (d *detector) keys(j *trace.Job, user string) (name, shape string) {
	if d.o.MatchName && j.JobName != "" {
		name = "n\x00" + user + "\x00" + j.JobName
	}
	if d.o.MatchShape {
		shape = "s\x00" + user + "\x00" + j.Account + "\x00" + strconv.Itoa(int(j.NNodes)) + "\x00" + strconv.FormatInt(j.TimelimitSec, 10)
	}
	return name, shape
}

// add looks at the job of row row (rows come in Submit order).
func (d *detector) add(j *trace.Job, row int64, user string) {
	d.rows++
	if d.rows%(1<<18) == 0 {
		d.prune()
	}
	linked := false
	defer func() {
		if j.Reason == "Dependency" {
			d.depJobs++
			if linked {
				d.depLinked++
			}
		}
	}()
	if user == "" || j.StartUnknown || j.Start.IsZero() || j.End.IsZero() || j.Submit.IsZero() || j.NeverStarted() {
		return
	}
	q := &chainJob{row: row, jobID: j.JobID, state: j.State, submit: j.Submit.Unix(), start: j.Start.Unix(),
		end: j.End.Unix(), limit: j.TimelimitSec, nodes: j.NNodes, chain: -1}
	d.lastSubmit = q.submit
	nk, sk := d.keys(j, user)
	for _, k := range []struct{ key, by string }{{nk, "name"}, {sk, "shape"}} {
		if k.key == "" {
			continue
		}
		if p := d.best(k.key, q); p != nil {
			d.link(p, q, k.by, user, j)
			linked = true
			break
		}
	}
	if d.ranToLimit(q.state, q.runSec(), q.limit) {
		for _, k := range []string{nk, sk} {
			if k != "" {
				d.cands[k] = append(d.cands[k], q)
			}
		}
	}
}

// best returns the predecessor candidate under key that q continues,
// nil when none: not yet continued, started before q, ended at most
// MaxOverlapSec after q's start and at most MaxSubmitAfterEndSec before
// q's submission, and, when q was submitted before it started, ended
// before q started (a dependency chain queued at once, not a sweep); of several, the one whose end is closest to q's start
// (the earlier on ties). Expired candidates are dropped.
func (d *detector) best(key string, q *chainJob) *chainJob {
	list := d.cands[key]
	var best *chainJob
	var bestGap int64
	kept := list[:0]
	for _, p := range list {
		if p.end+d.o.MaxSubmitAfterEndSec < q.submit {
			continue // expired: no later submission can link to it
		}
		kept = append(kept, p)
		if p.hasSucc || p == q || q.start <= p.start || q.start < p.end-d.o.MaxOverlapSec {
			continue
		}
		if q.submit < p.start && q.start < p.end {
			continue // queued before P ran and ran beside it: a sweep, not a continuation
		}
		gap := q.start - p.end
		if gap < 0 {
			gap = -gap
		}
		if best == nil || gap < bestGap {
			best, bestGap = p, gap
		}
	}
	clear(list[len(kept):])
	if len(kept) == 0 {
		delete(d.cands, key)
	} else {
		d.cands[key] = kept
	}
	return best
}

// link records q as p's successor.
func (d *detector) link(p, q *chainJob, by, user string, j *trace.Job) {
	p.hasSucc = true
	if p.chain < 0 {
		p.chain = int32(len(d.chains))
		d.chains = append(d.chains, &chain{user: user, account: j.Account, name: j.JobName, jobs: []*chainJob{p}})
	}
	q.chain = p.chain
	q.byShape = by == "shape"
	c := d.chains[p.chain]
	c.jobs = append(c.jobs, q)
}

// prune drops every candidate that has expired, so memory follows the
// jobs running now, not the trace's length.
func (d *detector) prune() {
	for k, list := range d.cands {
		kept := list[:0]
		for _, p := range list {
			if p.end+d.o.MaxSubmitAfterEndSec >= d.lastSubmit {
				kept = append(kept, p)
			}
		}
		clear(list[len(kept):])
		if len(kept) == 0 {
			delete(d.cands, k)
		} else {
			d.cands[k] = kept
		}
	}
}
