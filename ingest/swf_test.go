package ingest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/trace"
)

// swfEpoch is the UnixStartTime of the SWF fixtures: 2006-01-01T00:00:00Z.
const swfEpoch = 1136073600

// swfHeader is a minimal SWF header: UnixStartTime swfEpoch, 4 cores per node.
const swfHeader = "; Version: 2.2\n; UnixStartTime: 1136073600\n; MaxNodes: 10\n; MaxProcs: 40\n"

// swfEpochNote is the note for a header-less input without
// Options.StartTime.
const swfEpochNote = "no UnixStartTime header: times count from the Unix epoch, so dates are relative to 1970-01-01T00:00:00Z; pass --start-time to anchor them"

// swfCoresNote is the note for an input whose cores per node are unknown.
const swfCoresNote = "cores per node unknown (no MaxProcs/MaxNodes header): each processor was taken as a node (NNodes = NCPUs); pass --cores-per-node to set it"

// swfStartUnknownNote is the note for an input with one job that ran from
// an unknown start.
const swfStartUnknownNote = "1 job has a wait time of -1 but a known run time: it ran from an unknown start (start_unknown), and is left out of waits"

// swfAt returns the instant sec seconds after swfEpoch.
func swfAt(sec int64) time.Time { return time.Unix(swfEpoch+sec, 0).UTC() }

// swfResult is everything ingest.Read made of one SWF input.
type swfResult struct {
	Jobs       []trace.Job
	Quarantine []ingest.QuarantineRecord
	Summary    ingest.Summary
}

// swfRead runs ingest.Read over data, collecting jobs and quarantine records.
func swfRead(tb testing.TB, data []byte, name string, opts ingest.Options) (swfResult, error) {
	tb.Helper()
	var res swfResult
	sum, err := ingest.Read(context.Background(), bytes.NewReader(data), name, opts,
		func(j *trace.Job) error { res.Jobs = append(res.Jobs, *j); return nil },
		func(r ingest.QuarantineRecord) { res.Quarantine = append(res.Quarantine, r) })
	res.Summary = sum
	return res, err
}

// swfNewJob returns the job every SWF test job starts from: NewJob with
// the identity and position fields set; mod sets the rest.
func swfNewJob(file string, line, id int64, mod func(j *trace.Job)) trace.Job {
	j := trace.NewJob()
	j.JobID = fmt.Sprint(id)
	j.JobIDRaw = id
	j.Cluster = "test"
	j.SourceFile = file
	j.SourceLine = line
	mod(&j)
	return j
}

