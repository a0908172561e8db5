package evaluate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"slices"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/internal/workpool"
	"github.com/mirage-hpc/mirage/sim"
)

// Options controls Replay.
type Options struct {
	// Features holds the windows and the simulator (features.Protocol's
	// Prepare); its Probes are not used.
	Features features.Options
	// DecisionSec is the decision interval; 0 means 600.
	DecisionSec int64
	// Workers is the number of windows replayed at once; 0 means 1. The
	// result does not depend on it.
	Workers int
	// Progress, when not nil, is called after each window with the number
	// done and the total; calls never overlap.
	Progress func(done, total int)
	// Lambda is λ, the hours of interruption an hour of overlap costs
	// (CostH), for the cost-optimal oracle (OracleCost); >= 0, and 0 means
	// 0 (DefaultLambda is the usual 0.5). Give Compute the same λ.
	Lambda float64
}

// Row is one policy's outcome in one window of one chain size.
type Row struct {
	Policy      string
	ChainNodes  int
	Window      int
	WindowStart int64
	// PSubmit, PStart and PEnd are P's times on the main timeline.
	PSubmit, PStart, PEnd int64
	// Submit is Q's submission and QStart its start; RSec is QStart minus
	// P's end in the policy's fork.
	Submit, QStart, RSec int64
	// QLimitSec is the limit Q started under (features.QResult.LimitSec):
	// the chain's limit, or less with Q's time-min (Options.Features'
	// QTimeMinSec). Not written to windows.csv.
	QLimitSec int64
	// ReactiveRSec is the reactive policy's r in the same window (the
	// load class).
	ReactiveRSec int64
}

// Results holds Replay's rows, ordered by chain size (Options order),
// window, then policy (the policies' order).
type Results struct {
	Policies []string
	Rows     []Row
}

// label is the outcome of submitting Q at one grid time.
type label struct {
	done                 bool
	qStart, rSec, qLimit int64
}

// Replay replays policies on every window and chain size of opts.Features:
// each Causal policy decides at the grid times, each Hindsight policy
// chooses from all of them; a policy that is neither is an error
// wrapping ErrPolicy.
func Replay(ctx context.Context, jobs []sim.Job, policies []Policy, opts Options) (Results, error) {
	for _, p := range policies {
		_, causal := p.(Causal)
		_, hindsight := p.(Hindsight)
		if causal == hindsight {
			return Results{}, fmt.Errorf("%w: %s must either decide at each grid time (Causal) or choose in hindsight (Hindsight)", ErrPolicy, p.Name())
		}
	}
	fo := opts.Features
	fo.Probes = max(fo.Probes, 1)
	if err := features.Normalise(&fo); err != nil {
		return Results{}, err
	}
	if opts.DecisionSec == 0 {
		opts.DecisionSec = 600
	}
	if opts.DecisionSec < 0 {
		return Results{}, fmt.Errorf("%w: decision interval %d s", features.ErrOptions, opts.DecisionSec)
	}
	if !(opts.Lambda >= 0) || math.IsInf(opts.Lambda, 1) {
		return Results{}, fmt.Errorf("%w: λ %v: want a finite number >= 0", features.ErrOptions, opts.Lambda)
	}
	names := make([]string, len(policies))
	for i, p := range policies {
		names[i] = p.Name()
		if slices.Contains(names[:i], names[i]) {
			return Results{}, fmt.Errorf("%w: %q given twice", ErrPolicy, names[i])
		}
	}
	if err := checkBound(policies); err != nil {
		return Results{}, err
	}
	user := features.ChainUser(jobs)
	units := len(fo.ChainNodes) * fo.Windows
	out := make([][]Row, units)
	errs := workpool.Run(ctx, opts.Workers, units, func(ctx context.Context, u int) (err error) {
		w, nodes := u%fo.Windows, fo.ChainNodes[u/fo.Windows]
		if out[u], err = safeWindow(ctx, jobs, &fo, policies, opts.DecisionSec, opts.Lambda, w, nodes, user); err != nil {
			return fmt.Errorf("window %d (chain of %d nodes): %w", w, nodes, err)
		}
		return nil
	}, opts.Progress)
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return Results{}, err
		}
	}
	for _, err := range errs {
		if err != nil {
			return Results{}, err
		}
	}
	if err := ctx.Err(); err != nil {
		return Results{}, err
	}
	res := Results{Policies: names}
	for _, rows := range out {
		res.Rows = append(res.Rows, rows...)
	}
	return res, nil
}

