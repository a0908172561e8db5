package ingest_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/trace"
)

// readSacctCase reads testdata/sacct/<name>.txt with sacctOpts.
func readSacctCase(tb testing.TB, name string) ingested {
	tb.Helper()
	return mustReadFile(tb, filepath.Join("testdata", "sacct", name+".txt"), sacctOpts)
}

// findJob returns the job with the given JobID and Attempt, failing tb
// when there is not exactly one.
func findJob(tb testing.TB, res ingested, id string, attempt int32) *trace.Job {
	tb.Helper()
	var found *trace.Job
	for i := range res.Jobs {
		j := &res.Jobs[i]
		if j.JobID == id && j.Attempt == attempt {
			if found != nil {
				tb.Fatalf("job %s attempt %d appears twice (lines %d and %d)", id, attempt, found.SourceLine, j.SourceLine)
			}
			found = j
		}
	}
	if found == nil {
		tb.Fatalf("job %s attempt %d not found", id, attempt)
	}
	return found
}

func at(tb testing.TB, s string) time.Time {
	tb.Helper()
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

func TestSacct_Timeout(t *testing.T) {
	for _, name := range []string{"p2_full", "p2_sample"} {
		t.Run(name, func(t *testing.T) {
			j := findJob(t, readSacctCase(t, name), "11", 0)
			rt, ok := j.RunTime()
			if j.State != trace.StateTimeout || j.TimelimitSec != 60 || !ok || rt != 80*time.Second || !j.HitLimit() {
				t.Errorf("job 11: state %v, limit %d s, run time %v (%v), hit limit %v; want TIMEOUT, 60 s, 80s, true",
					j.State, j.TimelimitSec, rt, ok, j.HitLimit())
			}
		})
	}
}

func TestSacct_CancelledBy(t *testing.T) {
	for _, name := range []string{"p2_default", "p2_full", "p2_sample", "parsable", "p2_states", "p2_requeue"} {
		t.Run(name, func(t *testing.T) {
			j := findJob(t, readSacctCase(t, name), "6", 0)
			if j.State != trace.StateCancelled || j.CancelledBy != 0 {
				t.Errorf("job 6: state %v, cancelled by %d; want CANCELLED by 0", j.State, j.CancelledBy)
			}
			if hasTimes := name == "p2_full" || name == "p2_sample" || name == "p2_requeue"; hasTimes && j.NeverStarted() {
				t.Error("job 6 ran for 5 s but NeverStarted() is true")
			}
		})
	}
	// A plain CANCELLED (job 5) has no canceller.
	if j := findJob(t, readSacctCase(t, "p2_states"), "5", 0); j.State != trace.StateCancelled || j.CancelledBy != trace.NoID {
		t.Errorf("job 5: state %v, cancelled by %d; want CANCELLED, NoID", j.State, j.CancelledBy)
	}
}

func TestSacct_Requeue(t *testing.T) {
	for _, name := range []string{"p2_requeue", "p2_requeue_noconvert"} {
		t.Run(name, func(t *testing.T) {
			res := readSacctCase(t, name)
			tests := []struct {
				ID      string
				Attempt int32
				State   trace.State
			}{
				{"15", 0, trace.StatePreempted},
				{"15", 1, trace.StateCompleted},
				{"18", 0, trace.StateNodeFail},
				{"18", 1, trace.StateCompleted},
				{"17", 0, trace.StateNodeFail},
				{"13", 0, trace.StatePreempted},
				{"16", 0, trace.StateCompleted},
			}
			for _, tt := range tests {
				j := findJob(t, res, tt.ID, tt.Attempt)
				if j.State != tt.State || j.Steps != 1 {
					t.Errorf("job %s attempt %d: state %v, %d steps; want %v, 1 step", tt.ID, tt.Attempt, j.State, j.Steps, tt.State)
				}
			}
			// 17 (--no-requeue) and 13 (preempted, not requeued) have no
			// second attempt; neither has any job that was not requeued.
			for i := range res.Jobs {
				if j := &res.Jobs[i]; j.Attempt > 0 && j.JobID != "15" && j.JobID != "18" {
					t.Errorf("job %s has attempt %d", j.JobID, j.Attempt)
				}
			}
			if len(res.Jobs) != 25 || res.Summary.StepsFolded != 25 || res.Summary.RowsRead != 50 {
				t.Errorf("got %d jobs, %d steps folded, %d rows; want 25, 25, 50", len(res.Jobs), res.Summary.StepsFolded, res.Summary.RowsRead)
			}
		})
	}
	res := readSacctCase(t, "p2_requeue")
	first, second := findJob(t, res, "15", 0), findJob(t, res, "15", 1)
	if !first.End.Equal(at(t, "2026-11-30T12:45:09Z")) || !second.Start.Equal(at(t, "2026-11-30T12:47:15Z")) {
		t.Errorf("job 15: attempt 0 ends %v, attempt 1 starts %v", first.End, second.Start)
	}
	if trace.SameJob(first, second) {
		t.Error("the two attempts of job 15 are SameJob")
	}
}

func TestSacct_NodeFail(t *testing.T) {
	for _, name := range []string{"p2_full", "p2_sample", "p2_default"} {
		t.Run(name, func(t *testing.T) {
			j := findJob(t, readSacctCase(t, name), "17", 0)
			if j.State != trace.StateNodeFail || !j.State.Requeueable() {
				t.Errorf("job 17: state %v; want NODE_FAIL", j.State)
			}
		})
	}
}

func TestSacct_ArrayTasks(t *testing.T) {
	tests := []struct {
		ID   string
		Task int64
		Raw  int64
	}{
		{"3_0", 0, 8}, {"3_1", 1, 9}, {"3_2", 2, 10}, {"3_3", 3, 3},
		{"20_1", 1, 23}, {"20_2", 2, 24}, {"20_3", 3, 20},
	}
	for _, name := range []string{"p2_full", "p2_sample", "p2_requeue"} {
		t.Run(name, func(t *testing.T) {
			res := readSacctCase(t, name)
			for _, tt := range tests {
				j := findJob(t, res, tt.ID, 0)
				wantArray := int64(3)
				if strings.HasPrefix(tt.ID, "20_") {
					wantArray = 20
				}
				if j.ArrayJobID != wantArray || j.ArrayTaskID != tt.Task || j.JobIDRaw != tt.Raw {
					t.Errorf("job %s: array %d task %d raw %d; want %d, %d, %d", tt.ID, j.ArrayJobID, j.ArrayTaskID, j.JobIDRaw, wantArray, tt.Task, tt.Raw)
				}
			}
		})
	}
	// Without a JobIDRaw column a task's own ID is unknown (0), not the
	// array's.
	t.Run("NoJobIDRaw", func(t *testing.T) {
		res := readSacctCase(t, "p2_default")
		for _, tt := range tests {
			j := findJob(t, res, tt.ID, 0)
			if j.ArrayTaskID != tt.Task || j.JobIDRaw != 0 {
				t.Errorf("job %s: task %d raw %d; want %d, 0", tt.ID, j.ArrayTaskID, j.JobIDRaw, tt.Task)
			}
		}
		if j := findJob(t, res, "4", 0); j.JobIDRaw != 4 || j.ArrayJobID != 0 || j.ArrayTaskID != trace.Unknown {
			t.Errorf("job 4: raw %d, array %d, task %d; want 4, 0, Unknown", j.JobIDRaw, j.ArrayJobID, j.ArrayTaskID)
		}
	})
}

func TestSacct_NeverStarted(t *testing.T) {
	res := readSacctCase(t, "p2_sample")
	for _, id := range []string{"5", "22"} {
		j := findJob(t, res, id, 0)
		if !j.Start.IsZero() || j.End.IsZero() || !j.Eligible.IsZero() ||
			j.TimelimitSec != trace.NoLimit || j.State != trace.StateCancelled || !j.NeverStarted() || j.Started() {
			t.Errorf("job %s: start %v, eligible %v, end %v, limit %d, state %v, never started %v",
				id, j.Start, j.Eligible, j.End, j.TimelimitSec, j.State, j.NeverStarted())
		}
		if _, ok := j.Wait(); ok {
			t.Errorf("job %s has a wait time", id)
		}
	}
	if j := findJob(t, res, "5", 0); !j.End.Equal(at(t, "2026-11-30T12:39:03Z")) {
		t.Errorf("job 5 End = %v", j.End)
	}
	if j := findJob(t, res, "1", 0); j.NeverStarted() {
		t.Error("job 1 ran but NeverStarted() is true")
	}
}

func TestSacct_StepsFolded(t *testing.T) {
	res := readSacctCase(t, "p2_default")
	if res.Summary.RowsRead != 46 || res.Summary.StepsFolded != 23 || len(res.Jobs) != 23 || res.Summary.Jobs != 23 ||
		res.Summary.Quarantined != 0 || !res.Summary.Balanced {
		t.Errorf("summary = %+v; want 46 rows, 23 jobs, 23 steps folded, balanced", res.Summary)
	}
	for i := range res.Jobs {
		if j := &res.Jobs[i]; j.Steps != 1 || strings.Contains(j.JobID, ".") {
			t.Errorf("job %s: %d steps; want 1", j.JobID, j.Steps)
		}
	}
	if in := res.Summary.Inputs[0]; in.StepsFolded != 23 || in.RowsRead != 46 {
		t.Errorf("input summary = %+v", in)
	}
	// Without steps (-X) nothing is folded.
	if res := readSacctCase(t, "p2_full"); res.Summary.StepsFolded != 0 || res.Jobs[0].Steps != 0 {
		t.Errorf("p2_full: %d steps folded", res.Summary.StepsFolded)
	}
}

func TestSacct_ReqMem(t *testing.T) {
	tests := []struct {
		Case, ID string
		Want     int64
	}{
		{"units_g", "15", 502}, // 0.49G
		{"units_g", "25", 102}, // 0.10G
		{"p2_full", "6", 1024}, // 1G
		{"p2_full", "1", 20000},
		{"p2_requeue_noconvert", "6", 1024}, // 1024M
		{"p2_sample", "3_0", 200},
	}
	for _, tt := range tests {
		if j := findJob(t, readSacctCase(t, tt.Case), tt.ID, 0); j.ReqMemMB != tt.Want {
			t.Errorf("%s job %s: ReqMemMB %d, want %d", tt.Case, tt.ID, j.ReqMemMB, tt.Want)
		}
	}
	if j := findJob(t, readSacctCase(t, "parsable"), "1", 0); j.ReqMemMB != trace.Unknown {
		t.Errorf("no ReqMem column: ReqMemMB %d, want Unknown", j.ReqMemMB)
	}
}

func TestSacct_EpochTimes(t *testing.T) {
	res := readSacctCase(t, "epoch")
	j := findJob(t, res, "1", 0)
	want := [3]time.Time{at(t, "2026-11-30T12:38:52Z"), at(t, "2026-11-30T12:38:52Z"), at(t, "2026-11-30T12:38:53Z")}
	if got := [3]time.Time{j.Submit, j.Start, j.End}; got != want {
		t.Errorf("Submit, Start, End:\ngot  %v\nwant %v", got, want)
	}
	// Epoch seconds are zone-free: the same instants in any Location.
	opts := sacctOpts
	opts.Location = mustLoadLocation(t, "America/Chicago")
	res = mustReadFile(t, filepath.Join("testdata", "sacct", "epoch.txt"), opts)
	if got := res.Jobs[0].Start; !got.Equal(want[1]) {
		t.Errorf("Start in America/Chicago = %v, want %v", got, want[1])
	}
}

func TestSacct_Timelimits(t *testing.T) {
	tests := []struct {
		Case, ID string
		Want     int64
	}{
		{"p2_full", "1", trace.NoLimit},      // UNLIMITED
		{"p2_full", "15", 365 * 86400},       // TimelimitRaw 525600
		{"units_g", "15", 365 * 86400},       // Timelimit 365-00:00:00
		{"units_g", "25", 30 * 60},           // 00:30:00
		{"p2_full", "6", 10 * 60},            // 00:10:00 / 10
		{"p2_sample", "5", trace.NoLimit},    // Partition_Limit
		{"p2_sample", "11", 60},              // TimelimitRaw 1
		{"p2_reason", "1", trace.NoLimit},    // no column
		{"p2_sample", "25", 30 * 60},         // TimelimitRaw 30
		{"p2_sample", "1", trace.NoLimit},    // UNLIMITED
		{"p2_sample", "20_3", trace.NoLimit}, // UNLIMITED
	}
	for _, tt := range tests {
		if j := findJob(t, readSacctCase(t, tt.Case), tt.ID, 0); j.TimelimitSec != tt.Want {
			t.Errorf("%s job %s: TimelimitSec %d, want %d", tt.Case, tt.ID, j.TimelimitSec, tt.Want)
		}
	}
}

func TestSacct_Running(t *testing.T) {
	for _, name := range []string{"p2_full", "p2_sample", "p2_requeue"} {
		t.Run(name, func(t *testing.T) {
			j := findJob(t, readSacctCase(t, name), "25", 0)
			if j.State != trace.StateRunning || !j.End.IsZero() || !j.Started() || j.NeverStarted() || j.HitLimit() {
				t.Errorf("job 25: state %v, end %v, started %v", j.State, j.End, j.Started())
			}
			if _, ok := j.RunTime(); ok {
				t.Error("job 25 has a run time")
			}
		})
	}
}

func TestSacct_Fields(t *testing.T) {
	res := readSacctCase(t, "p2_full")
	got := findJob(t, res, "6", 0)
	want := trace.NewJob()
	want.JobID, want.JobIDRaw, want.Cluster, want.Partition, want.Account = "6", 6, "localtest", "debug", "root"
	want.User, want.JobName, want.QOS, want.State, want.CancelledBy = "root", "tocancel", "normal", trace.StateCancelled, 0
	want.Reason = "" // sacct's "None"
	want.Submit, want.Eligible = at(t, "2026-11-30T12:39:00Z"), at(t, "2026-11-30T12:39:00Z")
	want.Start, want.End = at(t, "2026-11-30T12:39:11Z"), at(t, "2026-11-30T12:39:16Z")
	want.TimelimitSec, want.NNodes, want.NCPUs, want.ReqMemMB, want.Priority = 600, 1, 2, 1024, 4294901754
	want.SourceFile, want.SourceLine = "p2_full.txt", 9
	if diff := cmp.Diff(want, *got); diff != "" {
		t.Errorf("job 6 mismatch (-want +got):\n%s", diff)
	}
	if j := findJob(t, res, "19", 0); j.ExitCode != 0 || j.ExitSignal != 9 || j.State != trace.StateFailed {
		t.Errorf("job 19: exit %d:%d state %v; want 0:9 FAILED", j.ExitCode, j.ExitSignal, j.State)
	}
	if j := findJob(t, res, "2", 0); j.ExitCode != 3 || j.ExitSignal != 0 {
		t.Errorf("job 2: exit %d:%d; want 3:0", j.ExitCode, j.ExitSignal)
	}
}

func TestSacct_Errors(t *testing.T) {
	tests := []struct {
		Name  string
		Input string
		Opts  ingest.Options
		Err   error
	}{
		{Name: "Empty", Input: "", Err: ingest.ErrEmptyInput},
		{Name: "EmptyForced", Input: "\n\n", Opts: ingest.Options{Format: ingest.FormatSacct}, Err: ingest.ErrEmptyInput},
		{Name: "HeaderOnly", Input: "JobID|State\n", Err: ingest.ErrHeaderOnly},
		{Name: "HeaderAndBlankLines", Input: "JobID|State\n\n\n", Err: ingest.ErrHeaderOnly},
		{Name: "ParsableHeaderOnly", Input: "JobID|State|\n", Err: ingest.ErrHeaderOnly},
		{Name: "MissingJobID", Input: "State|ExitCode\nCOMPLETED|0:0\n", Opts: ingest.Options{Format: ingest.FormatSacct}, Err: ingest.ErrMissingColumn},
		{Name: "Unknown", Input: "what is this\n", Err: ingest.ErrUnknownFormat},
		{
			// Forcing the format does not turn fixed-width output into a
			// missing-column error.
			Name:  "FixedWidthForced",
			Input: "JobID           JobName  State\n------------ ---------- ----------\n1                  wrap  COMPLETED\n",
			Opts:  ingest.Options{Format: ingest.FormatSacct},
			Err:   ingest.ErrFixedWidth,
		},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			res, err := ingestBytes(t, []byte(tt.Input), "in.txt", tt.Opts)
			if !errors.Is(err, tt.Err) {
				t.Fatalf("Read error:\ngot  %v\nwant %v", err, tt.Err)
			}
			if !ingest.IsInputError(err) {
				t.Errorf("IsInputError(%v) = false", err)
			}
			if !strings.HasPrefix(err.Error(), "in.txt") {
				t.Errorf("error %q does not name the input", err)
			}
			if len(res.Jobs) != 0 {
				t.Errorf("got %d jobs", len(res.Jobs))
			}
		})
	}
}

