package ingest

import "github.com/mirage-hpc/mirage/trace"

// attempts numbers the requeue attempts of jobs that appear more than once
// (sacct -D): a row that follows a requeueable row (see
// trace.State.Requeueable) of the same cluster and JobID is the next
// attempt. Only requeued jobs are remembered, so memory stays small.
type attempts map[string]int32

// set sets j.Attempt and remembers j if it may be requeued.
func (a attempts) set(j *trace.Job) {
	key := j.Cluster + "\x00" + j.JobID
	if n, ok := a[key]; ok {
		j.Attempt = n
		delete(a, key)
	}
	if j.State.Requeueable() {
		a[key] = j.Attempt + 1
	}
}
