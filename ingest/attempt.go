package ingest

import "github.com/mirage-hpc/mirage/trace"

// attempts numbers the requeue attempts of jobs that appear more than once
// (sacct -D): a row that follows a requeueable row (see
// trace.State.Requeueable) of the same cluster and JobID is the next
// attempt. Only requeued jobs are remembered, so memory stays small.
type attempts map[string]int32

// set sets j.Attempt and remembers j if it may be requeued.
func (a attempts) set(j *trace.Job) {
	// The key is built on the stack; a lookup with string(key) does not
	// allocate, and most rows only look up.
	var buf [64]byte
	key := append(append(append(buf[:0], j.Cluster...), 0), j.JobID...)
	if n, ok := a[string(key)]; ok {
		j.Attempt = n
		delete(a, string(key))
	}
	if j.State.Requeueable() {
		a[string(key)] = j.Attempt + 1
	}
}