// TestSacct_BadRows checks what each kind of bad row becomes in the
// quarantine, and that the rows around it are kept.
func TestSacct_BadRows(t *testing.T) {
	const header = "JobID|State|Start|End|ReqMem\n"
	tests := []struct {
		Name  string
		Input string
		Jobs  []string // JobIDs kept, with their step counts
		Steps []int32
		Bad   []ingest.QuarantineRecord
	}{
		{
			Name:  "FieldCount",
			Input: header + "1|COMPLETED|||\n2|COMPLETED||\n3|COMPLETED|||\n",
			Jobs:  []string{"1", "3"}, Steps: []int32{0, 0},
			Bad: []ingest.QuarantineRecord{{File: "in.txt", Line: 3, Reason: "wrong number of fields: 4, header has 5", Raw: "2|COMPLETED||"}},
		},
		{
			Name:  "BadState",
			Input: header + "1|COMPLETED|||\n2|CANCELLED+|||\n",
			Jobs:  []string{"1"}, Steps: []int32{0},
			Bad: []ingest.QuarantineRecord{{File: "in.txt", Line: 3, Field: "State", Reason: `invalid job state: "CANCELLED+" is truncated (fixed-width sacct output)`, Raw: "2|CANCELLED+|||"}},
		},
		{
			Name:  "OrphanStep",
			Input: header + "1.batch|COMPLETED|||\n2|COMPLETED|||\n2.batch|COMPLETED|||\n",
			Jobs:  []string{"2"}, Steps: []int32{1},
			Bad: []ingest.QuarantineRecord{{File: "in.txt", Line: 2, Field: "JobID", Reason: `step without its allocation row: "1.batch"`, Raw: "1.batch|COMPLETED|||"}},
		},
		{
			// The step of a quarantined allocation must not fold into the
			// allocation before it (here an earlier attempt of the same job).
			Name: "StepOfBadAllocation",
			Input: header + "18|NODE_FAIL|2026-11-30T12:45:17|2026-11-30T12:45:20|\n18.batch|CANCELLED|||\n" +
				"18|COMPLETED|2026-11-30T12:47:36|2026-11-30T12:46:00|\n18.batch|COMPLETED|||\n",
			Jobs: []string{"18"}, Steps: []int32{1},
			Bad: []ingest.QuarantineRecord{
				{File: "in.txt", Line: 4, Field: "End", Reason: "times out of order: End 2026-11-30T12:46:00Z is before Start 2026-11-30T12:47:36Z",
					Raw: "18|COMPLETED|2026-11-30T12:47:36|2026-11-30T12:46:00|"},
				{File: "in.txt", Line: 5, Field: "JobID", Reason: `step without its allocation row: "18.batch"`, Raw: "18.batch|COMPLETED|||"},
			},
		},
		{
			// A garbage line between an allocation and its step does not
			// orphan the step.
			Name:  "GarbageBeforeStep",
			Input: header + "1|COMPLETED|||\n%%%garbage%%%\n1.batch|COMPLETED|||\n",
			Jobs:  []string{"1"}, Steps: []int32{1},
			Bad: []ingest.QuarantineRecord{{File: "in.txt", Line: 3, Reason: "wrong number of fields: 1, header has 5", Raw: "%%%garbage%%%"}},
		},
		{
			Name:  "BadMemory",
			Input: header + "1|COMPLETED|||12Q\n",
			Jobs:  []string{}, Steps: []int32{},
			Bad: []ingest.QuarantineRecord{{File: "in.txt", Line: 2, Field: "ReqMem", Reason: `invalid memory size: "12Q"`, Raw: "1|COMPLETED|||12Q"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			res, err := ingestBytes(t, []byte(tt.Input), "in.txt", ingest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ids, steps := []string{}, []int32{}
			for _, j := range res.Jobs {
				ids, steps = append(ids, j.JobID), append(steps, j.Steps)
			}
			if diff := cmp.Diff(tt.Jobs, ids); diff != "" {
				t.Errorf("jobs mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.Steps, steps); diff != "" {
				t.Errorf("steps mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.Bad, res.Quarantine); diff != "" {
				t.Errorf("quarantine mismatch (-want +got):\n%s", diff)
			}
			if !res.Summary.Balanced || res.Summary.Quarantined != int64(len(tt.Bad)) {
				t.Errorf("summary = %+v", res.Summary)
			}
		})
	}
}

func TestSacct_ClusterColumn(t *testing.T) {
	in := "JobID|Cluster|State\n1|ls6|COMPLETED\n2||COMPLETED\n"
	res, err := ingestBytes(t, []byte(in), "in.txt", ingest.Options{Cluster: "default"})
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{res.Jobs[0].Cluster, res.Jobs[1].Cluster}; !cmp.Equal(got, []string{"ls6", "default"}) {
		t.Errorf("clusters = %q, want [ls6 default]", got)
	}
}

// TestSacct_Parsable checks that --parsable's trailing delimiter is not a
// column, and that an empty last field is kept apart from it.
func TestSacct_Parsable(t *testing.T) {
	in := "JobID|State|Reason|\n1|COMPLETED||\n2|PENDING|Priority|\n"
	res, err := ingestBytes(t, []byte(in), "in.txt", ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) != 2 || res.Jobs[0].Reason != "" || res.Jobs[1].Reason != "Priority" || res.Jobs[1].State != trace.StatePending {
		t.Errorf("jobs = %+v, quarantine = %+v", res.Jobs, res.Quarantine)
	}
}

// TestSacct_TimeMin: a TimelimitMin (or TimeMin) column gives the job's
// --time-min in seconds, formatted as Timelimit (a bare number is
// minutes); empty or UNLIMITED is none (0), as is a trace without the
// column.
func TestSacct_TimeMin(t *testing.T) {
	res := readSacctCase(t, "time_min")
	for id, want := range map[string]int64{"1": 86400, "2": 0, "3": 30 * 60, "4": 0} {
		if j := findJob(t, res, id, 0); j.TimeMinSec != want {
			t.Errorf("job %s: TimeMinSec %d, want %d", id, j.TimeMinSec, want)
		}
	}
	if j := findJob(t, readSacctCase(t, "units_g"), "15", 0); j.TimeMinSec != 0 {
		t.Errorf("units_g job 15 (no column): TimeMinSec %d, want 0", j.TimeMinSec)
	}
}
