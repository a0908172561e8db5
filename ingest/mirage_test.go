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

// mirageOpts reads Mirage-format inputs as the LS6 trace is read.
func mirageOpts(tb testing.TB) ingest.Options {
	tb.Helper()
	return ingest.Options{Location: mustLoadLocation(tb, "America/Chicago"), Cluster: "ls6"}
}

// mirageHeader is the LS6 header: count line aside, the space-aligned
// names and the dashes.
const mirageHeader = "       JobID    JobName    UID               Start              Submit                 End   Priority TimelimitR ExitCode   NNodes\n" +
	"------------ ---------- ------ ------------------- ------------------- ------------------- ---------- ---------- -------- --------\n"

// mirageRow joins fields with TABs.
func mirageRow(fields ...string) string { return strings.Join(fields, "\t") + "\n" }

func TestMirage_Basic(t *testing.T) {
	res := mustReadFile(t, filepath.Join("testdata", "mirage", "basic.txt"), mirageOpts(t))
	s := res.Summary
	if s.Format != "mirage" || s.RowsRead != 7 || s.Jobs != 6 || s.Quarantined != 1 || s.Repaired != 1 ||
		s.DSTAmbiguous != 1 || s.TimeZone != "America/Chicago" || !s.Balanced || len(s.Inputs[0].Notes) != 0 {
		t.Errorf("summary = %+v", s)
	}

	got := findJob(t, res, "100001", 0)
	want := trace.NewJob()
	want.JobID, want.JobIDRaw, want.Cluster, want.JobName, want.UID = "100001", 100001, "ls6", "train.1", 1
	want.Submit, want.Start, want.End = at(t, "2022-11-01T14:00:00Z"), at(t, "2022-11-01T15:00:00Z"), at(t, "2022-11-01T17:00:00Z")
	want.Priority, want.TimelimitSec, want.NNodes = 1234, 180*60, 2
	want.SourceFile, want.SourceLine = "basic.txt", 4
	if diff := cmp.Diff(want, *got); diff != "" {
		t.Errorf("job 100001 mismatch (-want +got):\n%s", diff)
	}

	// The extra token after UID is dropped; the other fields keep their
	// columns.
	j := findJob(t, res, "100003", 0)
	if j.Repair != trace.RepairShiftedFields || j.UID != 3 || j.Priority != 1169 || j.TimelimitSec != 720*60 || j.NNodes != 4 ||
		!j.Start.Equal(at(t, "2022-11-02T13:00:00Z")) || !j.Submit.Equal(at(t, "2022-11-02T12:59:00Z")) {
		t.Errorf("repaired job 100003 = %+v", j)
	}

	// Submit 01:35 and Start 01:40 on the fall-back night: the 30-minute
	// limit and End 02:00 CST put Start in the second 01:00 hour.
	j = findJob(t, res, "100002", 0)
	if !j.Submit.Equal(at(t, "2022-11-06T06:35:00Z")) || !j.Start.Equal(at(t, "2022-11-06T07:40:00Z")) || !j.End.Equal(at(t, "2022-11-06T08:00:00Z")) {
		t.Errorf("job 100002: submit %v start %v end %v", j.Submit, j.Start, j.End)
	}

	// No State column: Start == End means it never ran.
	if j := findJob(t, res, "100004", 0); j.State != trace.StateUnknown || !j.NeverStarted() {
		t.Errorf("job 100004: state %v, never started %v", j.State, j.NeverStarted())
	}
	if j := findJob(t, res, "100001", 0); j.NeverStarted() {
		t.Error("job 100001 ran but NeverStarted() is true")
	}

	// 01:30 CST to 03:30 CDT across the spring-forward is one hour.
	if rt, ok := findJob(t, res, "100005", 0).RunTime(); !ok || rt != time.Hour {
		t.Errorf("job 100005 run time = %v, %v; want 1h", rt, ok)
	}
	if j := findJob(t, res, "100006", 0); j.ExitCode != 1 || j.ExitSignal != 0 || j.NNodes != 8 {
		t.Errorf("job 100006 = %+v", j)
	}

	if len(res.Quarantine) != 1 {
		t.Fatalf("quarantine = %+v", res.Quarantine)
	}
	q := res.Quarantine[0]
	if q.File != "basic.txt" || q.Line != 10 || q.Field != "Submit" || !strings.HasPrefix(q.Reason, ingest.ErrBadTime.Error()) ||
		!strings.HasPrefix(q.Raw, "100007\tgap\t") {
		t.Errorf("quarantine record = %+v", q)
	}
}

func TestMirage_CountLine(t *testing.T) {
	for _, tt := range []struct {
		Name  string
		Notes []string
	}{
		{"no_count", nil},
		{"count_mismatch", []string{"count line says 10; the file has 2 rows"}},
	} {
		t.Run(tt.Name, func(t *testing.T) {
			res := mustReadFile(t, filepath.Join("testdata", "mirage", tt.Name+".txt"), mirageOpts(t))
			if diff := cmp.Diff(tt.Notes, res.Summary.Inputs[0].Notes); diff != "" {
				t.Errorf("notes mismatch (-want +got):\n%s", diff)
			}
			if len(res.Jobs) != 2 || res.Summary.RowsRead != 2 {
				t.Errorf("summary = %+v", res.Summary)
			}
		})
	}
	// The LS6 count is rows + 2; a count equal to the rows is fine too.
	for _, count := range []string{"3\n", "1\n"} {
		in := count + mirageHeader + mirageRow("1", "a", "00001", "2022-11-01T10:00:00", "2022-11-01T09:00:00", "2022-11-01T12:00:00", "1", "60", "0:0", "1")
		res, err := ingestBytes(t, []byte(in), "in.log", mirageOpts(t))
		if err != nil || len(res.Summary.Inputs[0].Notes) != 0 {
			t.Errorf("count %q: err %v, notes %q", count, err, res.Summary.Inputs[0].Notes)
		}
	}
}

