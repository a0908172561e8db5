package analyze

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// linkSim is the replay of one chain link.
type linkSim struct {
	replayed           bool
	reactiveR, oracleR int64 // seconds: > 0 interruption, < 0 overlap
	oracleSubmitOffset int64 // oracle's submission - P's simulated end
}

// replayResult is what the simulator adds to the analysis.
type replayResult struct {
	nodes    int
	capSteps int
	fidelity []FidelityRow
	links    map[int32][]linkSim // by chain index, one per link
	chains   int                 // chains replayed (at least one link)
	wallSec  float64             // not written to tables: log only
}

// simConfig returns the simulator configuration of the replays: the
// profile's (Replay.Sim), with opts.Nodes, else the profile's own node
// count, else, for a profile whose node count is a placeholder
// (sim.Profile.NodesFromTrace), the most nodes busy at once (peak), never
// fewer than the widest job; without opts.Nodes the capacity timeline is
// inferred from the trace (sim.InferCapacity, the profile's options or
// causal).
func simConfig(o *Options, peak int64, widest int32, all []sim.Job) sim.Config {
	prof := o.Replay.Sim
	cfg := prof.Config
	switch {
	case o.Nodes > 0:
		cfg.Nodes = o.Nodes
	case prof.NodesFromTrace:
		cfg.Nodes = int(max(peak, int64(widest), 1))
	}
	if o.Nodes == 0 {
		cfg.Capacity = sim.InferCapacity(all, prof.CapacityOptions(cfg.Nodes))
	}
	return cfg
}

// replay runs the fidelity replay and the chains' reactive and oracle
// replays on the whole trace (tjobs, in file order).
func replay(ctx context.Context, o *Options, tjobs []trace.Job, peak int64, chains []*chain, month func(int64) string) (*replayResult, error) {
	began := time.Now()
	var widest int32
	for i := range tjobs {
		widest = max(widest, tjobs[i].NNodes)
	}
	all, _, err := sim.FromTrace(tjobs, sim.FromTraceOptions{})
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	cfg := simConfig(o, peak, widest, all)
	res := &replayResult{nodes: cfg.Nodes, capSteps: len(cfg.Capacity), links: map[int32][]linkSim{}}
	jobs, _, err := sim.FromTrace(tjobs, fromTraceOptions(o, cfg))
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	starts, _, err := sim.Replay(ctx, cfg, jobs)
	if err != nil {
		return nil, fmt.Errorf("fidelity replay: %w", err)
	}
	f := sim.CompareReplay(jobs, starts, month)
	res.fidelity = append(res.fidelity, fidelityRow("all", f))
	for _, m := range f.PerMonth {
		res.fidelity = append(res.fidelity, fidelityRow(m.Month, m.Fidelity))
	}
	if err := replayChains(ctx, o, cfg, tjobs, chains, 0, res); err != nil {
		return nil, err
	}
	res.wallSec = time.Since(began).Seconds()
	return res, nil
}

// fromTraceOptions converts for cfg, with the dependencies inferred
// when the profile infers them (the ls6 profile does, as its protocol
// does: sim/FIDELITY.md).
func fromTraceOptions(o *Options, cfg sim.Config) sim.FromTraceOptions {
	return o.Replay.Sim.FromTraceOptions(cfg.Nodes)
}

func fidelityRow(month string, f sim.Fidelity) FidelityRow {
	return FidelityRow{Month: month, Jobs: int64(f.Jobs), Spearman: f.Spearman, Within2x: f.Within2x,
		Within2xJobs: int64(f.Within2xJobs), MAEHours: f.MAESec / 3600, MedianAbsH: f.MedianAbsErrSec / 3600}
}

