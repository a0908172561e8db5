package evaluate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"time"

	"github.com/mirage-hpc/mirage/analyze"
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/internal/workpool"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// DefaultChainLinks is ChainsOptions.MaxLinks' default.
const DefaultChainLinks = 500

// Reasons a detected chain link is not replayed (ChainSkip.Reason).
const (
	SkipNotSimulated = "not simulated (wider than the partition, or skipped by the conversion)"
	SkipNeverStarts  = "never starts in the simulator"
	SkipMaxLinks     = "beyond the maximum number of links"
)

// ChainsOptions controls the replay of the trace's own service chains
// (RealChains, RunOptions.RealChains).
type ChainsOptions struct {
	// From and To bound the chains' head submissions, [From, To) in Unix
	// seconds; 0 leaves a side open.
	From, To int64
	// MaxLinks is the most links replayed (the first in chain order); 0
	// means DefaultChainLinks.
	MaxLinks int
	// Chains are the detector's thresholds; the zero value means
	// analyze.DefaultOptions().Chains.
	Chains analyze.ChainOptions
}

// ChainRow is one policy's outcome on one replayed link of a real chain.
// Times are Unix seconds; Real* are the trace's, the rest the simulator's.
type ChainRow struct {
	// Chain numbers the chains in head-submission order (from 0, over the
	// chains in the span); Link is the link's index in its chain (0: the
	// head and the second job).
	Chain, Link int
	PJob, QJob  string
	// PNodes and QNodes are the jobs' node counts.
	PNodes, QNodes int32
	// RealPEnd and RealQStart are the trace's; RealRSec is their
	// difference (> 0 interruption, < 0 overlap).
	RealPEnd, RealQStart, RealRSec int64
	Policy                         string
	// PSubmit is P's (real) submission, PStart and PEnd its simulated
	// start and end; Submit is the policy's submission of Q, QStart Q's
	// start and RSec QStart minus P's end in the policy's fork.
	PSubmit, PStart, PEnd, Submit, QStart, RSec int64
	// ReactiveRSec is r with Q submitted at P's simulated end.
	ReactiveRSec int64
}

// ChainSkip counts the links not replayed for one reason.
type ChainSkip struct {
	Reason string `json:"reason"`
	Links  int    `json:"links"`
}

// ChainPolicy is one policy's totals over the replayed links, hours.
type ChainPolicy struct {
	Policy        string  `json:"policy"`
	InterruptionH float64 `json:"interruption_h"`
	OverlapH      float64 `json:"overlap_h"`
	// ZeroInterruption counts the links it left without interruption.
	ZeroInterruption int `json:"zero_interruption_links"`
}

// ChainsSummary is the replay of the trace's own chains: what their
// replayed links really lost and what the simulator gives reactively and
// with each policy (hours, over the same links).
type ChainsSummary struct {
	From     int64 `json:"from"`
	To       int64 `json:"to"`
	MaxLinks int   `json:"max_links"`
	// Chains and Links count the detected chains with a head in the span
	// and their links; Replayed the links replayed.
	Chains   int         `json:"chains"`
	Links    int         `json:"links"`
	Replayed int         `json:"replayed_links"`
	Skipped  []ChainSkip `json:"skipped,omitempty"`
	// RealInterruptionH and RealOverlapH are the replayed links' real
	// interruption (Q's start after P's end) and overlap.
	RealInterruptionH float64 `json:"real_interruption_h"`
	RealOverlapH      float64 `json:"real_overlap_h"`
	// ReactiveH and ReactiveOverlapH are the simulator's with Q submitted
	// at P's end.
	ReactiveH        float64 `json:"simulated_reactive_interruption_h"`
	ReactiveOverlapH float64 `json:"simulated_reactive_overlap_h"`
	// Policies are the policies' totals, in the replay's order.
	Policies []ChainPolicy `json:"policies"`
	// Rows are the per-link rows (chains.csv), not in the JSON.
	Rows []ChainRow `json:"-"`
}

// Policy returns the named policy's totals.
func (s *ChainsSummary) Policy(name string) (ChainPolicy, bool) {
	for _, p := range s.Policies {
		if p.Policy == name {
			return p, true
		}
	}
	return ChainPolicy{}, false
}