func safeWindow(ctx context.Context, jobs []sim.Job, fo *features.Options, policies []Policy, step int64, lambda float64, w, nodes int, user int32) (rows []Row, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return replayWindow(ctx, jobs, fo, policies, step, lambda, w, nodes, user)
}

// Grid returns the decision times of a chain (features.DecisionGrid).
func Grid(pSubmit, pStart, pEnd, step int64) []int64 {
	return features.DecisionGrid(nil, pSubmit, pStart, pEnd, step)
}

func replayWindow(ctx context.Context, jobs []sim.Job, fo *features.Options, policies []Policy, step int64, lambda float64, w, nodes int, user int32) ([]Row, error) {
	tl, err := features.NewTimeline(ctx, jobs, fo, w, nodes, user)
	if err != nil {
		return nil, err
	}
	o, err := decideChain(ctx, tl, policies, step, lambda)
	if err != nil {
		return nil, err
	}
	start := fo.Start + int64(w)*fo.IntervalSec
	rows := make([]Row, len(policies))
	for i, pol := range policies {
		l := o.label(i)
		rows[i] = Row{Policy: pol.Name(), ChainNodes: nodes, Window: w, WindowStart: start,
			PSubmit: o.p.Submit, PStart: o.pStart, PEnd: o.pEnd,
			Submit: o.grid[o.chosen[i]], QStart: l.qStart, RSec: l.rSec, QLimitSec: l.qLimit, ReactiveRSec: o.labels[len(o.grid)-1].rSec}
	}
	return rows, nil
}

// chainOutcome is what decideChain finds on one timeline: P as
// submitted, its pre-simulated start and end, the decision grid, each
// policy's chosen grid index and the labels (done at least at the
// chosen indices and the last one, Q at P's end).
type chainOutcome struct {
	p            sim.Job
	pStart, pEnd int64
	grid         []int64
	chosen       []int
	labels       []label
	// own holds, for a TimeMinPolicy, the label of its own Q (its
	// time-min) at its chosen index; not done for the others.
	own []label
	// held are the labels of the policies whose Q is held until P ends
	// (HeldQ), by policy index; nil when there are none.
	held map[int]label
}

// label returns policy i's label: its held Q's, its own Q's (a
// TimeMinPolicy), or its chosen grid time's.
func (o *chainOutcome) label(i int) label {
	if l, ok := o.held[i]; ok {
		return l
	}
	if i < len(o.own) && o.own[i].done {
		return o.own[i]
	}
	return o.labels[o.chosen[i]]
}

