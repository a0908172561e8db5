package trace

import (
	"fmt"
	"reflect"
	"time"
	"unsafe"

	"github.com/parquet-go/parquet-go"
)

// colWriter writes batches of Jobs straight into the column writers of a
// Parquet row group, one column at a time. It replaces the reflective
// GenericWriter[row].Write (which walks the row struct value by value)
// with one typed loop per column; the file, its schema (that of row) and
// its row groups are the same.
type colWriter struct {
	pw      parquetWriter
	rg      *parquet.ConcurrentRowGroupWriter
	cols    []colSpec
	vals    []parquet.Value
	rgRows  int64 // rows in rg
	maxRows int64 // rows per row group
}

// parquetWriter is the part of parquet.GenericWriter that colWriter and
// runWriter use: a GenericWriter[row] for a version 2 file, of rowV3 for
// version 3.
type parquetWriter interface {
	Schema() *parquet.Schema
	BeginRowGroup() *parquet.ConcurrentRowGroupWriter
	SetKeyValueMetadata(key, value string)
	Close() error
}

// colKind is how a Job field maps to a column.
type colKind uint8

const (
	colString    colKind = iota // required BYTE_ARRAY
	colOptString                // optional BYTE_ARRAY, "" is NULL
	colInt64                    // required INT64
	colOptInt64                 // optional INT64, null is NULL
	colInt32                    // required INT32
	colTime                     // optional TIMESTAMP(MILLIS), the zero Time is NULL
	colState                    // required BYTE_ARRAY, State.String
	colBool                     // required BOOLEAN
)

// colSpec is one column: its name in row's schema, kind and accessor.
type colSpec struct {
	name string
	kind colKind
	null int64 // for colOptInt64: the value written as NULL
	v3   bool  // a column of schema version 3 only (rowV3): absent from version 2 files

	off uintptr // offset of the field in Job (unsafe.Offsetof)

	// Set by newColWriter from the schema.
	index int
	def   int // max definition level
}

