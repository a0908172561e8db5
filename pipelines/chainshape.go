package pipelines

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/mirage-hpc/mirage/trace"
)

// defaultChainLimit is the chain's jobs' limit when a study sets none
// (features.Options.ChainLimitSec's default).
const defaultChainLimit = 48 * time.Hour

// longestLimit returns the longest time limit any of the jobs had
// (seconds), 0 when none is known.
func longestLimit(jobs []trace.Job) int64 {
	var m int64
	for i := range jobs {
		m = max(m, jobs[i].TimelimitSec)
	}
	return m
}

// chainShape is the chain shape a trace suggests: the limit of its
// long-running jobs and their common node counts.
type chainShape struct {
	// limit is the most common limit among the long jobs; longest the
	// longest limit of any job (seconds).
	limit, longest int64
	// nodes are the chain sizes: 1, and the long jobs' most common node
	// count above 1 when it is at most half the partition.
	nodes []int
	// why says how they were chosen.
	why string
}

// proposeChainShape proposes the chain's limit and sizes from the
// trace's jobs on a partition of partitionNodes nodes. A service chain
// runs its jobs to the limit, so the shape is that of the trace's long
// jobs: those whose limit is at least half the longest limit that at
// least 0.5 % of the jobs asked for (a handful of jobs with a special
// limit do not set the shape). Their most common limit is the chain's
// (ties: the longer), and their most common node count above 1 the
// second chain size. A trace without limits keeps the 48 h default.
func proposeChainShape(jobs []trace.Job, partitionNodes int) chainShape {
	count := map[int64]int{}
	n := 0
	for i := range jobs {
		if l := jobs[i].TimelimitSec; l > 0 {
			count[l]++
			n++
		}
	}
	sh := chainShape{limit: int64(defaultChainLimit / time.Second), longest: longestLimit(jobs), nodes: []int{1}}
	if n == 0 {
		sh.why = "the trace records no limits: the 48h default"
		if partitionNodes >= 16 {
			sh.nodes = append(sh.nodes, 8)
		}
		return sh
	}
	limits := make([]int64, 0, len(count))
	for l := range count {
		limits = append(limits, l)
	}
	slices.Sort(limits)
	common := limits[len(limits)-1] // the longest limit asked for by >= 0.5 % of the jobs
	for k := len(limits) - 1; k >= 0; k-- {
		if float64(count[limits[k]]) >= 0.005*float64(n) {
			common = limits[k]
			break
		}
	}
	best := int64(0)
	for _, l := range limits {
		if 2*l >= common && (best == 0 || count[l] > count[best] || count[l] == count[best] && l > best) {
			best = l
		}
	}
	// Limits are whole minutes in Slurm; round down so the chain never asks
	// for more than the jobs did.
	sh.limit = best / 60 * 60
	nodes := map[int]int{}
	long := 0
	for i := range jobs {
		if l := jobs[i].TimelimitSec; l > 0 && 2*l >= common && jobs[i].NNodes > 1 && int(jobs[i].NNodes) <= partitionNodes/2 {
			nodes[int(jobs[i].NNodes)]++
		}
		if l := jobs[i].TimelimitSec; l > 0 && 2*l >= common {
			long++
		}
	}
	if len(nodes) > 0 {
		sizes := make([]int, 0, len(nodes))
		for s := range nodes {
			sizes = append(sizes, s)
		}
		top := slices.MaxFunc(sizes, func(a, b int) int { return cmp.Or(cmp.Compare(nodes[a], nodes[b]), cmp.Compare(b, a)) })
		sh.nodes = append(sh.nodes, top)
	}
	sh.why = fmt.Sprintf("the limit %s is the most common of the trace's %d long jobs (limit at least half of %s, the longest limit 0.5%% of its jobs asked for); sizes 1 and the long jobs' most common multi-node size within half the partition",
		durText(sh.limit), long, durText(common))
	if len(sh.nodes) == 1 {
		sh.why = fmt.Sprintf("the limit %s is the most common of the trace's %d long jobs (limit at least half of %s, the longest limit 0.5%% of its jobs asked for); size 1 (no long multi-node jobs within half the partition)",
			durText(sh.limit), long, durText(common))
	}
	return sh
}

// checkChainLimit refuses a chain limit (0: the default) above the
// partition's maximum time maxTimeSec (0: unknown), or, when it is
// unknown, above the longest limit the partition's jobs had: a real
// Slurm would refuse the job.
func (s *Study) checkChainLimit(jobs []trace.Job, maxTimeSec int64) error {
	limit := time.Duration(s.Chains.Limit)
	if limit == 0 {
		limit = defaultChainLimit
	}
	most, what := maxTimeSec, "the partition's maximum time"
	if most <= 0 {
		most, what = longestLimit(jobs), "the longest limit of any of the trace's jobs"
	}
	if most > 0 && int64(limit/time.Second) > most {
		return fmt.Errorf("%w: chains.limit %s is above %s (%s): a real Slurm would refuse the chain's jobs; set chains.limit to at most %s",
			ErrStudy, durText(int64(limit/time.Second)), what, durText(most), durText(most))
	}
	return nil
}

// durText writes sec seconds as a study does ("48h", "80h59m").
func durText(sec int64) string {
	b, _ := Duration(time.Duration(sec) * time.Second).MarshalText()
	return string(b)
}
