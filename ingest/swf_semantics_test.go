package ingest_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/internal/golden"
	"github.com/mirage-hpc/mirage/trace"
)

// swfReadOne reads input with Cluster "test" (unless opts names one) and
// fails t unless it reads without error, balanced.
func swfReadOne(t *testing.T, input string, opts ingest.Options) swfResult {
	t.Helper()
	if opts.Cluster == "" {
		opts.Cluster = "test"
	}
	res, err := swfRead(t, []byte(input), "in.swf", opts)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if !res.Summary.Balanced {
		t.Errorf("summary not balanced: %+v", res.Summary)
	}
	return res
}

// swfBase is the job swfLine(nil) becomes on line 5 after swfHeader, with
// mod applied.
func swfBase(line int64, mod func(j *trace.Job)) trace.Job {
	return swfNewJob("in.swf", line, 1, func(j *trace.Job) {
		j.Submit, j.Start, j.End = swfAt(0), swfAt(10), swfAt(110)
		j.TimelimitSec, j.NCPUs, j.NNodes = 3600, 4, 1
		j.State, j.UID, j.GID, j.QOS, j.Partition = trace.StateCompleted, 100, 10, "1", "1"
		mod(j)
	})
}

// startUnknown makes j a job that ran for run seconds from an unknown
// start.
func startUnknown(j *trace.Job, run int64) {
	j.Start, j.End = time.Time{}, time.Time{}
	j.StartUnknown, j.ElapsedSec = true, run
}

// TestReadSWF_WaitUnknown checks that a wait time of -1 with a known run
// time makes a job that ran from an unknown start (StartUnknown,
// ElapsedSec), whatever its status, except a cancelled job that did not
// run.
func TestReadSWF_WaitUnknown(t *testing.T) {
	tests := []struct {
		Name  string
		Input string
		Want  []trace.Job
	}{
		{
			Name:  "Completed",
			Input: swfLine(map[int]string{3: "-1"}),
			Want:  []trace.Job{swfBase(5, func(j *trace.Job) { startUnknown(j, 100) })},
		},
		{
			Name:  "AtLimit",
			Input: swfLine(map[int]string{3: "-1", 4: "3600"}),
			Want:  []trace.Job{swfBase(5, func(j *trace.Job) { startUnknown(j, 3600) })},
		},
		{
			Name:  "Failed",
			Input: swfLine(map[int]string{3: "-1", 11: "0"}),
			Want: []trace.Job{swfBase(5, func(j *trace.Job) {
				startUnknown(j, 100)
				j.State = trace.StateFailed
			})},
		},
		{
			Name:  "ZeroRunTime",
			Input: swfLine(map[int]string{3: "-1", 4: "0"}),
			Want:  []trace.Job{swfBase(5, func(j *trace.Job) { startUnknown(j, 0) })},
		},
		{
			Name:  "DecimalWait",
			Input: swfLine(map[int]string{3: "-1.0", 4: "99.9"}),
			Want:  []trace.Job{swfBase(5, func(j *trace.Job) { startUnknown(j, 99) })},
		},
		{
			Name:  "UnknownStatus",
			Input: swfLine(map[int]string{3: "-1", 11: "-1"}),
			Want: []trace.Job{swfBase(5, func(j *trace.Job) {
				startUnknown(j, 100)
				j.State = trace.StateUnknown
			})},
		},
		{
			Name:  "CancelledWhileRunning",
			Input: swfLine(map[int]string{3: "-1", 11: "5"}),
			Want: []trace.Job{swfBase(5, func(j *trace.Job) {
				startUnknown(j, 100)
				j.State = trace.StateCancelled
			})},
		},
		{
			Name:  "CancelledRunZero",
			Input: swfLine(map[int]string{3: "-1", 4: "0", 11: "5"}),
			Want: []trace.Job{swfBase(5, func(j *trace.Job) {
				j.Start, j.End, j.State = time.Time{}, time.Time{}, trace.StateCancelled
			})},
		},
		{
			Name:  "CancelledRunUnknown",
			Input: swfLine(map[int]string{3: "-1", 4: "-1", 11: "5"}),
			Want: []trace.Job{swfBase(5, func(j *trace.Job) {
				j.Start, j.End, j.State = time.Time{}, time.Time{}, trace.StateCancelled
			})},
		},
		{
			Name:  "RunUnknown",
			Input: swfLine(map[int]string{3: "-1", 4: "-1"}),
			Want:  []trace.Job{swfBase(5, func(j *trace.Job) { j.Start, j.End = time.Time{}, time.Time{} })},
		},
		{
			Name:  "SubmitUnknown",
			Input: swfLine(map[int]string{2: "-1", 3: "-1"}),
			Want: []trace.Job{swfBase(5, func(j *trace.Job) {
				startUnknown(j, 100)
				j.Submit = time.Time{}
			})},
		},
		{
			Name: "PartialsSum",
			Input: swfLine(map[int]string{3: "-1", 4: "100", 11: "2"}) + "\n" +
				swfLine(map[int]string{3: "-1", 4: "250", 11: "3"}),
			Want: []trace.Job{swfBase(5, func(j *trace.Job) {
				startUnknown(j, 350)
				j.Steps = 1
			})},
		},
		{
			Name: "SummaryWins",
			Input: swfLine(map[int]string{3: "-1", 4: "400", 11: "1"}) + "\n" +
				swfLine(map[int]string{3: "-1", 4: "100", 11: "2"}),
			Want: []trace.Job{swfBase(5, func(j *trace.Job) {
				startUnknown(j, 400)
				j.Steps = 1
			})},
		},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			res := swfReadOne(t, swfHeader+tt.Input, ingest.Options{})
			if diff := cmp.Diff(tt.Want, res.Jobs); diff != "" {
				t.Errorf("jobs (-want +got):\n%s", diff)
			}
			if len(res.Quarantine) != 0 {
				t.Errorf("quarantined %v", res.Quarantine)
			}
			var notes []string
			if len(tt.Want) == 1 && tt.Want[0].StartUnknown {
				notes = []string{swfStartUnknownNote}
			}
			if diff := cmp.Diff(notes, res.Summary.Inputs[0].Notes); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
			for i := range res.Jobs {
				if j := &res.Jobs[i]; j.StartUnknown && j.NeverStarted() {
					t.Errorf("job %s: StartUnknown and NeverStarted", j.JobID)
				}
			}
		})
	}
}

