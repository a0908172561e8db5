package sim_test

import (
	"cmp"
	"slices"
	"testing"

	"github.com/mirage-hpc/mirage/ingest/ls6test"
	"github.com/mirage-hpc/mirage/sim"
)

// gapMatches counts the jobs that ran and waited over a minute for which
// a job of the same user, submitted no later, ended within GapSec (120 s)
// before shift seconds before the job's trace start, and after the job's
// submission: the dependency rule's match, for shift 0, and for shift > 0
// the same window moved back, the rate at which such an end falls into a
// 2-minute window by chance while a job waits.
func gapMatches(jobs []sim.Job, shift int64) int {
	type end struct {
		at     int64
		submit int64
	}
	byUser := map[int32][]end{}
	for _, j := range jobs {
		if j.User >= 0 && j.TraceStart > 0 && j.RunSec > 0 {
			byUser[j.User] = append(byUser[j.User], end{j.TraceStart + j.RunSec, j.Submit})
		}
	}
	for _, es := range byUser {
		slices.SortFunc(es, func(a, b end) int { return cmp.Compare(a.at, b.at) })
	}
	n := 0
	for _, j := range jobs {
		if j.User < 0 || j.TraceStart <= 0 || j.TraceStart-j.Submit <= sim.DefaultMinWaitSec {
			continue
		}
		hi := j.TraceStart - shift
		lo := hi - sim.DefaultGapSec
		es := byUser[j.User]
		k, _ := slices.BinarySearchFunc(es, lo, func(e end, t int64) int { return cmp.Compare(e.at, t) })
		for ; k < len(es) && es[k].at <= hi; k++ {
			if es[k].submit <= j.Submit && es[k].at > j.Submit && es[k].at < j.TraceStart {
				n++
				break
			}
		}
	}
	return n
}

// TestLS6_DependencyHindsight measures how much of LS6's dependency
// inference could be coincidence: the matches the rule finds at a
// job's start against those found in 2-minute windows moved back (a
// same-user job ending while the job waited, by chance), and the
// dependencies RequireIdle drops (the partition had fewer idle nodes
// than the job needed when its predecessor ended). The figures are in
// sim/FIDELITY.md; the test fails if chance explained a fifth of them.
func TestLS6_DependencyHindsight(t *testing.T) {
	if testing.Short() {
		t.Skip("LS6 dependency measurement skipped in -short mode")
	}
	tjobs := ls6test.Jobs(t)
	jobs, _, err := sim.FromTrace(tjobs, sim.FromTraceOptions{MaxNodes: 80})
	if err != nil {
		t.Fatal(err)
	}
	at0 := gapMatches(jobs, 0)
	var chance float64
	shifts := []int64{600, 1200, 1800, 3600, 7200}
	for _, s := range shifts {
		m := gapMatches(jobs, s)
		t.Logf("window moved back %5d s: %d jobs match", s, m)
		chance += float64(m)
	}
	chance /= float64(len(shifts))
	idle := slices.Clone(jobs)
	inf := sim.InferDependencies(idle, sim.InferOptions{RequireIdle: true, Nodes: 80})
	t.Logf("at the start: %d jobs match; moved back (mean): %.0f (%.1f%%); RequireIdle keeps %d, drops %d (fewer idle nodes than needed)",
		at0, chance, 100*chance/float64(at0), inf.Jobs, inf.NotIdle)
	if chance > float64(at0)/5 {
		t.Errorf("chance matches %.0f of %d: over a fifth", chance, at0)
	}
}