// RealChains replays the trace's own service chains (analyze.ChainRows
// on the protocol's partition's jobs, features.Protocol.PartitionJobs)
// whose head was submitted in opts.RealChains' span: for each link, a
// timeline cut as the protocol cuts a window (its mode, warm-up and
// workload) but with the real predecessor's shape (nodes, limit, run
// time, user) submitted at its real submission, the trace without the
// chain's jobs as background (features.NewChainTimeline), and the real
// successor's shape as Q; each policy of opts.Policies decides on it as
// in Replay. opts.RealChains nil means ChainsOptions' defaults. The
// result does not depend on opts.Workers.
func RealChains(ctx context.Context, in In, opts RunOptions) (ChainsSummary, error) {
	r, err := prepareRun(ctx, in, opts)
	if err != nil {
		return ChainsSummary{}, err
	}
	return r.realChains(ctx, in.Protocol)
}

// chainLink is one detected link to replay: rows into the partition's
// trace jobs and indices into the simulator's jobs.
type chainLink struct {
	chain, link int
	pRow, qRow  int
	pSim, qSim  int
	exclude     []int
}

// realChains replays r's trace's chains with r's policies.
func (r prepared) realChains(ctx context.Context, p features.Protocol) (ChainsSummary, error) {
	co := ChainsOptions{}
	if r.opts.RealChains != nil {
		co = *r.opts.RealChains
	}
	if co.MaxLinks == 0 {
		co.MaxLinks = DefaultChainLinks
	}
	if co.MaxLinks < 0 || co.From < 0 || co.To < 0 || (co.To != 0 && co.To < co.From) {
		return ChainsSummary{}, fmt.Errorf("%w: real chains from %d to %d, at most %d links", features.ErrOptions, co.From, co.To, co.MaxLinks)
	}
	if co.Chains == (analyze.ChainOptions{}) {
		co.Chains = analyze.DefaultOptions().Chains
	}
	ptjobs, err := p.PartitionJobs(r.tjobs)
	if err != nil {
		return ChainsSummary{}, err
	}
	fo := r.fo
	fo.Probes = max(fo.Probes, 1)
	if err := features.Normalise(&fo); err != nil {
		return ChainsSummary{}, err
	}
	step := r.opts.DecisionSec
	if step == 0 {
		step = 600
	}
	if step < 0 {
		return ChainsSummary{}, fmt.Errorf("%w: decision interval %d s", features.ErrOptions, step)
	}
	sum := ChainsSummary{From: co.From, To: co.To, MaxLinks: co.MaxLinks}
	links, skipped := r.chainLinks(ptjobs, co, &sum)
	out := make([][]ChainRow, len(links))
	status := make([]string, len(links))
	workers := r.replayOptions(r.fo).Workers
	errs := workpool.Run(ctx, workers, len(links), func(ctx context.Context, u int) error {
		rows, why, err := r.safeLink(ctx, &fo, ptjobs, links[u], step)
		if err != nil {
			l := links[u]
			return fmt.Errorf("real chain link %s -> %s: %w", ptjobs[l.pRow].JobID, ptjobs[l.qRow].JobID, err)
		}
		out[u], status[u] = rows, why
		return nil
	}, nil)
	if err := firstError(errs); err != nil {
		return ChainsSummary{}, err
	}
	for _, why := range status {
		if why != "" {
			skipped[why]++
		}
	}
	for _, why := range []string{SkipNotSimulated, SkipNeverStarts, SkipMaxLinks} {
		if n := skipped[why]; n > 0 {
			sum.Skipped = append(sum.Skipped, ChainSkip{Reason: why, Links: n})
		}
	}
	sum.Policies = make([]ChainPolicy, len(r.policies))
	for i, pol := range r.policies {
		sum.Policies[i].Policy = pol.Name()
	}
	for _, rows := range out { // in link order: the same sums every run
		if len(rows) == 0 {
			continue
		}
		sum.Replayed++
		first := rows[0]
		sum.RealInterruptionH += InterruptionH(first.RealRSec)
		sum.RealOverlapH += OverlapH(first.RealRSec)
		sum.ReactiveH += InterruptionH(first.ReactiveRSec)
		sum.ReactiveOverlapH += OverlapH(first.ReactiveRSec)
		for i, row := range rows {
			cp := &sum.Policies[i]
			cp.InterruptionH += InterruptionH(row.RSec)
			cp.OverlapH += OverlapH(row.RSec)
			if row.RSec <= 0 {
				cp.ZeroInterruption++
			}
		}
		sum.Rows = append(sum.Rows, rows...)
	}
	return sum, nil
}

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// chainLinks detects the chains of ptjobs, keeps those whose head is in
// co's span (in head-submission order) and returns their first
// co.MaxLinks simulated links, counting the others by reason.
func (r prepared) chainLinks(ptjobs []trace.Job, co ChainsOptions, sum *ChainsSummary) ([]chainLink, map[string]int) {
	skipped := map[string]int{}
	simOf := make(map[string]int, len(r.jobs))
	for i := range r.jobs {
		if _, dup := simOf[r.jobs[i].Name]; !dup {
			simOf[r.jobs[i].Name] = i
		}
	}
	var chains [][]int
	for _, c := range analyze.ChainRows(ptjobs, co.Chains) {
		s := ptjobs[c[0]].Submit.Unix()
		if (co.From == 0 || s >= co.From) && (co.To == 0 || s < co.To) {
			chains = append(chains, c)
		}
	}
	slices.SortStableFunc(chains, func(a, b []int) int {
		return cmp.Compare(ptjobs[a[0]].Submit.Unix(), ptjobs[b[0]].Submit.Unix())
	})
	sum.Chains = len(chains)
	var links []chainLink
	for ci, c := range chains {
		var exclude []int
		for _, row := range c {
			if i, ok := simOf[ptjobs[row].JobID]; ok {
				exclude = append(exclude, i)
			}
		}
		for k := range len(c) - 1 {
			sum.Links++
			pi, okP := simOf[ptjobs[c[k]].JobID]
			qi, okQ := simOf[ptjobs[c[k+1]].JobID]
			switch {
			case !okP || !okQ:
				skipped[SkipNotSimulated]++
			case len(links) >= co.MaxLinks:
				skipped[SkipMaxLinks]++
			default:
				links = append(links, chainLink{chain: ci, link: k, pRow: c[k], qRow: c[k+1], pSim: pi, qSim: qi, exclude: exclude})
			}
		}
	}
	return links, skipped
}