// TestReadSWF_Status checks the mapping of every SWF status code to a
// State (ingest/README.md, "SWF status codes"), and which cancelled jobs
// ran.
func TestReadSWF_Status(t *testing.T) {
	tests := []struct {
		Name   string
		Status string
		Run    string // run time; "" means the template's 100
		State  trace.State
		Ran    bool // Start known and End = Start + run; else no Start, End = Submit + wait
	}{
		{"Failed", "0", "", trace.StateFailed, true},
		{"Completed", "1", "", trace.StateCompleted, true},
		{"PartialContinued", "2", "", trace.StatePreempted, true},
		{"PartialLastCompleted", "3", "", trace.StateCompleted, true},
		{"PartialLastFailed", "4", "", trace.StateFailed, true},
		{"CancelledWhileRunning", "5", "", trace.StateCancelled, true},
		{"CancelledBeforeStart", "5", "0", trace.StateCancelled, false},
		{"CancelledRunUnknown", "5", "-1", trace.StateCancelled, false},
		{"Unknown", "-1", "", trace.StateUnknown, true},
		{"UnknownDecimal", "-1.0", "", trace.StateUnknown, true},
		{"CompletedDecimal", "1.0", "", trace.StateCompleted, true},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			set := map[int]string{11: tt.Status}
			if tt.Run != "" {
				set[4] = tt.Run
			}
			res := swfReadOne(t, swfHeader+swfLine(set), ingest.Options{})
			want := swfBase(5, func(j *trace.Job) {
				j.State = tt.State
				if !tt.Ran {
					j.Start, j.End = time.Time{}, swfAt(10)
				}
			})
			if diff := cmp.Diff([]trace.Job{want}, res.Jobs); diff != "" {
				t.Errorf("jobs (-want +got):\n%s", diff)
			}
			if got := res.Jobs[0].NeverStarted(); got == tt.Ran {
				t.Errorf("NeverStarted = %v, want %v", got, !tt.Ran)
			}
		})
	}
	for _, bad := range []string{"6", "-2", "1.5"} {
		t.Run("Bad"+bad, func(t *testing.T) {
			res := swfReadOne(t, swfHeader+swfLine(map[int]string{11: bad}), ingest.Options{})
			if len(res.Jobs) != 0 || len(res.Quarantine) != 1 || res.Quarantine[0].Field != "status" {
				t.Errorf("jobs %v, quarantine %v; want the line quarantined at status", res.Jobs, res.Quarantine)
			}
		})
	}
}

