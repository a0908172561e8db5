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

// HandoverOff is LifetimeOptions.HandoverSec for no handover: each link
// runs to its end whatever its successor does (the paper's accounting).
const HandoverOff int64 = -1

// DefaultHandoverSec is the default handover time, seconds.
const DefaultHandoverSec int64 = 600

// LifetimeOptions controls the lifetime replay (Lifetimes,
// RunOptions.Lifetime): a service of LengthSec run as a chain of links
// from each window.
type LifetimeOptions struct {
	// LengthSec is the service's lifetime, seconds (> 0): from P₁'s start
	// on, links are provisioned until one's expected end covers it.
	LengthSec int64
	// HandoverSec is the handover: when a link's successor starts, the
	// link ends HandoverSec later (if it would end later); HandoverOff:
	// it runs to its end. 0 ends it when the successor starts.
	HandoverSec int64
	// Every replays a lifetime from every Every-th window (0 and 1: every
	// window).
	Every int
	// Seed and Resamples drive the bootstrap intervals of the metrics; 0
	// means 1 and 2000.
	Seed      uint64
	Resamples int
}

// LifetimeLink is one link of a replayed lifetime: its submission, start
// and end in the simulation (Unix seconds).
type LifetimeLink struct {
	Submit, Start, End int64
}

// LifetimeRow is one policy's lifetime from one window of one chain size.
type LifetimeRow struct {
	Policy      string
	ChainNodes  int
	Window      int
	WindowStart int64
	// From and To bound the lifetime: P₁'s start and From + LengthSec.
	From, To int64
	// Links are the links that started before To, in order.
	Links []LifetimeLink
	// UpSec is the time in [From, To) some link ran; Interruptions counts
	// the times the service went down in it (a link started after every
	// earlier one had ended).
	UpSec         int64
	Interruptions int
	// NodeSec are the node-seconds the links were charged in [From, To).
	NodeSec int64
	// BeyondTraceSec is the part of [From, To) after the trace's last
	// submission, where the queue only drains.
	BeyondTraceSec int64
}

// DowntimeSec is the lifetime's time without a running link.
func (r *LifetimeRow) DowntimeSec() int64 { return r.To - r.From - r.UpSec }

// Lifetimes replays policies as services of opts.LengthSec from every
// opts.Every-th window of every chain size of o.Features: P₁ submitted
// as Replay's P, then each successor submitted on the same timeline when
// the policy decides (a Causal policy at the link's decision grid
// times after the link started, linkGrid, with the features of the timeline that holds the service's
// earlier links; a Hindsight one per link, from the outcomes of every
// grid time of that link: the oracle of one link at a time; a HeldQ
// policy's successor held until its predecessor ends), each link with
// the chain's limit and run time, until a link's expected end covers
// From + LengthSec. A successor is submitted with Q's time-min (the
// protocol's, or a TimeMinPolicy's own): a link backfill granted a
// shorter limit (sim.Sim.Limit) ends at it, and its successor is decided
// on for that end (its decision grid and features, and whether the
// lifetime needs one more link). With a handover, a link ends HandoverSec after its
// successor starts. Each policy has its own timeline. Rows are ordered by
// chain size, window, then policy. jobs are the simulator's jobs.
func Lifetimes(ctx context.Context, jobs []sim.Job, policies []Policy, o Options, lo LifetimeOptions) ([]LifetimeRow, error) {
	if lo.LengthSec <= 0 {
		return nil, fmt.Errorf("%w: lifetime %d s: want > 0", features.ErrOptions, lo.LengthSec)
	}
	if lo.HandoverSec < HandoverOff {
		return nil, fmt.Errorf("%w: handover %d s", features.ErrOptions, lo.HandoverSec)
	}
	every := max(lo.Every, 1)
	fo := o.Features
	fo.Probes = max(fo.Probes, 1)
	if err := features.Normalise(&fo); err != nil {
		return nil, err
	}
	// The window holds every arrival the lifetime can meet.
	fo.WorkloadSec = max(fo.WorkloadSec, fo.WarmupSec+lo.LengthSec+4*fo.ChainLimitSec)
	step := o.DecisionSec
	if step == 0 {
		step = 600
	}
	if step < 0 {
		return nil, fmt.Errorf("%w: decision interval %d s", features.ErrOptions, step)
	}
	var lastSubmit int64 = math.MinInt64
	for i := range jobs {
		lastSubmit = max(lastSubmit, jobs[i].Submit)
	}
	user := features.ChainUser(jobs)
	var windows []int
	for w := 0; w < fo.Windows; w += every {
		windows = append(windows, w)
	}
	units := len(fo.ChainNodes) * len(windows)
	out := make([][]LifetimeRow, units)
	workers := max(o.Workers, 1)
	errs := workpool.Run(ctx, workers, units, func(ctx context.Context, u int) error {
		w, nodes := windows[u%len(windows)], fo.ChainNodes[u/len(windows)]
		rows := make([]LifetimeRow, len(policies))
		for i, pol := range policies {
			r, err := safeLifetime(ctx, jobs, &fo, pol, step, o.Lambda, lo, w, nodes, user)
			if err != nil {
				return fmt.Errorf("lifetime from window %d (chain of %d nodes), policy %s: %w", w, nodes, pol.Name(), err)
			}
			r.BeyondTraceSec = max(0, r.To-max(r.From, lastSubmit))
			rows[i] = r
		}
		out[u] = rows
		return nil
	}, o.Progress)
	if err := firstError(errs); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var rows []LifetimeRow
	for _, rs := range out {
		rows = append(rows, rs...)
	}
	return rows, nil
}