// jobColumns lists the columns of rowV3 with their Job accessors. Every
// column of row and rowV3 must appear here (newColWriter checks); a
// version 2 file (row) has those not marked v3.
var jobColumns = []colSpec{
	{name: "job_id", kind: colString, off: unsafe.Offsetof(Job{}.JobID)},
	{name: "job_id_raw", kind: colOptInt64, null: 0, off: unsafe.Offsetof(Job{}.JobIDRaw)},
	{name: "array_job_id", kind: colOptInt64, null: 0, off: unsafe.Offsetof(Job{}.ArrayJobID)},
	{name: "array_task_id", kind: colOptInt64, null: Unknown, off: unsafe.Offsetof(Job{}.ArrayTaskID)},
	{name: "het_job_id", kind: colOptInt64, null: 0, off: unsafe.Offsetof(Job{}.HetJobID)},
	{name: "het_offset", kind: colOptInt64, null: Unknown, off: unsafe.Offsetof(Job{}.HetOffset)},
	{name: "cluster", kind: colString, off: unsafe.Offsetof(Job{}.Cluster)},
	{name: "partition", kind: colOptString, off: unsafe.Offsetof(Job{}.Partition)},
	{name: "account", kind: colOptString, off: unsafe.Offsetof(Job{}.Account)},
	{name: "user", kind: colOptString, off: unsafe.Offsetof(Job{}.User)},
	{name: "uid", kind: colOptInt64, null: NoID, off: unsafe.Offsetof(Job{}.UID)},
	{name: "group", kind: colOptString, off: unsafe.Offsetof(Job{}.Group)},
	{name: "gid", kind: colOptInt64, null: NoID, off: unsafe.Offsetof(Job{}.GID)},
	{name: "job_name", kind: colOptString, off: unsafe.Offsetof(Job{}.JobName)},
	{name: "qos", kind: colOptString, off: unsafe.Offsetof(Job{}.QOS)},
	{name: "state", kind: colState, off: unsafe.Offsetof(Job{}.State)},
	{name: "cancelled_by", kind: colOptInt64, null: NoID, off: unsafe.Offsetof(Job{}.CancelledBy)},
	{name: "reason", kind: colOptString, off: unsafe.Offsetof(Job{}.Reason)},
	{name: "exit_code", kind: colInt32, off: unsafe.Offsetof(Job{}.ExitCode)},
	{name: "exit_signal", kind: colInt32, off: unsafe.Offsetof(Job{}.ExitSignal)},
	{name: "submit", kind: colTime, off: unsafe.Offsetof(Job{}.Submit)},
	{name: "eligible", kind: colTime, off: unsafe.Offsetof(Job{}.Eligible)},
	{name: "start", kind: colTime, off: unsafe.Offsetof(Job{}.Start)},
	{name: "end", kind: colTime, off: unsafe.Offsetof(Job{}.End)},
	{name: "start_unknown", kind: colBool, off: unsafe.Offsetof(Job{}.StartUnknown)},
	{name: "elapsed_sec", kind: colOptInt64, null: Unknown, off: unsafe.Offsetof(Job{}.ElapsedSec)},
	{name: "timelimit_sec", kind: colOptInt64, null: NoLimit, off: unsafe.Offsetof(Job{}.TimelimitSec)},
	{name: "time_min_sec", kind: colOptInt64, null: 0, off: unsafe.Offsetof(Job{}.TimeMinSec), v3: true},
	{name: "nnodes", kind: colInt32, off: unsafe.Offsetof(Job{}.NNodes)},
	{name: "ncpus", kind: colInt32, off: unsafe.Offsetof(Job{}.NCPUs)},
	{name: "ngpus", kind: colInt32, off: unsafe.Offsetof(Job{}.NGPUs)},
	{name: "req_mem_mb", kind: colOptInt64, null: Unknown, off: unsafe.Offsetof(Job{}.ReqMemMB)},
	{name: "priority", kind: colOptInt64, null: Unknown, off: unsafe.Offsetof(Job{}.Priority)},
	{name: "attempt", kind: colInt32, off: unsafe.Offsetof(Job{}.Attempt)},
	{name: "steps", kind: colInt32, off: unsafe.Offsetof(Job{}.Steps)},
	{name: "repair", kind: colOptString, off: unsafe.Offsetof(Job{}.Repair)},
	{name: "source_file", kind: colString, off: unsafe.Offsetof(Job{}.SourceFile)},
	{name: "source_line", kind: colInt64, off: unsafe.Offsetof(Job{}.SourceLine)},
}

func newColWriter(pw parquetWriter, maxRows int64) (*colWriter, error) {
	schema := pw.Schema()
	cols := make([]colSpec, 0, len(jobColumns))
	for _, c := range jobColumns {
		if _, ok := schema.Lookup(c.name); ok || !c.v3 {
			cols = append(cols, c) // a version 2 file has no v3 column
		}
	}
	seen := make([]bool, len(schema.Columns()))
	for i := range cols {
		leaf, ok := schema.Lookup(cols[i].name)
		if !ok {
			return nil, fmt.Errorf("trace schema has no column %q", cols[i].name)
		}
		if err := checkOffset(&cols[i]); err != nil {
			return nil, err
		}
		cols[i].index, cols[i].def = leaf.ColumnIndex, leaf.MaxDefinitionLevel
		seen[leaf.ColumnIndex] = true
	}
	for i, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("trace column %v has no writer", schema.Columns()[i])
		}
	}
	return &colWriter{pw: pw, cols: cols, maxRows: maxRows, vals: make([]parquet.Value, writeBatch)}, nil
}

// kindTypes is the Job field type each column kind reads.
var kindTypes = map[colKind]reflect.Type{
	colString: reflect.TypeFor[string](), colOptString: reflect.TypeFor[string](),
	colInt64: reflect.TypeFor[int64](), colOptInt64: reflect.TypeFor[int64](),
	colInt32: reflect.TypeFor[int32](), colTime: reflect.TypeFor[time.Time](),
	colState: reflect.TypeFor[State](), colBool: reflect.TypeFor[bool](),
}

