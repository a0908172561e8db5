package features

import (
	"context"
	"fmt"

	"github.com/mirage-hpc/mirage/sim"
)

// ChainLink is a real chain link to replay on a main timeline
// (NewChainTimeline): the trace's own predecessor and successor shapes in
// place of the protocol's synthetic chain.
type ChainLink struct {
	// P is the predecessor as submitted: its User, Nodes, LimitSec, RunSec
	// and Submit (Unix seconds) are used, its Name kept; it has no
	// dependency.
	P sim.Job
	// Q is the successor's template: its User, Nodes, LimitSec and RunSec;
	// its Submit is set per decision (QOutcome).
	Q sim.Job
	// Exclude lists indices of the jobs given to NewChainTimeline left out
	// of the background (the chain's own jobs, P and Q among them).
	Exclude []int
}

// NewChainTimeline builds the main timeline of a window cut as NewTimeline
// cuts one (opts' mode, warm-up and workload) but starting at the link's
// P submission minus the warm-up, with the link's P and Q in place of the
// protocol's chain and without the jobs link.Exclude names, and runs it to
// P's submission (P submitted). JobIndex still indexes jobs. opts must be
// normalised (Normalise) and must outlive the Timeline.
func NewChainTimeline(ctx context.Context, jobs []sim.Job, opts *Options, link ChainLink) (*Timeline, error) {
	if err := opts.checkRunTimes(len(jobs)); err != nil {
		return nil, err
	}
	p, q := link.P, link.Q
	if p.Nodes < 1 || int(p.Nodes) > opts.Config.Nodes || q.Nodes < 1 || int(q.Nodes) > opts.Config.Nodes {
		return nil, fmt.Errorf("%w: chain link of %d then %d nodes on %d", ErrOptions, p.Nodes, q.Nodes, opts.Config.Nodes)
	}
	if p.LimitSec <= 0 || q.LimitSec <= 0 {
		return nil, fmt.Errorf("%w: chain link limits %d and %d s", ErrOptions, p.LimitSec, q.LimitSec)
	}
	p.After, p.Eligible, p.Cancel, p.TraceStart, p.PredRunSec = sim.NoJob, 0, 0, 0, 0
	q.After, q.Eligible, q.Cancel, q.TraceStart, q.PredRunSec = sim.NoJob, 0, 0, 0, 0
	p.RunSec, q.RunSec = min(max(p.RunSec, 0), p.LimitSec), min(max(q.RunSec, 0), q.LimitSec)
	start := p.Submit - opts.WarmupSec
	bg := jobs
	if len(link.Exclude) > 0 {
		// Excluded jobs are moved past the window's end: sim.NewWindow
		// then leaves them out and keeps every other index.
		bg = append([]sim.Job(nil), jobs...)
		out := start + opts.WorkloadSec + 1
		for _, i := range link.Exclude {
			if i >= 0 && i < len(bg) {
				bg[i].Submit, bg[i].TraceStart, bg[i].Cancel = out, 0, 0
			}
		}
	}
	wr, err := newChainRun(ctx, bg, opts, start, p, q)
	if err != nil {
		return nil, err
	}
	return &Timeline{wr: wr, start: start}, nil
}