// swfSmallJobs are the jobs of testdata/swf/small.swf, read with Cluster
// "test".
func swfSmallJobs(file string) []trace.Job {
	return []trace.Job{
		swfNewJob(file, 18, 1, func(j *trace.Job) {
			j.Submit, j.Start, j.End = swfAt(0), swfAt(10), swfAt(3610)
			j.TimelimitSec, j.NCPUs, j.NNodes, j.ReqMemMB = 7200, 8, 2, 16
			j.State, j.UID, j.GID, j.QOS, j.Partition = trace.StateCompleted, 101, 11, "1", "1"
		}),
		swfNewJob(file, 19, 2, func(j *trace.Job) {
			j.Submit, j.Start, j.End = swfAt(60), swfAt(90), swfAt(210)
			j.TimelimitSec, j.NCPUs, j.NNodes, j.ReqMemMB = 600, 6, 2, 6
			j.State, j.UID, j.GID, j.QOS, j.Partition = trace.StateFailed, 102, 11, "1", "2"
		}),
		swfNewJob(file, 20, 3, func(j *trace.Job) { // cancelled before it started
			j.Submit, j.End = swfAt(120), swfAt(420)
			j.TimelimitSec, j.NCPUs, j.NNodes, j.ReqMemMB = 3600, 16, 4, 64
			j.State, j.UID, j.GID, j.QOS, j.Partition = trace.StateCancelled, 101, 11, "1", "1"
		}),
		swfNewJob(file, 21, 4, func(j *trace.Job) { // all -1
			j.Submit = swfAt(180)
		}),
		swfNewJob(file, 25, 5, func(j *trace.Job) { // decimals
			j.Submit, j.Start, j.End = swfAt(240), swfAt(252), swfAt(311)
			j.TimelimitSec, j.NCPUs, j.NNodes, j.ReqMemMB = 90, 2, 1, 2 // 1000.5 KB * 2 / 1024 = 1.95 MB
			j.State, j.UID, j.GID, j.QOS, j.Partition = trace.StateCompleted, 103, 12, "0", "2"
		}),
		swfNewJob(file, 27, 7, func(j *trace.Job) { // cancelled while running
			j.Submit, j.Start, j.End = swfAt(360), swfAt(420), swfAt(2220)
			j.TimelimitSec, j.NCPUs, j.NNodes = 3600, 5, 2
			j.State, j.UID, j.GID, j.QOS, j.Partition = trace.StateCancelled, 104, 12, "1", "1"
		}),
		swfNewJob(file, 28, 8, func(j *trace.Job) { // summary of two partial executions
			j.Submit, j.Start, j.End = swfAt(420), swfAt(420), swfAt(920)
			j.TimelimitSec, j.NCPUs, j.NNodes, j.Steps = 1000, 4, 1, 2
			j.State, j.UID, j.GID, j.QOS, j.Partition = trace.StateCompleted, 105, 13, "1", "1"
		}),
		swfNewJob(file, 32, 10, func(j *trace.Job) {
			j.Submit, j.Start, j.End = swfAt(540), swfAt(540), swfAt(640)
			j.NCPUs, j.NNodes = 401, 101
			j.State, j.UID, j.GID, j.QOS, j.Partition = trace.StateCompleted, 101, 11, "1", "1"
		}),
	}
}

// swfSmallQuarantine are the quarantine records of small.swf.
func swfSmallQuarantine(file string) []ingest.QuarantineRecord {
	return []ingest.QuarantineRecord{
		{File: file, Line: 26, Field: "wait_time", Reason: `invalid number: "abc"`,
			Raw: "    6      300    abc     10     1     -1     -1     1     60     -1  1  101  11   1  1  1  -1  -1"},
		{File: file, Line: 31, Field: "", Reason: "wrong number of fields: 5, want 18",
			Raw: "    9      480     10     10     1"},
	}
}

func swfReadFile(tb testing.TB, name string, opts ingest.Options) swfResult {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "swf", name))
	if err != nil {
		tb.Fatal(err)
	}
	res, err := swfRead(tb, data, name, opts)
	if err != nil {
		tb.Fatalf("Read(%s): %v", name, err)
	}
	return res
}