func safeLifetime(ctx context.Context, jobs []sim.Job, fo *features.Options, pol Policy, step int64, lambda float64, lo LifetimeOptions, w, nodes int, user int32) (row LifetimeRow, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return replayLifetime(ctx, jobs, fo, pol, step, lambda, lo, w, nodes, user)
}

// lifeLink is a link being replayed: its job and its pre-simulated
// start.
type lifeLink struct {
	id     sim.JobID
	submit int64
	start  int64
}

// replayLifetime replays one policy's lifetime from window w.
func replayLifetime(ctx context.Context, jobs []sim.Job, fo *features.Options, pol Policy, step int64, lambda float64, lo LifetimeOptions, w, nodes int, user int32) (LifetimeRow, error) {
	tl, err := features.NewTimeline(ctx, jobs, fo, w, nodes, user)
	if err != nil {
		return LifetimeRow{}, err
	}
	s := tl.Sim()
	row := LifetimeRow{Policy: pol.Name(), ChainNodes: nodes, Window: w, WindowStart: fo.Start + int64(w)*fo.IntervalSec}
	var links []lifeLink
	local := map[*RunTimes]*RunTimes{}
	hs := handovers{on: lo.HandoverSec != HandoverOff, sec: max(lo.HandoverSec, 0)}
	for k := 0; ; k++ {
		if err := ctx.Err(); err != nil {
			return LifetimeRow{}, err
		}
		p, pid := tl.P(), tl.PID()
		pre := s.Clone(nil)
		pStart, err := hs.runUntilStarted(ctx, pre, pid, step)
		if err != nil {
			return LifetimeRow{}, fmt.Errorf("link %d: %w", k, err)
		}
		if k == 0 {
			row.From, row.To = pStart, pStart+lo.LengthSec
		}
		if lim, ok := pre.Limit(pid); ok && lim < p.LimitSec { // a time-min link granted less
			tl.GrantP(lim)
			p = tl.P()
		}
		links = append(links, lifeLink{id: pid, submit: p.Submit, start: pStart})
		if k > 0 {
			if err := hs.add(s, links[k-1].id, pid, pStart); err != nil {
				return LifetimeRow{}, fmt.Errorf("link %d: %w", k, err)
			}
		}
		pEnd := pStart + p.RunSec
		if pEnd >= row.To {
			break
		}
		grid := linkGrid(p.Submit, pStart, pEnd, step)
		var at int64
		if hs, ok := pol.(Hindsight); ok {
			if at, err = chooseLink(ctx, s, tl, grid, pEnd, hs, lambda); err != nil {
				return LifetimeRow{}, fmt.Errorf("link %d: %w", k, err)
			}
		}
		c, _ := pol.(Causal)
		tp, withTM := pol.(TimeMinPolicy)
		for gi, t := range grid {
			if c == nil && t < at {
				continue
			}
			if err := tl.Advance(ctx, t); err != nil {
				return LifetimeRow{}, err
			}
			if err := hs.apply(s); err != nil {
				return LifetimeRow{}, fmt.Errorf("link %d: %w", k, err)
			}
			ok := gi == len(grid)-1 || c == nil
			if !ok {
				dc := decisionContext(ctx, tl, t, local)
				if withTM {
					dc.Q.TimeMinSec = tp.QTimeMinSec()
				}
				if ok, err = c.Decide(dc); err != nil {
					return LifetimeRow{}, fmt.Errorf("link %d at %d: %w", k, t, err)
				}
			}
			if ok {
				break
			}
		}
		q := tl.Q()
		if withTM {
			q.TimeMinSec = tp.QTimeMinSec()
		}
		if isHeld(pol) {
			q.After = pid
		}
		if _, err := tl.SubmitSuccessor(q); err != nil {
			return LifetimeRow{}, fmt.Errorf("link %d: %w", k+1, err)
		}
	}
	final := s.Clone(nil) // to the lifetime's end, the handovers still due applied
	g := hs.grain(step)
	for t := final.Now() + g; len(hs.pending) > 0 && t < row.To; t += g {
		if err := ctx.Err(); err != nil {
			return LifetimeRow{}, err
		}
		if err := final.RunBefore(ctx, t); err != nil {
			return LifetimeRow{}, err
		}
		if err := hs.apply(final); err != nil {
			return LifetimeRow{}, err
		}
	}
	if err := final.RunUntil(ctx, row.To); err != nil {
		return LifetimeRow{}, err
	}
	account(&row, final, links, int64(nodes))
	return row, nil
}

