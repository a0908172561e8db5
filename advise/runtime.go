package advise

import (
	"errors"
	"fmt"
	"time"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/jobruntime"
)

// ErrRuntimeModel means the run-time model a model's
// features.ModelEstimateName column was computed with
// (train.Manifest.RuntimeModel) is missing or unreadable, or its model
// file no longer has the manifest's SHA-256 (RuntimeModelSHA256). Open's
// error wraps it with train.ErrDigest.
var ErrRuntimeModel = errors.New("run-time model of the features missing or changed")

// openRuntimeModel opens the run-time model rtDir of model dir, whose
// manifest says its model file has SHA-256 sha (as evaluate.NewModel
// checks it), and then its files against its own manifest
// (jobruntime.Open).
func openRuntimeModel(dir, rtDir, sha string) (*jobruntime.Model, error) {
	got, err := jobruntime.ModelDigest(rtDir)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w: %w: run-time model %s (the model was trained with model sha256 %s): %w",
			dir, train.ErrDigest, ErrRuntimeModel, rtDir, sha, err)
	}
	if got != sha {
		return nil, fmt.Errorf("model %s: %w: %w: run-time model %s has model sha256 %s, the model was trained with %s",
			dir, train.ErrDigest, ErrRuntimeModel, rtDir, got, sha)
	}
	m, err := jobruntime.Open(rtDir)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w: %w: %w", dir, train.ErrDigest, ErrRuntimeModel, err)
	}
	return m, nil
}

// runtimeMedians returns m's predicted median run time (seconds,
// jobruntime.MedianSec) of every job of the rebuilt queue jobs, indexed by
// its job ID as features.State.MedianRunSec wants them: jobs[k] is the
// live job lj[src[k]]. The model reads each job as known at its
// submission, with the live jobs lj (the partition's queue and sacct
// history: the trace up to now) as the history, so it sees nothing after
// now. P (job pid) gets 0: it is planned with its limit, as
// features.Build plans P. A job the model cannot predict (no limit) gets
// 0 too.
func runtimeMedians(m *jobruntime.Model, lj []liveJob, src []int, jobs []sim.Job, pid sim.JobID) []int64 {
	tjobs := make([]trace.Job, len(lj))
	for i := range lj {
		tjobs[i] = lj[i].traceJob()
	}
	pmf, ok := m.DistributionOf(tjobs, src)
	edges := m.Manifest.Edges
	nb := len(edges) - 1
	med := make([]int64, len(jobs))
	for k := range jobs {
		if ok[k] && sim.JobID(k) != pid {
			med[k] = jobruntime.MedianSec(edges, pmf[k*nb:(k+1)*nb], jobs[k].LimitSec)
		}
	}
	return med
}

// traceJob returns the job as the run-time model reads a trace's job
// (ingest's reading of sacct): no End while it runs, no Start while it
// pends, trace.NoLimit for no limit.
func (j *liveJob) traceJob() trace.Job {
	t := trace.Job{
		JobID: j.ID, JobIDRaw: j.Raw, JobName: j.Name, User: j.User, UID: trace.NoID, GID: trace.NoID,
		CancelledBy: trace.NoID, Account: j.Account, Partition: j.Partition, QOS: j.QOS,
		NNodes: j.Nodes, NCPUs: j.CPUs, NGPUs: j.GPUs, TimelimitSec: j.LimitSec,
		Submit: unixTime(j.Submit), Eligible: unixTime(j.Eligible), Start: unixTime(j.Start), End: unixTime(j.End),
	}
	if t.TimelimitSec <= 0 {
		t.TimelimitSec = trace.NoLimit
	}
	return t
}

// unixTime is u (Unix seconds) as a time, the zero time for 0.
func unixTime(u int64) time.Time {
	if u == 0 {
		return time.Time{}
	}
	return time.Unix(u, 0).UTC()
}

// fillRuntimeFields gives j the run-time model's fields (Account, QOS,
// CPUs, GPUs) of h, sacct's record of the same job, where j (squeue's)
// has none.
func (j *Job) fillRuntimeFields(h *Job) {
	if j.Account == "" {
		j.Account = h.Account
	}
	if j.QOS == "" {
		j.QOS = h.QOS
	}
	if j.CPUs == 0 {
		j.CPUs = h.CPUs
	}
	if j.GPUs == 0 {
		j.GPUs = h.GPUs
	}
}