func TestReadSWF_Fixture(t *testing.T) {
	res := swfReadFile(t, "small.swf", ingest.Options{Cluster: "test", CoresPerNode: 32})
	if diff := cmp.Diff(swfSmallJobs("small.swf"), res.Jobs); diff != "" {
		t.Errorf("jobs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(swfSmallQuarantine("small.swf"), res.Quarantine); diff != "" {
		t.Errorf("quarantine (-want +got):\n%s", diff)
	}
	s := res.Summary
	if s.Format != "swf" || s.RowsRead != 12 || s.Jobs != 8 || s.StepsFolded != 2 || s.Quarantined != 2 || !s.Balanced {
		t.Errorf("summary = %+v\nwant format swf, 12 rows = 8 jobs + 2 steps + 2 quarantined, balanced", s)
	}
	if notes := s.Inputs[0].Notes; len(notes) != 0 {
		t.Errorf("notes = %q, want none", notes)
	}
}

func TestReadSWF_NoHeader(t *testing.T) {
	const file = "no_header.swf"
	at := func(sec int64) time.Time { return time.Unix(sec, 0).UTC() }
	jobs := func(nodes1, nodes2, nodes3 int32) []trace.Job {
		return []trace.Job{
			swfNewJob(file, 1, 1, func(j *trace.Job) {
				j.Submit, j.Start, j.End = at(0), at(5), at(105)
				j.TimelimitSec, j.NCPUs, j.NNodes = 300, 9, nodes1
				j.State, j.UID, j.GID, j.QOS, j.Partition = trace.StateCompleted, 7, 3, "1", "1"
			}),
			swfNewJob(file, 2, 2, func(j *trace.Job) { // 2048 KB * 3 allocated processors
				j.Submit, j.Start, j.End = at(10), at(10), at(60)
				j.TimelimitSec, j.NCPUs, j.NNodes, j.ReqMemMB = 300, 3, nodes2, 6
				j.State, j.UID, j.GID, j.QOS, j.Partition = trace.StateFailed, 7, 3, "1", "1"
			}),
			swfNewJob(file, 3, 3, func(j *trace.Job) { // never started; requested processors
				j.Submit = at(20)
				j.TimelimitSec, j.NCPUs, j.NNodes = 300, 2, nodes3
				j.State, j.UID, j.GID, j.QOS, j.Partition = trace.StateCancelled, 8, 3, "1", "1"
			}),
		}
	}
	tests := []struct {
		Name  string
		Cores int
		Want  []trace.Job
		Notes []string
	}{
		{"CoresPerNode", 4, jobs(3, 1, 1), []string{swfEpochNote}},
		{"ProcsAsNodes", 0, jobs(9, 3, 2), []string{swfEpochNote,
			swfCoresNote}},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			res := swfReadFile(t, file, ingest.Options{Cluster: "test", CoresPerNode: tt.Cores})
			if diff := cmp.Diff(tt.Want, res.Jobs); diff != "" {
				t.Errorf("jobs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.Notes, res.Summary.Inputs[0].Notes); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
			if len(res.Quarantine) != 0 || !res.Summary.Balanced {
				t.Errorf("quarantine = %v, summary = %+v", res.Quarantine, res.Summary)
			}
		})
	}
}

// swfLine builds a data line from a template whose fields are replaced by
// set (field number, 1-indexed as in the SWF specification -> text).
func swfLine(set map[int]string) string {
	f := strings.Fields("1 0 10 100 4 -1 -1 4 3600 -1 1 100 10 -1 1 1 -1 -1")
	for k, v := range set {
		f[k-1] = v
	}
	return strings.Join(f, " ")
}

func TestReadSWF_Mapping(t *testing.T) {
	// base is the job swfLine(nil) becomes after swfHeader, on line 5.
	base := func(line int64, mod func(j *trace.Job)) trace.Job {
		return swfNewJob("in.swf", line, 1, func(j *trace.Job) {
			j.Submit, j.Start, j.End = swfAt(0), swfAt(10), swfAt(110)
			j.TimelimitSec, j.NCPUs, j.NNodes = 3600, 4, 1
			j.State, j.UID, j.GID, j.QOS, j.Partition = trace.StateCompleted, 100, 10, "1", "1"
			mod(j)
		})
	}
	tests := []struct {
		Name  string
		Input string
		Opts  ingest.Options
		Want  []trace.Job
		Notes []string
	}{
		{
			Name:  "Completed",
			Input: swfHeader + swfLine(nil),
			Want:  []trace.Job{base(5, func(*trace.Job) {})},
		},
		{
			Name:  "Failed",
			Input: swfHeader + swfLine(map[int]string{11: "0"}),
			Want:  []trace.Job{base(5, func(j *trace.Job) { j.State = trace.StateFailed })},
		},
		{
			Name:  "CancelledBeforeStart",
			Input: swfHeader + swfLine(map[int]string{4: "0", 5: "-1", 11: "5"}),
			Want: []trace.Job{base(5, func(j *trace.Job) {
				j.State, j.Start, j.End = trace.StateCancelled, time.Time{}, swfAt(10)
			})},
		},
		{
			Name:  "CancelledUnknownWait",
			Input: swfHeader + swfLine(map[int]string{3: "-1", 4: "-1", 11: "5"}),
			Want: []trace.Job{base(5, func(j *trace.Job) {
				j.State, j.Start, j.End = trace.StateCancelled, time.Time{}, time.Time{}
			})},
		},
		{
			Name:  "CancelledWhileRunning",
			Input: swfHeader + swfLine(map[int]string{11: "5"}),
			Want:  []trace.Job{base(5, func(j *trace.Job) { j.State = trace.StateCancelled })},
		},
		{
			Name:  "UnknownRunTime",
			Input: swfHeader + swfLine(map[int]string{4: "-1", 11: "-1"}),
			Want: []trace.Job{base(5, func(j *trace.Job) {
				j.End, j.State = time.Time{}, trace.StateUnknown
			})},
		},
		{
			Name:  "UnknownSubmit",
			Input: swfHeader + swfLine(map[int]string{2: "-1"}),
			Want: []trace.Job{base(5, func(j *trace.Job) {
				j.Submit, j.Start, j.End = time.Time{}, time.Time{}, time.Time{}
			})},
		},
		{
			Name:  "UnknownIDs",
			Input: swfHeader + swfLine(map[int]string{9: "-1", 12: "-1", 13: "-1", 15: "-1", 16: "-1"}),
			Want: []trace.Job{base(5, func(j *trace.Job) {
				j.TimelimitSec, j.UID, j.GID, j.QOS, j.Partition = trace.NoLimit, trace.NoID, trace.NoID, "", ""
			})},
		},
		{
			Name:  "Decimals",
			Input: swfHeader + swfLine(map[int]string{2: "1.9", 3: "-1.0", 4: "0.5", 5: "4.00", 9: "59.99", 10: "0.5", 12: "7.0", 18: "2.25"}),
			Want: []trace.Job{base(5, func(j *trace.Job) {
				j.Submit, j.Start, j.End = swfAt(1), time.Time{}, time.Time{}
				j.StartUnknown, j.ElapsedSec = true, 0       // wait -1, run 0.5 s: ran from an unknown start
				j.TimelimitSec, j.ReqMemMB, j.UID = 59, 0, 7 // 0.5 KB * 4 / 1024 rounds to 0
			})},
			Notes: []string{swfStartUnknownNote},
		},
		{
			Name:  "MemoryRounded",
			Input: swfHeader + swfLine(map[int]string{5: "3", 10: "2000"}), // 5.86 MB
			Want:  []trace.Job{base(5, func(j *trace.Job) { j.NCPUs, j.ReqMemMB = 3, 6 })},
		},
		{
			Name:  "RequestedProcessors",
			Input: swfHeader + swfLine(map[int]string{5: "-1", 8: "12", 10: "1024"}),
			Want:  []trace.Job{base(5, func(j *trace.Job) { j.NCPUs, j.NNodes, j.ReqMemMB = 12, 3, 12 })},
		},
		{
			Name:  "ZeroAllocatedProcessors",
			Input: swfHeader + swfLine(map[int]string{5: "0", 8: "-1", 10: "1024"}),
			Want:  []trace.Job{base(5, func(j *trace.Job) { j.NCPUs, j.NNodes, j.ReqMemMB = 0, 0, 0 })},
		},
		{
			Name:  "UnknownProcessors",
			Input: swfHeader + swfLine(map[int]string{5: "-1", 8: "-1", 10: "1024"}),
			Want:  []trace.Job{base(5, func(j *trace.Job) { j.NCPUs, j.NNodes = 0, 0 })},
		},
		{
			Name:  "NodesFromHeader",
			Input: swfHeader + swfLine(map[int]string{5: "9"}),
			Opts:  ingest.Options{CoresPerNode: 8}, // the header wins
			Want:  []trace.Job{base(5, func(j *trace.Job) { j.NCPUs, j.NNodes = 9, 3 })},
		},
		{
			Name:  "NodesFromOption",
			Input: "; UnixStartTime: 1136073600\n" + swfLine(map[int]string{5: "9"}),
			Opts:  ingest.Options{CoresPerNode: 8},
			Want:  []trace.Job{base(2, func(j *trace.Job) { j.NCPUs, j.NNodes = 9, 2 })},
		},
		{
			Name:  "NodesHeaderUneven",
			Input: "; UnixStartTime: 1136073600\n; MaxNodes: 3\n; MaxProcs: 10\n" + swfLine(map[int]string{5: "9"}),
			Opts:  ingest.Options{CoresPerNode: 2},
			Want:  []trace.Job{base(4, func(j *trace.Job) { j.NCPUs, j.NNodes = 9, 5 })},
			Notes: []string{"MaxProcs 10 is not a multiple of MaxNodes 3: cores per node unknown from the header"},
		},
		{
			Name:  "NodesHeaderBad",
			Input: "; UnixStartTime: 1136073600\n; MaxNodes: many\n; MaxProcs: 40\n" + swfLine(map[int]string{5: "9"}),
			Want:  []trace.Job{base(4, func(j *trace.Job) { j.NCPUs, j.NNodes = 9, 9 })},
			Notes: []string{
				`header line 2: MaxNodes "many" is not a positive whole number; ignored`,
				swfCoresNote,
			},
		},
		{
			Name:  "NoUnixStartTime",
			Input: "; MaxNodes: 10\n; MaxProcs: 40\n" + swfLine(map[int]string{2: "86400"}),
			Want: []trace.Job{base(3, func(j *trace.Job) {
				j.Submit, j.Start, j.End = time.Unix(86400, 0).UTC(), time.Unix(86410, 0).UTC(), time.Unix(86510, 0).UTC()
			})},
			Notes: []string{swfEpochNote},
		},
		{
			Name:  "UnknownUnixStartTime",
			Input: "; UnixStartTime: -1\n; UnixStartTime:\n; MaxNodes: 10\n; MaxProcs: 40\n" + swfLine(map[int]string{2: "86400"}),
			Want: []trace.Job{base(5, func(j *trace.Job) {
				j.Submit, j.Start, j.End = time.Unix(86400, 0).UTC(), time.Unix(86410, 0).UTC(), time.Unix(86510, 0).UTC()
			})},
			Notes: []string{swfEpochNote},
		},
		{
			Name:  "Cluster",
			Input: swfHeader + swfLine(nil),
			Opts:  ingest.Options{Cluster: "other"},
			Want:  []trace.Job{base(5, func(j *trace.Job) { j.Cluster = "other" })},
		},
		{
			Name:  "TabsAndCRLF",
			Input: strings.ReplaceAll(swfHeader, "\n", "\r\n") + "\t" + strings.ReplaceAll(swfLine(nil), " ", "\t ") + " \r\n\r\n",
			Want:  []trace.Job{base(5, func(*trace.Job) {})},
		},
		{
			Name: "PartialAfterSummary",
			Input: swfHeader + swfLine(map[int]string{4: "300"}) + "\n" +
				swfLine(map[int]string{4: "100", 11: "2"}) + "\n" +
				swfLine(map[int]string{3: "200", 4: "200", 11: "3"}) + "\n" +
				swfLine(map[int]string{1: "2"}),
			Want: []trace.Job{
				base(5, func(j *trace.Job) { j.End, j.Steps = swfAt(310), 2 }),
				base(8, func(j *trace.Job) { j.JobID, j.JobIDRaw = "2", 2 }),
			},
		},
		{
			Name: "PartialBeforeSummary",
			Input: swfHeader + swfLine(map[int]string{4: "100", 11: "2"}) + "\n" +
				swfLine(map[int]string{3: "200", 4: "200", 11: "4"}) + "\n" +
				swfLine(map[int]string{4: "300", 11: "0"}),
			Want: []trace.Job{base(7, func(j *trace.Job) { j.End, j.Steps, j.State = swfAt(310), 2, trace.StateFailed })},
		},
		{
			Name: "PartialOnly",
			Input: swfHeader + swfLine(map[int]string{4: "100", 11: "2"}) + "\n" +
				swfLine(map[int]string{3: "200", 4: "200", 11: "3"}),
			Want: []trace.Job{base(5, func(j *trace.Job) { j.End, j.Steps = swfAt(400), 1 })},
		},
		{
			Name:  "PartialToBeContinued",
			Input: swfHeader + swfLine(map[int]string{11: "2"}),
			Want:  []trace.Job{base(5, func(j *trace.Job) { j.State = trace.StatePreempted })},
		},
		{
			Name:  "SameNumberNotAdjacent",
			Input: swfHeader + swfLine(nil) + "\n" + swfLine(map[int]string{1: "2"}) + "\n" + swfLine(map[int]string{2: "50"}),
			Want: []trace.Job{
				base(5, func(*trace.Job) {}),
				base(6, func(j *trace.Job) { j.JobID, j.JobIDRaw = "2", 2 }),
				base(7, func(j *trace.Job) { j.Submit, j.Start, j.End = swfAt(50), swfAt(60), swfAt(160) }),
			},
		},
		{
			Name:  "TwoSummaries",
			Input: swfHeader + swfLine(nil) + "\n" + swfLine(map[int]string{2: "50"}),
			Want: []trace.Job{
				base(5, func(*trace.Job) {}),
				base(6, func(j *trace.Job) { j.Submit, j.Start, j.End = swfAt(50), swfAt(60), swfAt(160) }),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			opts := tt.Opts
			if opts.Cluster == "" {
				opts.Cluster = "test"
			}
			res, err := swfRead(t, []byte(tt.Input), "in.swf", opts)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if diff := cmp.Diff(tt.Want, res.Jobs); diff != "" {
				t.Errorf("jobs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.Notes, res.Summary.Inputs[0].Notes); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
			if len(res.Quarantine) != 0 {
				t.Errorf("quarantined %v", res.Quarantine)
			}
			if !res.Summary.Balanced || res.Summary.Format != "swf" {
				t.Errorf("summary = %+v", res.Summary)
			}
		})
	}
}

func TestReadSWF_Quarantine(t *testing.T) {
	tests := []struct {
		Name   string
		Line   string
		Field  string
		Reason string
		Err    error
	}{
		{"TooFewFields", "1 0 10 100 4", "", "wrong number of fields: 5, want 18", ingest.ErrFieldCount},
		{"TooManyFields", swfLine(nil) + " 7", "", "wrong number of fields: 19, want 18", ingest.ErrFieldCount},
		{"Garbage", swfLine(map[int]string{3: "abc"}), "wait_time", `invalid number: "abc"`, ingest.ErrBadNumber},
		{"Exponent", swfLine(map[int]string{18: "1e5"}), "think_time", `invalid number: "1e5"`, ingest.ErrBadNumber},
		{"TwoDots", swfLine(map[int]string{4: "1.2.3"}), "run_time", `invalid number: "1.2.3"`, ingest.ErrBadNumber},
		{"LeadingDot", swfLine(map[int]string{2: ".5"}), "submit_time", `invalid number: ".5"`, ingest.ErrBadNumber},
		{"Negative", swfLine(map[int]string{3: "-5"}), "wait_time", `invalid number: "-5" (want -1 for unknown, or a value >= 0)`, ingest.ErrBadNumber},
		{"NegativeFraction", swfLine(map[int]string{4: "-0.5"}), "run_time", `invalid number: "-0.5" (want -1 for unknown, or a value >= 0)`, ingest.ErrBadNumber},
		{"FractionalProcessors", swfLine(map[int]string{5: "2.5"}), "allocated_processors", `invalid number: "2.5" (want a whole number)`, ingest.ErrBadNumber},
		{"FractionalUID", swfLine(map[int]string{12: "100.1"}), "user_id", `invalid number: "100.1" (want a whole number)`, ingest.ErrBadNumber},
		{"TooManyProcessors", swfLine(map[int]string{8: "2147483648"}), "requested_processors", `invalid number: "2147483648" is out of range`, ingest.ErrBadNumber},
		{"TimeOutOfRange", swfLine(map[int]string{4: "10000000001"}), "run_time", `invalid number: "10000000001" is out of range`, ingest.ErrBadNumber},
		{"TooLong", swfLine(map[int]string{13: "1234567890123456789"}), "group_id", `invalid number: "1234567890123456789"`, ingest.ErrBadNumber},
		{"MemoryOutOfRange", swfLine(map[int]string{10: "999999999999999999"}), "requested_memory",
			`invalid number: "999999999999999999" KB per processor * 4 processors is out of range`, ingest.ErrBadNumber},
		{"Status", swfLine(map[int]string{11: "7"}), "status", `invalid job state: SWF status "7" (want 0, 1, 2, 3, 4, 5 or -1)`, trace.ErrBadState},
		{"JobNumber", swfLine(map[int]string{1: "x1"}), "job_number", `invalid job ID: "x1"`, ingest.ErrBadJobID},
		{"JobNumberUnknown", swfLine(map[int]string{1: "-1"}), "job_number", `invalid job ID: "-1" (want a whole number >= 0)`, ingest.ErrBadJobID},
		{"JobNumberFraction", swfLine(map[int]string{1: "1.5"}), "job_number", `invalid job ID: "1.5" (want a whole number >= 0)`, ingest.ErrBadJobID},
		{"NotSWF", "<html>", "", "wrong number of fields: 1, want 18", ingest.ErrFieldCount},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			// The bad line is line 6, between two good jobs.
			input := swfHeader + swfLine(map[int]string{1: "10"}) + "\n" + tt.Line + "\n" + swfLine(map[int]string{1: "11"}) + "\n"
			res, err := swfRead(t, []byte(input), "bad.swf", ingest.Options{})
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			want := []ingest.QuarantineRecord{{File: "bad.swf", Line: 6, Field: tt.Field, Reason: tt.Reason, Raw: tt.Line}}
			if diff := cmp.Diff(want, res.Quarantine); diff != "" {
				t.Errorf("quarantine (-want +got):\n%s", diff)
			}
			if len(res.Jobs) != 2 || res.Jobs[0].JobID != "10" || res.Jobs[1].JobID != "11" {
				t.Errorf("jobs = %v, want 10 and 11", res.Jobs)
			}
			s := res.Summary
			if s.RowsRead != 3 || s.Jobs != 2 || s.Quarantined != 1 || !s.Balanced {
				t.Errorf("summary = %+v", s)
			}

			_, err = swfRead(t, []byte(input), "bad.swf", ingest.Options{Strict: true})
			var perr *ingest.ParseError
			if !errors.As(err, &perr) {
				t.Fatalf("strict Read error = %v, want a *ParseError", err)
			}
			if perr.Path != "bad.swf" || perr.Line != 6 || perr.Field != tt.Field || perr.Err.Error() != tt.Reason || !errors.Is(err, tt.Err) {
				t.Errorf("strict Read error:\ngot  %#v (%v)\nwant bad.swf:6, field %q: %s (wrapping %v)", perr, perr, tt.Field, tt.Reason, tt.Err)
			}
		})
	}
}

func TestReadSWF_Errors(t *testing.T) {
	swf := ingest.Options{Format: ingest.FormatSWF}
	tests := []struct {
		Name  string
		Input string
		Opts  ingest.Options
		Err   error
		Msg   string
	}{
		{"Empty", "", swf, ingest.ErrEmptyInput, "e.swf: input is empty"},
		{"Blank", "\n  \r\n\t\n", swf, ingest.ErrEmptyInput, "e.swf: input is empty"},
		{"BlankDetected", "\n\n", ingest.Options{}, ingest.ErrEmptyInput, "e.swf: input is empty"},
		{"HeaderOnly", swfHeader + ";\n\n", ingest.Options{}, ingest.ErrHeaderOnly, "e.swf: input has a header but no rows"},
		{"BadUnixStartTime", "; UnixStartTime: soon\n" + swfLine(nil), ingest.Options{}, ingest.ErrBadTime,
			`e.swf:1: UnixStartTime: invalid time: "soon" (want seconds since the Unix epoch)`},
		{"NegativeUnixStartTime", "; UnixStartTime: -5\n" + swfLine(nil), ingest.Options{}, ingest.ErrBadTime,
			`e.swf:1: UnixStartTime: invalid time: "-5" (want seconds since the Unix epoch)`},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			res, err := swfRead(t, []byte(tt.Input), "e.swf", tt.Opts)
			if !errors.Is(err, tt.Err) || err.Error() != tt.Msg {
				t.Fatalf("Read error:\ngot  %v\nwant %s (wrapping %v)", err, tt.Msg, tt.Err)
			}
			if len(res.Jobs) != 0 {
				t.Errorf("got %d jobs from a refused input", len(res.Jobs))
			}
		})
	}
}