// replayChains replays the first Replay.MaxChains chains (by head
// submission), at most Replay.MaxLinks links in all, on the trace without
// the chains' successors (the background load and the heads): each
// chain's head runs as in the replay; then, link by link, the reactive
// successor is submitted at its predecessor's simulated end and the
// chain continues from it, and the oracle tries a submission every
// OracleStepSec from the predecessor's simulated start to its end, from
// the same state, and keeps the best outcome (least interruption, then
// least overlap, earliest on ties). Jobs submitted before bgFrom (Unix
// seconds; 0: none) are left out of the background.
func replayChains(ctx context.Context, o *Options, cfg sim.Config, tjobs []trace.Job, chains []*chain, bgFrom int64, res *replayResult) error {
	if len(chains) == 0 || o.Replay.MaxChains == 0 || o.Replay.MaxLinks == 0 {
		return nil
	}
	succ := map[int64]bool{}
	for _, c := range chains {
		for _, j := range c.jobs[1:] {
			succ[j.row] = true
		}
	}
	keep := make([]trace.Job, 0, len(tjobs))
	simID := make(map[int64]sim.JobID, len(chains))
	for i := range tjobs {
		j := &tjobs[i]
		if succ[int64(i)] || j.Submit.IsZero() || int(max(j.NNodes, 1)) > cfg.Nodes || bgFrom != 0 && j.Submit.Unix() < bgFrom {
			continue
		}
		simID[int64(i)] = sim.JobID(len(keep))
		keep = append(keep, *j)
	}
	jobs, conv, err := sim.FromTrace(keep, fromTraceOptions(o, cfg))
	if err != nil || conv.Jobs != len(keep) {
		return fmt.Errorf("chain replay: converted %d of %d jobs: %w", conv.Jobs, len(keep), err)
	}
	order := make([]int32, len(chains))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		return int(chains[a].jobs[0].submit - chains[b].jobs[0].submit)
	})
	master, err := sim.New(cfg, jobs, nil)
	if err != nil {
		return fmt.Errorf("chain replay: %w", err)
	}
	budget := o.Replay.MaxLinks
	for _, ci := range order[:min(len(order), o.Replay.MaxChains)] {
		if budget <= 0 {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		c := chains[ci]
		head, ok := simID[c.jobs[0].row]
		if !ok {
			continue // the head is wider than the simulated cluster
		}
		if err := master.RunBefore(ctx, jobs[head].Submit); err != nil {
			return err
		}
		ls, err := replayChain(ctx, o, master.Clone(nil), head, c, min(budget, len(c.jobs)-1))
		if err != nil {
			return fmt.Errorf("chain replay: chain of %s: %w", c.jobs[0].jobID, err)
		}
		if len(ls) > 0 && ls[0].replayed {
			res.chains++
		}
		for _, l := range ls {
			if l.replayed {
				budget--
			}
		}
		res.links[ci] = ls
	}
	return nil
}

// replayChain replays up to n links of chain c in s, whose job head is
// the chain's head.
func replayChain(ctx context.Context, o *Options, s *sim.Sim, head sim.JobID, c *chain, n int) ([]linkSim, error) {
	out := make([]linkSim, len(c.jobs)-1)
	pStart, err := s.RunUntilStarted(ctx, head)
	if errors.Is(err, sim.ErrNeverStarts) {
		return out, nil
	} else if err != nil {
		return nil, err
	}
	hj := s.Job(head)
	pEnd := pStart + min(hj.RunSec, hj.LimitSec)
	for k := range n {
		q := c.jobs[k+1]
		limit := q.limit
		if limit <= 0 {
			limit = max(sim.DefaultLimitSec, q.runSec())
		}
		qj := sim.Job{Name: q.jobID, User: hj.User, Nodes: max(q.nodes, 1), LimitSec: limit,
			RunSec: min(max(q.runSec(), 0), limit), After: sim.NoJob}
		if int(qj.Nodes) > s.Config().Nodes {
			break
		}
		best, bestAt, ok := int64(0), int64(0), true
		if !o.Replay.noOracle {
			var err error
			if best, bestAt, ok, err = oracle(ctx, s, qj, pStart, pEnd, o.Replay.OracleStepSec); err != nil {
				return nil, err
			}
		}
		if err := s.RunBefore(ctx, pEnd); err != nil {
			return nil, err
		}
		qj.Submit = pEnd
		id, err := s.Submit(qj)
		if err != nil {
			return nil, err
		}
		qStart, err := s.RunUntilStarted(ctx, id)
		if errors.Is(err, sim.ErrNeverStarts) || !ok {
			break
		} else if err != nil {
			return nil, err
		}
		out[k] = linkSim{replayed: true, reactiveR: qStart - pEnd, oracleR: best, oracleSubmitOffset: bestAt - pEnd}
		pStart, pEnd = qStart, qStart+qj.RunSec
	}
	return out, nil
}

// oracle returns the best r (seconds) of submitting q at each grid time
// from pStart to pEnd (pEnd included) in clones of s, the submission time
// that gave it, and false when q never starts.
func oracle(ctx context.Context, s *sim.Sim, q sim.Job, pStart, pEnd, step int64) (best, at int64, ok bool, err error) {
	prober := s.Clone(nil)
	for t := pStart; ; t += step {
		t = min(t, pEnd)
		if err := ctx.Err(); err != nil { // probes are short: the simulator rarely checks
			return 0, 0, false, err
		}
		if err := prober.RunBefore(ctx, t); err != nil {
			return 0, 0, false, err
		}
		c := prober.Clone(nil)
		q.Submit = t
		id, err := c.Submit(q)
		if err != nil {
			return 0, 0, false, err
		}
		qs, err := c.RunUntilStarted(ctx, id)
		if errors.Is(err, sim.ErrNeverStarts) {
			return 0, 0, false, nil
		} else if err != nil {
			return 0, 0, false, err
		}
		if r := qs - pEnd; !ok || better(r, best) {
			best, at, ok = r, t, true
		}
		if t == pEnd {
			return best, at, ok, nil
		}
	}
}

// better reports whether outcome a (r seconds) is strictly better than b:
// less interruption, or equal interruption and less overlap (as the
// evaluation's oracle, evaluate.Better).
func better(a, b int64) bool {
	ia, ib := max(a, 0), max(b, 0)
	if ia != ib {
		return ia < ib
	}
	return max(-a, 0) < max(-b, 0)
}
