package trace

import (
	"errors"
	"time"
)

// SchemaVersion is the version of the Parquet layout written by Writer.
// Bump it when a column is added, removed or changes meaning, keep a fixture
// of the old version in testdata, and keep reading it.
const SchemaVersion = 2

// MetaSchemaVersion is the key-value metadata key that holds SchemaVersion.
const MetaSchemaVersion = "mirage.trace.schema_version"

// ErrSchemaVersion is returned by Open for a file without a schema version
// or with one newer than SchemaVersion.
var ErrSchemaVersion = errors.New("unsupported trace schema version")

// row is the Parquet representation of a Job: its schema is the file's,
// and Reader decodes into it (Writer encodes Jobs column by column
// instead; see jobColumns). Nullable columns are pointers (or optional
// fields whose zero value is never valid, such as times and empty
// strings), so readers such as DuckDB and pandas see SQL NULLs where the
// input said Unknown or None.
type row struct {
	JobID        string `parquet:"job_id"`
	JobIDRaw     int64  `parquet:"job_id_raw,optional,delta"`
	ArrayJobID   int64  `parquet:"array_job_id,optional"`
	ArrayTaskID  *int64 `parquet:"array_task_id,optional"`
	HetJobID     int64  `parquet:"het_job_id,optional"`
	HetOffset    *int64 `parquet:"het_offset,optional"`
	Cluster      string `parquet:"cluster,dict"`
	Partition    string `parquet:"partition,optional,dict"`
	Account      string `parquet:"account,optional,dict"`
	User         string `parquet:"user,optional,dict"`
	UID          *int64 `parquet:"uid,optional"`
	Group        string `parquet:"group,optional,dict"`
	GID          *int64 `parquet:"gid,optional"`
	JobName      string `parquet:"job_name,optional,dict"`
	QOS          string `parquet:"qos,optional,dict"`
	State        string `parquet:"state,enum,dict"`
	CancelledBy  *int64 `parquet:"cancelled_by,optional"`
	Reason       string `parquet:"reason,optional,dict"`
	ExitCode     int32  `parquet:"exit_code"`
	ExitSignal   int32  `parquet:"exit_signal"`
	Submit       *int64 `parquet:"submit,optional,timestamp(millisecond)"`
	Eligible     *int64 `parquet:"eligible,optional,timestamp(millisecond)"`
	Start        *int64 `parquet:"start,optional,timestamp(millisecond)"`
	End          *int64 `parquet:"end,optional,timestamp(millisecond)"`
	StartUnknown bool   `parquet:"start_unknown"`
	ElapsedSec   *int64 `parquet:"elapsed_sec,optional"`
	TimelimitSec *int64 `parquet:"timelimit_sec,optional"`
	NNodes       int32  `parquet:"nnodes"`
	NCPUs        int32  `parquet:"ncpus"`
	NGPUs        int32  `parquet:"ngpus"`
	ReqMemMB     *int64 `parquet:"req_mem_mb,optional"`
	Priority     *int64 `parquet:"priority,optional"`
	Attempt      int32  `parquet:"attempt"`
	Steps        int32  `parquet:"steps"`
	Repair       string `parquet:"repair,optional,dict"`
	SourceFile   string `parquet:"source_file,dict"`
	SourceLine   int64  `parquet:"source_line,delta"`
}

func fromMillis(ms *int64) time.Time {
	if ms == nil {
		return time.Time{}
	}
	return time.UnixMilli(*ms).UTC()
}

func valueOr(p *int64, unknown int64) int64 {
	if p == nil {
		return unknown
	}
	return *p
}

func fromRow(j *Job, r *row) error {
	st, _, err := ParseState(r.State)
	if r.State == stateNames[StateUnknown] {
		st, err = StateUnknown, nil
	}
	if err != nil {
		return err
	}
	*j = Job{
		JobID:        r.JobID,
		JobIDRaw:     r.JobIDRaw,
		ArrayJobID:   r.ArrayJobID,
		ArrayTaskID:  valueOr(r.ArrayTaskID, Unknown),
		HetJobID:     r.HetJobID,
		HetOffset:    valueOr(r.HetOffset, Unknown),
		Cluster:      r.Cluster,
		Partition:    r.Partition,
		Account:      r.Account,
		User:         r.User,
		UID:          valueOr(r.UID, NoID),
		Group:        r.Group,
		GID:          valueOr(r.GID, NoID),
		JobName:      r.JobName,
		QOS:          r.QOS,
		State:        st,
		CancelledBy:  valueOr(r.CancelledBy, NoID),
		Reason:       r.Reason,
		ExitCode:     r.ExitCode,
		ExitSignal:   r.ExitSignal,
		Submit:       fromMillis(r.Submit),
		Eligible:     fromMillis(r.Eligible),
		Start:        fromMillis(r.Start),
		End:          fromMillis(r.End),
		StartUnknown: r.StartUnknown,
		ElapsedSec:   valueOr(r.ElapsedSec, Unknown),
		TimelimitSec: valueOr(r.TimelimitSec, NoLimit),
		NNodes:       r.NNodes,
		NCPUs:        r.NCPUs,
		NGPUs:        r.NGPUs,
		ReqMemMB:     valueOr(r.ReqMemMB, Unknown),
		Priority:     valueOr(r.Priority, Unknown),
		Attempt:      r.Attempt,
		Steps:        r.Steps,
		Repair:       r.Repair,
		SourceFile:   r.SourceFile,
		SourceLine:   r.SourceLine,
	}
	return nil
}
