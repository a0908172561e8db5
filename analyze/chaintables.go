package analyze

import (
	"cmp"
	"slices"
)

// chainMonthSec is the length of a chain-month: 30.44 days.
const chainMonthSec = 30.44 * 86400

// ChainSummary is the service chains' overall figures (summary.json's
// "chains"). Hours are sums over links; r = successor start -
// predecessor end.
type ChainSummary struct {
	Options ChainOptions `json:"options"`
	Chains  int64        `json:"chains"`
	Links   int64        `json:"links"`
	// JobsInChains counts the jobs of every chain (heads included).
	JobsInChains int64 `json:"jobs_in_chains"`
	Interrupted  int64 `json:"interrupted_links"`
	Overlapping  int64 `json:"overlapping_links"`
	Before       int64 `json:"submitted_before_end"`
	After        int64 `json:"submitted_after_end"`
	// InterruptH and OverlapH sum max(r, 0) and max(-r, 0) in hours;
	// ChainMonths the chains' spans in 30.44-day months.
	InterruptH   float64 `json:"interruption_hours"`
	OverlapH     float64 `json:"overlap_hours"`
	ChainMonths  float64 `json:"chain_months"`
	InterruptPCM float64 `json:"interruption_hours_per_chain_month"`
	MedianRSec   float64 `json:"median_r_sec"`
	// Replay figures, over the replayed links only.
	ReplayedChains     int64   `json:"replayed_chains"`
	ReplayedLinks      int64   `json:"replayed_links"`
	RealReplayedH      float64 `json:"real_interruption_hours_replayed"`
	ReactiveInterruptH float64 `json:"reactive_interruption_hours"`
	ReactiveOverlapH   float64 `json:"reactive_overlap_hours"`
	OracleInterruptH   float64 `json:"oracle_interruption_hours"`
	OracleOverlapH     float64 `json:"oracle_overlap_hours"`
	// DependencyJobs counts the jobs whose last pending reason was
	// Dependency (held by sbatch --dependency), DependencyLinked those
	// the detector linked to a predecessor.
	DependencyJobs   int64 `json:"dependency_jobs"`
	DependencyLinked int64 `json:"dependency_jobs_linked"`
}

func hours(sec int64) float64 { return float64(sec) / 3600 }

// chainSet is the detected chains with their replays, from which the
// chain tables are generated a chain at a time (a 10 M-job trace has
// hundreds of thousands of chains: their rows are never all in memory).
type chainSet struct {
	chains []*chain
	sims   map[int32][]linkSim // nil when nothing was replayed
	order  []int               // chain indices by head row: chain_id order
}

func newChainSet(d *detector, sims map[int32][]linkSim) *chainSet {
	cs := &chainSet{chains: d.chains, sims: sims, order: make([]int, len(d.chains))}
	for i := range cs.order {
		cs.order[i] = i
	}
	slices.SortFunc(cs.order, func(a, b int) int { return cmp.Compare(d.chains[a].jobs[0].row, d.chains[b].jobs[0].row) })
	return cs
}

// each calls fn with every chain's row and its links, in chain_id order
// (chains are numbered in the order of their heads in the trace). fn
// must not keep links.
func (cs *chainSet) each(fn func(ChainRow, []LinkRow)) {
	var links []LinkRow
	for id, ci := range cs.order {
		c := cs.chains[ci]
		head, last := c.jobs[0], c.jobs[len(c.jobs)-1]
		row := ChainRow{Chain: int64(id + 1), User: c.user, Account: c.account, JobName: c.name,
			Nodes: head.nodes, TimelimitSec: head.limit, Jobs: int64(len(c.jobs)),
			FirstSubmit: head.submit * 1000, FirstStart: head.start * 1000, LastEnd: last.end * 1000,
			Links: int64(len(c.jobs) - 1)}
		row.ChainMonths = float64(last.end-head.start) / chainMonthSec
		ls := cs.sims[int32(ci)]
		links = links[:0]
		for k, q := range c.jobs[1:] {
			p := c.jobs[k]
			r := q.start - p.end
			lr := LinkRow{Chain: row.Chain, Link: int32(k + 1), PredJobID: p.jobID, SuccJobID: q.jobID,
				PredState: p.state.String(), MatchedBy: q.matchedBy(), PredEnd: p.end * 1000,
				SuccSubmit: q.submit * 1000, SuccStart: q.start * 1000, RSec: r, Provisioned: "after_end"}
			if q.submit < p.end {
				lr.Provisioned = "before_end"
				row.Before++
			} else {
				row.After++
			}
			if r > 0 {
				row.Interrupted++
				row.InterruptH += hours(r)
			} else if r < 0 {
				row.Overlapping++
				row.OverlapH += hours(-r)
			}
			if k < len(ls) && ls[k].replayed {
				l := ls[k]
				lr.Replayed, lr.ReactiveRSec, lr.OracleRSec, lr.OracleSubmitOffset = true, l.reactiveR, l.oracleR, l.oracleSubmitOffset
				row.Replayed++
				row.RealReplayedH += hours(max(r, 0))
				row.ReactiveInterruptH += hours(max(l.reactiveR, 0))
				row.ReactiveOverlapH += hours(max(-l.reactiveR, 0))
				row.OracleInterruptH += hours(max(l.oracleR, 0))
				row.OracleOverlapH += hours(max(-l.oracleR, 0))
			}
			links = append(links, lr)
		}
		if row.ChainMonths > 0 {
			row.InterruptPCM = row.InterruptH / row.ChainMonths
		}
		fn(row, links)
	}
}

// summary returns the chains' overall figures and chain_lengths.parquet.
func (cs *chainSet) summary(d *detector) (ChainSummary, []LengthRow) {
	sum := ChainSummary{Options: d.o, DependencyJobs: d.depJobs, DependencyLinked: d.depLinked}
	lengths := map[int64]int64{}
	var rs []int64
	cs.each(func(row ChainRow, links []LinkRow) {
		for _, l := range links {
			rs = append(rs, l.RSec)
		}
		lengths[row.Jobs]++
		sum.Chains++
		sum.Links += row.Links
		sum.JobsInChains += row.Jobs
		sum.Interrupted += row.Interrupted
		sum.Overlapping += row.Overlapping
		sum.Before += row.Before
		sum.After += row.After
		sum.InterruptH += row.InterruptH
		sum.OverlapH += row.OverlapH
		sum.ChainMonths += row.ChainMonths
		if row.Replayed > 0 {
			sum.ReplayedChains++
		}
		sum.ReplayedLinks += row.Replayed
		sum.RealReplayedH += row.RealReplayedH
		sum.ReactiveInterruptH += row.ReactiveInterruptH
		sum.ReactiveOverlapH += row.ReactiveOverlapH
		sum.OracleInterruptH += row.OracleInterruptH
		sum.OracleOverlapH += row.OracleOverlapH
	})
	if sum.ChainMonths > 0 {
		sum.InterruptPCM = sum.InterruptH / sum.ChainMonths
	}
	if len(rs) > 0 { // the lower median of r, sign included, exact to the second
		slices.Sort(rs)
		sum.MedianRSec = float64(rs[(len(rs)-1)/2])
	}
	var lrows []LengthRow
	for _, n := range sortedKeys(lengths) {
		lrows = append(lrows, LengthRow{Length: n, Chains: lengths[n]})
	}
	return sum, lrows
}
