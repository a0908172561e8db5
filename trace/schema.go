package trace

import (
	"errors"
	"time"

	"github.com/parquet-go/parquet-go"
)

// SchemaVersion is the newest version of the Parquet layout written by
// Writer. Bump it when a column is added, removed or changes meaning, keep
// a fixture of the old version in testdata, and keep reading it.
//
// Version 3 adds time_min_sec (Job.TimeMinSec). Writer writes a file
// without a time-min as version 2, byte for byte as before (row's
// columns), and one where some job has a time-min as version 3 (rowV3's).
const SchemaVersion = 3

// schemaV2 is the version of a file without the time_min_sec column.
const schemaV2 = 2

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

// rowV3 is row with schema version 3's column, time_min_sec (NULL when
// the job has none), after timelimit_sec. (It repeats row's fields: an
// embedded row reads NULLs of its optional columns as zeros.) Readers decode a file with that column into it and
// one without (versions 1 and 2) into row, so that parquet-go reads
// each file in its own schema and converts nothing (its conversion of a
// file that lacks a column reads NULLs of the others as zeros).
type rowV3 struct {
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
	TimeMinSec   *int64 `parquet:"time_min_sec,optional"`
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

// v3Of returns r as a rowV3 without a time-min.
func v3Of(r *row) rowV3 {
	return rowV3{
		JobID:        r.JobID,
		JobIDRaw:     r.JobIDRaw,
		ArrayJobID:   r.ArrayJobID,
		ArrayTaskID:  r.ArrayTaskID,
		HetJobID:     r.HetJobID,
		HetOffset:    r.HetOffset,
		Cluster:      r.Cluster,
		Partition:    r.Partition,
		Account:      r.Account,
		User:         r.User,
		UID:          r.UID,
		Group:        r.Group,
		GID:          r.GID,
		JobName:      r.JobName,
		QOS:          r.QOS,
		State:        r.State,
		CancelledBy:  r.CancelledBy,
		Reason:       r.Reason,
		ExitCode:     r.ExitCode,
		ExitSignal:   r.ExitSignal,
		Submit:       r.Submit,
		Eligible:     r.Eligible,
		Start:        r.Start,
		End:          r.End,
		StartUnknown: r.StartUnknown,
		ElapsedSec:   r.ElapsedSec,
		TimelimitSec: r.TimelimitSec,
		NNodes:       r.NNodes,
		NCPUs:        r.NCPUs,
		NGPUs:        r.NGPUs,
		ReqMemMB:     r.ReqMemMB,
		Priority:     r.Priority,
		Attempt:      r.Attempt,
		Steps:        r.Steps,
		Repair:       r.Repair,
		SourceFile:   r.SourceFile,
		SourceLine:   r.SourceLine,
	}
}

// rowReader reads a file's rows into rowV3s: through a reader of rowV3
// for a file with time_min_sec, and of row for one without.
type rowReader struct {
	r2  *parquet.GenericReader[row]
	r3  *parquet.GenericReader[rowV3]
	buf []row
}

func newRowReader(f *parquet.File) *rowReader {
	if _, ok := f.Schema().Lookup("time_min_sec"); ok {
		return &rowReader{r3: parquet.NewGenericReader[rowV3](f)}
	}
	return &rowReader{r2: parquet.NewGenericReader[row](f)}
}

// Read fills dst as parquet.GenericReader.Read does (readRows: a panic
// of the library is an error wrapping ErrDamaged).
func (rr *rowReader) Read(dst []rowV3) (int, error) {
	if rr.r3 != nil {
		return readRows(rr.r3, dst)
	}
	if cap(rr.buf) < len(dst) {
		rr.buf = make([]row, len(dst))
	}
	buf := rr.buf[:len(dst)]
	n, err := readRows(rr.r2, buf)
	for i := range n {
		dst[i] = v3Of(&buf[i])
	}
	return n, err
}

func (rr *rowReader) Close() error {
	if rr.r3 != nil {
		return rr.r3.Close()
	}
	return rr.r2.Close()
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

func fromRow(j *Job, r *rowV3) error {
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
		TimeMinSec:   valueOr(r.TimeMinSec, 0),
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