// linkGrid returns a link's decision times: Grid's after the link's start
// (the successor is decided on while its predecessor runs, as a
// provisioner watching a running job does), and its end.
func linkGrid(pSubmit, pStart, pEnd, step int64) []int64 {
	g := Grid(pSubmit, pStart, pEnd, step)
	return slices.DeleteFunc(g, func(t int64) bool { return t <= pStart && t != pEnd })
}

// handovers ends each link sec after its successor starts. When the
// successor is submitted while its predecessor runs, the predecessor's
// end is set at once from the successor's pre-simulated start (exact:
// nothing before that start depends on it). Otherwise (the successor
// submitted before its predecessor started) the handover is pending
// until the main timeline shows the successor started, and is applied
// at the next decision time (at most a decision interval late, exact
// when the handover is at least the interval).
type handovers struct {
	on      bool
	sec     int64
	pending []pendingHandover
}

type pendingHandover struct{ prev, succ sim.JobID }

// add hands prev over to succ, whose start s pre-simulated at succStart.
func (h *handovers) add(s *sim.Sim, prev, succ sim.JobID, succStart int64) error {
	if !h.on {
		return nil
	}
	if _, ended := s.Ended(prev); ended {
		return nil // prev ended before its successor started
	}
	if _, started := s.Started(prev); started {
		_, err := s.EndBy(prev, succStart+h.sec)
		return err
	}
	h.pending = append(h.pending, pendingHandover{prev, succ})
	return nil
}

// grain is the step at which a fork applies pending handovers: the
// decision interval, or the handover when shorter (at least a minute),
// so that each is applied on time.
func (h *handovers) grain(step int64) int64 {
	if h.sec >= step {
		return step
	}
	return max(h.sec, 60)
}

// runUntilStarted runs fork f until job id starts and returns its start,
// applying (a copy of) the pending handovers on the way.
func (h *handovers) runUntilStarted(ctx context.Context, f *sim.Sim, id sim.JobID, step int64) (int64, error) {
	c := handovers{on: h.on, sec: h.sec, pending: slices.Clone(h.pending)}
	g := c.grain(step)
	for t, until := f.Now()+g, f.Now()+400*86400; len(c.pending) > 0 && t < until; t += g {
		if st, ok := f.Started(id); ok {
			return st, nil
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if err := f.RunBefore(ctx, t); err != nil {
			return 0, err
		}
		if err := c.apply(f); err != nil {
			return 0, err
		}
	}
	return f.RunUntilStarted(ctx, id)
}

// apply applies the pending handovers whose successor has started on s.
func (h *handovers) apply(s *sim.Sim) error {
	keep := h.pending[:0]
	for _, p := range h.pending {
		if _, ended := s.Ended(p.prev); ended {
			continue
		}
		_, prevStarted := s.Started(p.prev)
		st, succStarted := s.Started(p.succ)
		if !prevStarted || !succStarted {
			keep = append(keep, p)
			continue
		}
		if _, err := s.EndBy(p.prev, st+h.sec); err != nil {
			return err
		}
	}
	h.pending = keep
	return nil
}

// chooseLink labels every grid time of the current link on a copy of
// the main timeline (Q submitted there in a fork) and returns the time
// hs chooses from the outcomes.
func chooseLink(ctx context.Context, s *sim.Sim, tl *features.Timeline, grid []int64, pEnd int64, hs Hindsight, lambda float64) (int64, error) {
	c := s.Clone(nil)
	pid, p := tl.PID(), tl.P()
	rs := make([]int64, len(grid))
	for k, t := range grid {
		if err := c.RunBefore(ctx, t); err != nil {
			return 0, err
		}
		f := c.Clone(nil)
		q := tl.Q()
		q.Submit = t
		qid, err := f.Submit(q)
		if err != nil {
			return 0, err
		}
		qStart, err := f.RunUntilStarted(ctx, qid)
		if err != nil {
			return 0, fmt.Errorf("Q submitted at %d: %w", t, err)
		}
		end := pEnd
		if st, ok := f.Started(pid); ok {
			end = st + p.RunSec
		}
		rs[k] = qStart - end
	}
	i := hs.Choose(rs, lambda)
	if i < 0 || i >= len(grid) {
		return 0, errors.New("hindsight policy chose no grid time")
	}
	return grid[i], nil
}

// decisionContext is what a policy knows at t on tl (where Advance left
// it).
func decisionContext(ctx context.Context, tl *features.Timeline, t int64, local map[*RunTimes]*RunTimes) *DecisionContext {
	s, pid, p := tl.Sim(), tl.PID(), tl.P()
	mean, _ := tl.RecentMeanWaitSec()
	st, started := s.Started(pid)
	q := tl.Q()
	q.Submit = t
	return &DecisionContext{Now: t, Sim: s, P: p, PID: pid, Q: q, PStarted: started, PStart: st,
		RecentMeanWaitSec: mean, WindowStart: tl.Start(), JobIndex: tl.JobIndex(), local: local,
		compute: func(dst []float64) error { return tl.Features(ctx, dst) }}
}