// checkOffset verifies that spec's offset is that of a Job field of the
// type its kind reads, so that a change to Job cannot go unnoticed.
func checkOffset(spec *colSpec) error {
	t := reflect.TypeFor[Job]()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Offset == spec.off && f.Type == kindTypes[spec.kind] {
			return nil
		}
	}
	return fmt.Errorf("trace column %q: no Job field of type %v at offset %d", spec.name, kindTypes[spec.kind], spec.off)
}

// write appends jobs, starting a new row group every maxRows rows.
func (cw *colWriter) write(jobs []Job) error {
	for len(jobs) > 0 {
		if cw.rg == nil {
			cw.rg = cw.pw.BeginRowGroup()
		}
		n := min(int64(len(jobs)), cw.maxRows-cw.rgRows, int64(len(cw.vals)))
		if err := cw.writeColumns(jobs[:n]); err != nil {
			return err
		}
		jobs = jobs[n:]
		if cw.rgRows += n; cw.rgRows == cw.maxRows {
			if err := cw.commit(); err != nil {
				return err
			}
		}
	}
	return nil
}

// commit writes the current row group, if it has rows.
func (cw *colWriter) commit() error {
	if cw.rg == nil || cw.rgRows == 0 {
		return nil
	}
	_, err := cw.rg.Commit()
	cw.rgRows = 0
	return err
}

// close commits the last row group and writes the footer.
func (cw *colWriter) close() error {
	if err := cw.commit(); err != nil {
		return err
	}
	return cw.pw.Close()
}

// bytesOf returns the bytes of s without copying; parquet-go copies what
// it keeps (into pages or the dictionary) and never writes through them.
func bytesOf(s string) []byte {
	if s == "" {
		return []byte{}
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// field returns a pointer to the field of j at offset off, which holds a T.
func field[T any](j *Job, off uintptr) *T { return (*T)(unsafe.Add(unsafe.Pointer(j), off)) }

func (cw *colWriter) writeColumns(jobs []Job) error {
	writers := cw.rg.ColumnWriters()
	vals := cw.vals[:len(jobs)]
	for c := range cw.cols {
		spec := &cw.cols[c]
		def, off := spec.def, spec.off
		switch spec.kind {
		case colString:
			for i := range jobs {
				vals[i] = parquet.ByteArrayValue(bytesOf(*field[string](&jobs[i], off)))
				vals[i].SetDefinitionLevel(def)
			}
		case colState:
			for i := range jobs {
				vals[i] = parquet.ByteArrayValue(bytesOf(jobs[i].State.String()))
				vals[i].SetDefinitionLevel(def)
			}
		case colOptString:
			for i := range jobs {
				if s := *field[string](&jobs[i], off); s != "" {
					vals[i] = parquet.ByteArrayValue(bytesOf(s))
					vals[i].SetDefinitionLevel(def)
				} else {
					vals[i] = parquet.NullValue()
				}
			}
		case colInt64:
			for i := range jobs {
				vals[i] = parquet.Int64Value(*field[int64](&jobs[i], off))
				vals[i].SetDefinitionLevel(def)
			}
		case colOptInt64:
			for i := range jobs {
				if v := *field[int64](&jobs[i], off); v != spec.null {
					vals[i] = parquet.Int64Value(v)
					vals[i].SetDefinitionLevel(def)
				} else {
					vals[i] = parquet.NullValue()
				}
			}
		case colInt32:
			for i := range jobs {
				vals[i] = parquet.Int32Value(*field[int32](&jobs[i], off))
				vals[i].SetDefinitionLevel(def)
			}
		case colBool:
			for i := range jobs {
				vals[i] = parquet.BooleanValue(*field[bool](&jobs[i], off))
				vals[i].SetDefinitionLevel(def)
			}
		case colTime:
			for i := range jobs {
				if t := field[time.Time](&jobs[i], off); !t.IsZero() {
					vals[i] = parquet.Int64Value(t.UnixMilli())
					vals[i].SetDefinitionLevel(def)
				} else {
					vals[i] = parquet.NullValue()
				}
			}
		}
		for i := range vals {
			vals[i].SetColumnIndex(spec.index)
		}
		if _, err := writers[spec.index].WriteRowValues(vals); err != nil {
			return fmt.Errorf("write column %s: %w", spec.name, err)
		}
	}
	clear(vals) // drop references to the jobs' strings
	return nil
}
