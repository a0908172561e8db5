package simtest

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/mirage-hpc/mirage/sim"
)

// BusyJobs returns n deterministic jobs submitted over days days from
// start (Unix seconds) by 5 users, 1–4 nodes, limits of 1–24 h, run times
// up to the limit, each started in the trace within 4 h of its submission:
// a busy workload for an 8-node cluster. Sorted by submission (stable), as
// sim.FromTrace orders jobs.
func BusyJobs(n, days int, seed uint64, start int64) []sim.Job {
	r := rand.New(rand.NewPCG(seed, 1))
	jobs := make([]sim.Job, n)
	span := int64(days) * 86400
	for i := range jobs {
		submit := start + r.Int64N(span)
		limit := 3600 * (1 + r.Int64N(24))
		jobs[i] = sim.Job{
			Name: fmt.Sprint(i), User: int32(r.IntN(5)), Nodes: int32(1 + r.IntN(4)),
			Submit: submit, After: sim.NoJob, LimitSec: limit, RunSec: r.Int64N(limit + 1),
			TraceStart: submit + r.Int64N(4*3600),
		}
	}
	slices.SortStableFunc(jobs, func(a, b sim.Job) int { return int(a.Submit - b.Submit) })
	return jobs
}
