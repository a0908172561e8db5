package advise

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/trace"
)

// SacctFields are the columns of the sacct call SacctArgs builds. The job
// name is left out: history needs none, and a name cannot then break a
// row.
const SacctFields = "JobID,JobIDRaw,User,Partition,State,Submit,Eligible,Start,End,Timelimit,NNodes"

// SacctRuntimeFields are SacctFields plus what a run-time model reads of
// every job (train/jobruntime): its name, account, QOS, CPUs and GPUs
// (from AllocTRES, else ReqTRES, as ingest reads them).
const SacctRuntimeFields = SacctFields + ",JobName,Account,QOS,NCPUS,AllocTRES,ReqTRES"

// SacctArgs returns the arguments of the sacct call ParseSacct reads:
// every user's allocations (no steps) that were pending, running or
// ended in [from, to] (Unix seconds, printed in the local zone as sacct
// expects), '|'-separated with a header.
func SacctArgs(from, to int64) []string {
	return sacctArgs(from, to, "--format="+SacctFields)
}

// SacctRuntimeArgs are SacctArgs for a model whose features need a
// run-time model: SacctRuntimeFields, tab-separated (--delimiter), so
// that a '|' in a job name cannot break a row (ParseSacct reads either
// separator). A row whose job name holds a tab is skipped and counted
// (ParseSacct's second result).
func SacctRuntimeArgs(from, to int64) []string {
	return sacctArgs(from, to, "--format="+SacctRuntimeFields, "--delimiter=\t")
}

func sacctArgs(from, to int64, format ...string) []string {
	f := func(t int64) string { return time.Unix(t, 0).Format("2006-01-02T15:04:05") }
	return append([]string{"--allusers", "--allocations", "--parsable2", "--starttime=" + f(from), "--endtime=" + f(to)},
		format...)
}

// ParseSacct reads `sacct --parsable2` output (any columns ingest reads;
// SacctArgs' are enough) with ingest's sacct reader and returns the jobs
// in input order. Times printed without a zone are in loc (nil means
// UTC). Rows ingest quarantines (bad fields) are skipped and counted in
// the second result; the error is ingest's (wrapping its sentinels) for
// input that is not sacct output at all. An empty input (no header) is no
// jobs, not an error: a cluster without accounting prints nothing.
func ParseSacct(ctx context.Context, r io.Reader, loc *time.Location) ([]Job, int, error) {
	var jobs []Job
	bad := 0
	opts := ingest.Options{Format: ingest.FormatSacct, Location: loc}
	_, err := ingest.Read(ctx, r, "sacct", opts, func(tj *trace.Job) error {
		jobs = append(jobs, fromTrace(tj))
		return nil
	}, func(ingest.QuarantineRecord) { bad++ })
	if err != nil {
		if isEmpty(err) {
			return nil, 0, nil
		}
		return nil, bad, fmt.Errorf("parse sacct: %w", err)
	}
	return jobs, bad, nil
}

func isEmpty(err error) bool { return errors.Is(err, ingest.ErrEmptyInput) }

// fromTrace converts an ingested sacct job.
func fromTrace(tj *trace.Job) Job {
	j := Job{
		ID: tj.JobID, Raw: tj.JobIDRaw, User: tj.User, Partition: tj.Partition, Reason: tj.Reason,
		Nodes: tj.NNodes, LimitSec: tj.TimelimitSec, Submit: unix(tj.Submit), Eligible: unix(tj.Eligible),
		Start: unix(tj.Start), End: unix(tj.End), Priority: tj.Priority, Name: tj.JobName,
		Account: tj.Account, QOS: tj.QOS, CPUs: tj.NCPUs, GPUs: tj.NGPUs,
	}
	if tj.StartUnknown {
		j.Start = 0
	}
	j.LimitSec, j.Priority = max(j.LimitSec, 0), max(j.Priority, 0) // -1: unknown or unlimited
	switch {
	case tj.State == trace.StatePending:
		j.State = ClassifyState("PENDING", tj.Reason)
	case tj.State == trace.StateRunning:
		j.State = JobRunning
	default:
		j.State = JobEnded
	}
	normaliseTimes(&j)
	return j
}

func unix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}