func TestDetect_SWF(t *testing.T) {
	tests := []struct {
		Name  string
		Input string
	}{
		{"Comments", "small.swf"},
		{"NoComments", "no_header.swf"},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "swf", tt.Input))
			if err != nil {
				t.Fatal(err)
			}
			if f, err := ingest.Detect(data); f != ingest.FormatSWF || err != nil {
				t.Errorf("Detect = %v, %v; want swf", f, err)
			}
		})
	}
}

func TestRun_SWF(t *testing.T) {
	in := filepath.Join("testdata", "swf", "small.swf")
	t.Run("OK", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "small.parquet")
		sum, err := ingest.Run(context.Background(), []string{in}, out, ingest.Options{Cluster: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Format != "swf" || sum.RowsRead != 12 || sum.Jobs != 8 || sum.StepsFolded != 2 || sum.Quarantined != 2 || !sum.Balanced {
			t.Errorf("summary = %+v", sum)
		}
		jobs, err := trace.ReadAll(out)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(swfSmallJobs(filepath.Base(in)), jobs); diff != "" { // its name, not its path
			t.Errorf("jobs (-want +got):\n%s", diff)
		}
		f, err := os.Open(sum.QuarantineFile)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var got []ingest.QuarantineRecord
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var r ingest.QuarantineRecord
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("quarantine line %q: %v", sc.Text(), err)
			}
			got = append(got, r)
		}
		if diff := cmp.Diff(swfSmallQuarantine(filepath.Base(in)), got); diff != "" {
			t.Errorf("quarantine (-want +got):\n%s", diff)
		}
	})
	t.Run("Strict", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "small.parquet")
		_, err := ingest.Run(context.Background(), []string{in}, out, ingest.Options{Cluster: "test", Strict: true})
		var perr *ingest.ParseError
		if !errors.As(err, &perr) {
			t.Fatalf("Run error = %v, want a *ParseError", err)
		}
		want := in + `:26: wait_time: invalid number: "abc"`
		if perr.Path != in || perr.Line != 26 || perr.Field != "wait_time" || err.Error() != want {
			t.Errorf("Run error:\ngot  %v\nwant %s", err, want)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("output written despite the strict error: %v", err)
		}
	})
}

// BenchmarkReadSWF reads 100,000 generated SWF lines.
func BenchmarkReadSWF(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(swfHeader)
	for i := range 100_000 {
		fmt.Fprintf(&buf, "%d %d %d %d %d -1 -1 %d %d %d %d %d %d -1 %d %d -1 -1\n",
			i+1, i*7, i%300, 60+i%3600, 1+i%64, 1+i%64, 7200, 1024*(i%4), i%6-1, 100+i%50, 10+i%5, i%3, 1+i%2)
	}
	data := buf.Bytes()
	opts := ingest.Options{Cluster: "bench"}
	n := 0
	fn := func(*trace.Job) error { n++; return nil }
	sum, err := ingest.Read(context.Background(), bytes.NewReader(data), "bench.swf", opts, fn, nil)
	if err != nil || sum.Jobs != 100_000 || !sum.Balanced {
		b.Fatalf("Read: %+v, %v", sum, err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := ingest.Read(context.Background(), bytes.NewReader(data), "bench.swf", opts, fn, nil); err != nil {
			b.Fatal(err)
		}
	}
}
