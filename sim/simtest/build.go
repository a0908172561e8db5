package simtest

import "github.com/mirage-hpc/mirage/sim"

// Job returns a job of nodes whole nodes submitted at submit (Unix
// seconds) with a time limit of limitSec and an actual run time of runSec
// seconds, for user 0, without a dependency, begin time or cancellation.
// Set the other fields on the result.
func Job(nodes int32, submit, limitSec, runSec int64) sim.Job {
	return sim.Job{User: 0, Nodes: nodes, Submit: submit, LimitSec: limitSec, RunSec: runSec, After: sim.NoJob}
}

// Cluster returns sim.DefaultConfig with nodes nodes and every priority
// weight zero, so the queue is in submission order (then ID order):
// conservative backfill every 600 s, 48 h window, 600 s resolution.
func Cluster(nodes int) sim.Config {
	c := sim.DefaultConfig()
	c.Nodes = nodes
	c.Priority.AgeWeight, c.Priority.SizeWeight, c.Priority.FairShareWeight = 0, 0, 0
	return c
}