func (r prepared) safeLink(ctx context.Context, fo *features.Options, ptjobs []trace.Job, l chainLink, step int64) (rows []ChainRow, skip string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return r.replayLink(ctx, fo, ptjobs, l, step)
}

// replayLink replays one link with every policy; skip is the reason it
// was not replayed ("" when it was).
func (r prepared) replayLink(ctx context.Context, fo *features.Options, ptjobs []trace.Job, l chainLink, step int64) ([]ChainRow, string, error) {
	p, q := r.jobs[l.pSim], r.jobs[l.qSim]
	q.User = p.User
	tl, err := features.NewChainTimeline(ctx, r.jobs, fo, features.ChainLink{P: p, Q: q, Exclude: l.exclude})
	if err != nil {
		return nil, "", err
	}
	o, err := decideChain(ctx, tl, r.policies, step, r.opts.Lambda)
	if errors.Is(err, sim.ErrNeverStarts) {
		return nil, SkipNeverStarts, nil
	} else if err != nil {
		return nil, "", err
	}
	tp, tq := &ptjobs[l.pRow], &ptjobs[l.qRow]
	realPEnd, realQStart := tp.End.Unix(), tq.Start.Unix()
	rows := make([]ChainRow, len(r.policies))
	for i, pol := range r.policies {
		lb := o.label(i)
		rows[i] = ChainRow{Chain: l.chain, Link: l.link, PJob: tp.JobID, QJob: tq.JobID,
			PNodes: o.p.Nodes, QNodes: tl.Q().Nodes, RealPEnd: realPEnd, RealQStart: realQStart,
			RealRSec: realQStart - realPEnd, Policy: pol.Name(), PSubmit: o.p.Submit, PStart: o.pStart, PEnd: o.pEnd,
			Submit: o.grid[o.chosen[i]], QStart: lb.qStart, RSec: lb.rSec, ReactiveRSec: o.labels[len(o.grid)-1].rSec}
	}
	return rows, "", nil
}

// ProtocolSpan returns the span of p's windows, Unix seconds: the first
// window's start to the last one's end (its workload), the default span
// of the real chains' heads.
func ProtocolSpan(p features.Protocol) (from, to int64, err error) {
	loc, err := time.LoadLocation(p.TZ)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: zone: %w", features.ErrOptions, err)
	}
	start, err := time.ParseInLocation("2006-01-02T15:04:05", p.Start, loc)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: start: %w", features.ErrOptions, err)
	}
	end := start.Add(time.Duration(max(p.Windows-1, 0))*p.Interval + p.Workload)
	return start.Unix(), end.Unix(), nil
}