// decideChain replays policies on timeline tl (at P's submission): each
// Causal policy decides at the decision grid's times, each Hindsight one
// chooses from every time's label.
func decideChain(ctx context.Context, tl *features.Timeline, policies []Policy, step int64, lambda float64) (chainOutcome, error) {
	s, pid, p := tl.Sim(), tl.PID(), tl.P()
	pre := s.Clone(nil)
	pStart, err := pre.RunUntilStarted(ctx, pid)
	if err != nil {
		return chainOutcome{}, fmt.Errorf("pre-simulate P: %w", err)
	}
	pEnd := pStart + p.RunSec
	grid := Grid(p.Submit, pStart, pEnd, step)
	labels := make([]label, len(grid))
	labelAt := func(k int) error { // the timeline must be at grid[k]
		if labels[k].done {
			return nil
		}
		o, err := tl.QStart(ctx, grid[k], pEnd)
		if err != nil {
			return err
		}
		labels[k] = label{done: true, qStart: o.Start, rSec: o.RSec, qLimit: o.LimitSec}
		return nil
	}
	// Hindsight policies choose from every grid time's label.
	var hindsight []int
	chosen := make([]int, len(policies))
	for i, pol := range policies {
		chosen[i] = -1
		if _, ok := pol.(Hindsight); ok {
			hindsight = append(hindsight, i)
		}
	}
	last := len(grid) - 1
	own := make([]label, len(policies))
	local := map[*RunTimes]*RunTimes{} // run-time predictions by window job ID
	var held map[int]label
	for k, t := range grid {
		if err := tl.Advance(ctx, t); err != nil {
			return chainOutcome{}, err
		}
		dc := decisionContext(ctx, tl, t, local)
		qTimeMin := dc.Q.TimeMinSec // the protocol's Q; a TimeMinPolicy sets its own and restores it
		for i, pol := range policies {
			c, causal := pol.(Causal)
			if chosen[i] >= 0 || !causal {
				continue
			}
			tp, withTM := pol.(TimeMinPolicy)
			if withTM {
				dc.Q.TimeMinSec = tp.QTimeMinSec()
			}
			ok := k == last
			if !ok {
				if ok, err = c.Decide(dc); err != nil {
					return chainOutcome{}, fmt.Errorf("policy %s at %d: %w", pol.Name(), t, err)
				}
			}
			dc.Q.TimeMinSec = qTimeMin
			if ok {
				chosen[i] = k
				if isHeld(pol) {
					q := tl.Q()
					if withTM {
						q.TimeMinSec = tp.QTimeMinSec()
					}
					l, err := heldOutcome(ctx, tl, t, pEnd, q)
					if err != nil {
						return chainOutcome{}, fmt.Errorf("policy %s at %d: %w", pol.Name(), t, err)
					}
					if held == nil {
						held = map[int]label{}
					}
					held[i] = l
				}
			}
			if ok && withTM && !isHeld(pol) {
				qq := tl.Q()
				qq.TimeMinSec = tp.QTimeMinSec()
				res, err := tl.QStartWith(ctx, t, pEnd, qq)
				if err != nil {
					return chainOutcome{}, err
				}
				own[i] = label{done: true, qStart: res.Start, rSec: res.RSec, qLimit: res.LimitSec}
			}
		}
		need := len(hindsight) > 0 || k == last
		for i := range policies {
			need = need || chosen[i] == k && !isHeld(policies[i])
		}
		if need {
			if err := labelAt(k); err != nil {
				return chainOutcome{}, err
			}
		}
	}
	for _, i := range hindsight {
		chosen[i] = policies[i].(Hindsight).Choose(labelRs(labels), lambda)
	}
	return chainOutcome{p: p, pStart: pStart, pEnd: pEnd, grid: grid, chosen: chosen, labels: labels, own: own, held: held}, nil
}

func labelRs(ls []label) []int64 {
	r := make([]int64, len(ls))
	for i, l := range ls {
		r[i] = l.rSec
	}
	return r
}

// Best returns the index of the oracle's choice among the outcomes r
// (seconds): the zero-interruption one (r <= 0) with the least overlap,
// else the least interruption; the earliest on ties. It returns -1 for no
// outcomes.
func Best(r []int64) int {
	best := -1
	for i, v := range r {
		if best < 0 || Better(v, r[best]) {
			best = i
		}
	}
	return best
}

// Better reports whether outcome a (r seconds) is strictly better than b:
// less interruption, or equal interruption and less overlap.
func Better(a, b int64) bool {
	ia, ib := max(a, 0), max(b, 0)
	if ia != ib {
		return ia < ib
	}
	return max(-a, 0) < max(-b, 0)
}