// TestReadSWF_AllUnknown checks that a line whose every field but the job
// number is -1 is quarantined with ErrAllUnknown, and that one known field,
// even one Mirage does not keep, makes it a job.
func TestReadSWF_AllUnknown(t *testing.T) {
	allUnknown := strings.TrimSpace(strings.Repeat("-1 ", 17))
	const reason = "no data: every field but the job number is -1"
	tests := []struct {
		Name string
		Line string
		Keep bool
	}{
		{"Every", "-1 " + allUnknown, false},
		{"ButJobNumber", "7 " + allUnknown, false},
		{"Decimals", "7 -1.0 " + strings.TrimSpace(strings.Repeat("-1.00 ", 16)), false},
		{"TabsAndCR", "7\t" + strings.ReplaceAll(allUnknown, " ", "\t") + "\r", false},
		{"ThinkTimeKnown", "7 " + strings.TrimSuffix(allUnknown, "-1") + "0", true},
		{"SubmitKnown", "7 0 " + strings.TrimSpace(strings.Repeat("-1 ", 16)), true},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			input := swfHeader + swfLine(map[int]string{1: "10"}) + "\n" + tt.Line + "\n" + swfLine(map[int]string{1: "11"}) + "\n"
			res := swfReadOne(t, input, ingest.Options{})
			var want []ingest.QuarantineRecord
			if !tt.Keep {
				want = []ingest.QuarantineRecord{{File: "in.swf", Line: 6, Reason: reason, Raw: strings.TrimSuffix(tt.Line, "\r")}}
			}
			if diff := cmp.Diff(want, res.Quarantine); diff != "" {
				t.Errorf("quarantine (-want +got):\n%s", diff)
			}
			s := res.Summary
			if wantJobs := int64(2 + btoi(tt.Keep)); s.RowsRead != 3 || s.Jobs != wantJobs || s.Jobs+s.Quarantined != 3 {
				t.Errorf("summary = %+v, want 3 rows = %d jobs + %d quarantined", s, wantJobs, 1-btoi(tt.Keep))
			}
			if tt.Keep {
				return
			}
			_, err := swfRead(t, []byte(input), "in.swf", ingest.Options{Strict: true})
			var perr *ingest.ParseError
			if !errors.As(err, &perr) || !errors.Is(err, ingest.ErrAllUnknown) || perr.Line != 6 || perr.Field != "" || perr.Err.Error() != reason {
				t.Errorf("strict Read error = %v, want in.swf:6: %s wrapping ErrAllUnknown", err, reason)
			}
		})
	}
}