func TestMirage_Errors(t *testing.T) {
	forced := ingest.Options{Format: ingest.FormatMirage}
	tests := []struct {
		Name  string
		Input string
		Opts  ingest.Options
		Err   error
	}{
		{Name: "Empty", Input: "", Opts: forced, Err: ingest.ErrEmptyInput},
		{Name: "Blank", Input: "\n \n", Opts: forced, Err: ingest.ErrEmptyInput},
		{Name: "CountOnly", Input: "24779\n", Opts: forced, Err: ingest.ErrHeaderOnly},
		{Name: "HeaderOnly", Input: "2\n" + mirageHeader, Err: ingest.ErrHeaderOnly},
		{Name: "HeaderOnlyForced", Input: mirageHeader, Opts: forced, Err: ingest.ErrHeaderOnly},
		{Name: "MissingJobID", Input: "2\nJobName UID\n----- ---\na\t1\n", Opts: forced, Err: ingest.ErrMissingColumn},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			res, err := ingestBytes(t, []byte(tt.Input), "in.log", tt.Opts)
			if !errors.Is(err, tt.Err) {
				t.Fatalf("Read error:\ngot  %v\nwant %v", err, tt.Err)
			}
			if !ingest.IsInputError(err) || !strings.HasPrefix(err.Error(), "in.log") {
				t.Errorf("error %q: not an input error naming the input", err)
			}
			if len(res.Jobs) != 0 {
				t.Errorf("got %d jobs", len(res.Jobs))
			}
		})
	}
}

func TestMirage_BadRows(t *testing.T) {
	good := mirageRow("1", "a", "00001", "2022-11-01T10:00:00", "2022-11-01T09:00:00", "2022-11-01T12:00:00", "1", "60", "0:0", "1")
	tests := []struct {
		Name  string
		Input string
		Field string
		Err   error
	}{
		{
			Name:  "TooFewFields",
			Input: mirageHeader + good + mirageRow("2", "b", "00002", "2022-11-01T10:00:00"),
			Err:   ingest.ErrFieldCount,
		},
		{
			// Only a header that starts JobID, JobName, UID is repaired.
			Name: "TooManyFieldsNotAnchored",
			Input: "JobName JobID UID Start\n---- ---- ---- ----\n" + mirageRow("a", "1", "00001", "2022-11-01T10:00:00") +
				mirageRow("b", "2", "00002", "x", "2022-11-01T10:00:00"),
			Err: ingest.ErrFieldCount,
		},
		{
			Name:  "BadTime",
			Input: mirageHeader + good + mirageRow("2", "b", "00002", "2022-11-01T10:00:00", "2022-11-01 9:00", "2022-11-01T12:00:00", "1", "60", "0:0", "1"),
			Field: "Submit", Err: ingest.ErrBadTime,
		},
		{
			Name:  "BadLimit",
			Input: mirageHeader + good + mirageRow("2", "b", "00002", "2022-11-01T10:00:00", "2022-11-01T09:00:00", "2022-11-01T12:00:00", "1", "1:00:00", "0:0", "1"),
			Field: "TimelimitR", Err: ingest.ErrBadDuration,
		},
		{
			Name:  "BadUID",
			Input: mirageHeader + good + mirageRow("2", "b", "x0002", "2022-11-01T10:00:00", "2022-11-01T09:00:00", "2022-11-01T12:00:00", "1", "60", "0:0", "1"),
			Field: "UID", Err: ingest.ErrBadNumber,
		},
		{
			Name:  "Step",
			Input: mirageHeader + good + mirageRow("2.batch", "b", "00002", "2022-11-01T10:00:00", "2022-11-01T09:00:00", "2022-11-01T12:00:00", "1", "60", "0:0", "1"),
			Field: "JobID", Err: ingest.ErrOrphanStep,
		},
		{
			Name:  "EndBeforeStart",
			Input: mirageHeader + good + mirageRow("2", "b", "00002", "2022-11-01T10:00:00", "2022-11-01T09:00:00", "2022-11-01T08:00:00", "1", "60", "0:0", "1"),
			Field: "End", Err: ingest.ErrTimeOrder,
		},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			in := []byte(tt.Input)
			res, err := ingestBytes(t, in, "in.log", mirageOpts(t))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Jobs) != 1 || len(res.Quarantine) != 1 || !res.Summary.Balanced {
				t.Fatalf("jobs %d, quarantine %+v, summary %+v", len(res.Jobs), res.Quarantine, res.Summary)
			}
			q := res.Quarantine[0]
			lines := strings.Split(strings.TrimSuffix(tt.Input, "\n"), "\n")
			if q.File != "in.log" || q.Line != int64(len(lines)) || q.Field != tt.Field || q.Raw != lines[len(lines)-1] ||
				!strings.HasPrefix(q.Reason, tt.Err.Error()) {
				t.Errorf("quarantine record = %+v; want line %d, field %q, reason %q...", q, len(lines), tt.Field, tt.Err)
			}
			// Strict: the same row stops Read with its *ParseError.
			opts := mirageOpts(t)
			opts.Strict = true
			_, err = ingestBytes(t, in, "in.log", opts)
			var pe *ingest.ParseError
			if !errors.As(err, &pe) || !errors.Is(err, tt.Err) || pe.Line != q.Line || pe.Field != tt.Field || pe.Path != "in.log" {
				t.Errorf("strict error = %#v (%v)", err, err)
			}
		})
	}
}