func btoi(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// TestReadSWF_StartTime checks Options.StartTime: it anchors a header
// without UnixStartTime, a header's UnixStartTime wins over it, and without
// either the note says that dates are relative to 1970-01-01 and names
// --start-time.
func TestReadSWF_StartTime(t *testing.T) {
	anchor := time.Date(2006, 1, 2, 15, 4, 5, 0, time.UTC)
	const cores = "; MaxNodes: 10\n; MaxProcs: 40\n"
	line := swfLine(map[int]string{2: "60"})
	at := func(base time.Time, sec int64) time.Time { return base.Add(time.Duration(sec) * time.Second) }
	job := func(lineNo int64, base time.Time) trace.Job {
		return swfBase(lineNo, func(j *trace.Job) {
			j.Submit, j.Start, j.End = at(base, 60), at(base, 70), at(base, 170)
		})
	}
	epoch := time.Unix(0, 0).UTC()
	tests := []struct {
		Name  string
		Input string
		Start time.Time
		Want  trace.Job
		Notes []string
	}{
		{
			Name: "Anchored", Input: cores + line, Start: anchor, Want: job(3, anchor),
			Notes: []string{"no UnixStartTime header: times count from --start-time 2006-01-02T15:04:05Z (UnixStartTime 1136214245)"},
		},
		{
			Name: "AnchoredInZone", Input: cores + line, Start: anchor.In(time.FixedZone("X", 3600)), Want: job(3, anchor),
			Notes: []string{"no UnixStartTime header: times count from --start-time 2006-01-02T15:04:05Z (UnixStartTime 1136214245)"},
		},
		{
			Name: "FractionTruncated", Input: cores + line, Start: anchor.Add(999 * time.Millisecond), Want: job(3, anchor),
			Notes: []string{"no UnixStartTime header: times count from --start-time 2006-01-02T15:04:05Z (UnixStartTime 1136214245)"},
		},
		{
			Name: "UnknownHeaderAnchored", Input: "; UnixStartTime: -1\n" + cores + line, Start: anchor, Want: job(4, anchor),
			Notes: []string{"no UnixStartTime header: times count from --start-time 2006-01-02T15:04:05Z (UnixStartTime 1136214245)"},
		},
		{
			Name: "HeaderWins", Input: swfHeader + line, Start: anchor, Want: job(5, swfAt(0)),
			Notes: []string{"the UnixStartTime header 1136073600 (2006-01-01T00:00:00Z) is used; --start-time 2006-01-02T15:04:05Z is ignored"},
		},
		{Name: "HeaderAgrees", Input: swfHeader + line, Start: swfAt(0), Want: job(5, swfAt(0))},
		{Name: "Header", Input: swfHeader + line, Want: job(5, swfAt(0))},
		{Name: "Neither", Input: cores + line, Want: job(3, epoch), Notes: []string{swfEpochNote}},
		{Name: "AtEpoch", Input: cores + line, Start: epoch, Want: job(3, epoch),
			Notes: []string{"no UnixStartTime header: times count from --start-time 1970-01-01T00:00:00Z (UnixStartTime 0)"}},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			res := swfReadOne(t, tt.Input, ingest.Options{StartTime: tt.Start})
			if diff := cmp.Diff([]trace.Job{tt.Want}, res.Jobs); diff != "" {
				t.Errorf("jobs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.Notes, res.Summary.Inputs[0].Notes); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
		})
	}
	for name, bad := range map[string]time.Time{
		"ErrBeforeEpoch": time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC),
		"ErrTooLate":     time.Date(2400, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := swfRead(t, []byte(cores+line), "in.swf", ingest.Options{StartTime: bad})
			if !errors.Is(err, ingest.ErrBadTime) || !strings.HasPrefix(err.Error(), "in.swf: invalid time: start time ") {
				t.Errorf("Read error = %v, want in.swf: invalid time: start time ... (ErrBadTime)", err)
			}
		})
	}
	t.Run("OtherFormatsIgnoreIt", func(t *testing.T) {
		const sacct = "JobID|State|Submit|Start|End\n1|COMPLETED|2001-02-03T04:05:06|2001-02-03T04:05:07|2001-02-03T05:00:00\n"
		res, err := ingestBytes(t, []byte(sacct), "in.sacct", ingest.Options{StartTime: anchor})
		want := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
		if err != nil || len(res.Jobs) != 1 || !res.Jobs[0].Submit.Equal(want) {
			t.Errorf("sacct with StartTime: %v, %v", err, res.Jobs)
		}
	})
}

// swfGoldenCase reads File from testdata/swf with Opts (Cluster "test")
// into <Name>.golden.jsonl.
type swfGoldenCase struct {
	Name, File string
	Opts       ingest.Options
}

// swfGoldenCases are the SWF golden cases; every fixture has at least one.
var swfGoldenCases = []swfGoldenCase{
	{"small", "small.swf", ingest.Options{CoresPerNode: 32}},
	{"no_header", "no_header.swf", ingest.Options{}},
	{"no_header_anchored", "no_header.swf", ingest.Options{StartTime: time.Date(2006, 1, 2, 15, 4, 5, 0, time.UTC), CoresPerNode: 4}},
	{"wait_unknown", "wait_unknown.swf", ingest.Options{}},
	{"status", "status.swf", ingest.Options{}},
	{"all_unknown", "all_unknown.swf", ingest.Options{}},
}

// TestGolden_SWF reads every SWF fixture into its golden file: jobs,
// quarantine records and summary (with its notes).
func TestGolden_SWF(t *testing.T) {
	dir := filepath.Join("testdata", "swf")
	files, err := filepath.Glob(filepath.Join(dir, "*.swf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !slices.ContainsFunc(swfGoldenCases, func(c swfGoldenCase) bool { return c.File == filepath.Base(f) }) {
			t.Errorf("fixture %s has no golden case", f)
		}
	}
	for _, c := range swfGoldenCases {
		t.Run(c.Name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, c.File))
			if err != nil {
				t.Fatal(err)
			}
			opts := c.Opts
			opts.Cluster = "test"
			res, err := ingestBytes(t, data, c.File, opts)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			s := res.Summary
			if !s.Balanced || s.Jobs != int64(len(res.Jobs)) || s.Quarantined != int64(len(res.Quarantine)) {
				t.Errorf("summary = %+v with %d jobs, %d quarantined", s, len(res.Jobs), len(res.Quarantine))
			}
			golden.Check(t, filepath.Join(dir, c.Name+".golden.jsonl"), encodeIngested(t, res))
		})
	}
}
