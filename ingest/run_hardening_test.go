package ingest_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/trace"
)

const hardHeader = "JobID|JobName|User|State|Submit|Start|End\n"

func hardRow(id, name string) string {
	return id + "|" + name + "|alice|COMPLETED|2023-01-01T00:00:00|2023-01-01T00:10:00|2023-01-01T01:00:00\n"
}

func TestRun_ErrOutputIsInput(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.txt", []byte(hardHeader+hardRow("1", "a")))
	link := filepath.Join(dir, "link.parquet")
	if err := os.Link(in, link); err != nil {
		t.Skip(err)
	}
	tests := []struct {
		Name        string
		Output, Qua string
	}{
		{"Output", in, ""},
		{"HardLink", link, ""},
		{"Quarantine", filepath.Join(dir, "o.parquet"), in},
		{"QuarantineIsOutput", filepath.Join(dir, "o.parquet"), filepath.Join(dir, "o.parquet")},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			_, err := ingest.Run(context.Background(), []string{in}, tt.Output, ingest.Options{Quarantine: tt.Qua})
			if !errors.Is(err, ingest.ErrOutputIsInput) {
				t.Fatalf("err = %v, want ErrOutputIsInput", err)
			}
			if b, _ := os.ReadFile(in); string(b) != hardHeader+hardRow("1", "a") {
				t.Errorf("input changed: %q", b)
			}
			assertNoOutput(t, dir, "in.txt", "link.parquet")
		})
	}
}

func TestRun_ErrBadOption(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.txt", []byte(hardHeader+hardRow("1", "a")))
	for name, opts := range map[string]ingest.Options{
		"RowGroupRows": {RowGroupRows: -5},
		"Cluster":      {Cluster: "ls\xff6"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ingest.Run(context.Background(), []string{in}, filepath.Join(dir, "o.parquet"), opts)
			if !errors.Is(err, ingest.ErrBadOption) {
				t.Fatalf("err = %v, want ErrBadOption", err)
			}
			assertNoOutput(t, dir, "in.txt")
		})
	}
}

// TestRun_FailureKeepsOutputs checks that a run failing after it read
// everything leaves the previous outputs byte for byte.
func TestRun_FailureKeepsOutputs(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.txt", []byte(hardHeader+hardRow("1", "a")+"2|b|bob|BOGUS|||\n"))
	b := writeFile(t, dir, "b.txt", []byte(hardHeader+hardRow("1", "a")))
	b2 := writeFile(t, dir, "b2.txt", []byte(hardHeader+hardRow("1", "a")))
	bad := writeFile(t, dir, "bad.txt", []byte(hardHeader+"3|c|bob|BOGUS|||\n"))
	out := filepath.Join(dir, "o.parquet")
	if _, err := ingest.Run(context.Background(), []string{a}, out, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	qpath := ingest.DefaultQuarantinePath(out)
	oldOut, _ := os.ReadFile(out)
	oldQ, _ := os.ReadFile(qpath)
	for _, tt := range []struct {
		Name   string
		Inputs []string
		Opts   ingest.Options
		Err    error
	}{
		{"StrictDuplicate", []string{b, b2}, ingest.Options{Strict: true}, ingest.ErrDuplicate},
		{"NoJobs", []string{bad}, ingest.Options{}, ingest.ErrNoJobs},
	} {
		t.Run(tt.Name, func(t *testing.T) {
			sum, err := ingest.Run(context.Background(), tt.Inputs, out, tt.Opts)
			if !errors.Is(err, tt.Err) || !ingest.IsInputError(err) {
				t.Fatalf("err = %v, want %v", err, tt.Err)
			}
			if got, _ := os.ReadFile(out); !bytes.Equal(got, oldOut) {
				t.Error("output changed")
			}
			if got, _ := os.ReadFile(qpath); !bytes.Equal(got, oldQ) {
				t.Errorf("quarantine changed: %q", got)
			}
			if tt.Err == ingest.ErrNoJobs && (sum.RowsRead != 1 || sum.Quarantined != 1 || !sum.Balanced) {
				t.Errorf("summary %+v", sum)
			}
			assertNoOutput(t, dir, "a.txt", "b.txt", "b2.txt", "bad.txt", "o.parquet", "o.quarantine.jsonl")
		})
	}
	t.Run("AllowEmpty", func(t *testing.T) {
		sum, err := ingest.Run(context.Background(), []string{bad}, out, ingest.Options{AllowEmpty: true})
		if err != nil || sum.Jobs != 0 || sum.Quarantined != 1 {
			t.Fatalf("sum %+v, err %v", sum, err)
		}
		if jobs := mustReadAll(t, out); len(jobs) != 0 {
			t.Errorf("%d jobs", len(jobs))
		}
		if recs := readQuarantine(t, qpath); len(recs) != 1 || recs[0].Field != "State" {
			t.Errorf("quarantine %+v", recs)
		}
	})
}

// TestRun_Text checks the text rule: invalid UTF-8 and control characters
// in a kept string field are replaced with U+FFFD, the job is flagged and
// counted as repaired, and --strict names file, line and field.
func TestRun_Text(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.txt", []byte(hardHeader+hardRow("1", "ok")+hardRow("2", "bad\xff\x00")))
	out := filepath.Join(dir, "o.parquet")
	sum, err := ingest.Run(context.Background(), []string{in}, out, ingest.Options{})
	if err != nil || sum.Repaired != 1 || sum.Inputs[0].Repaired != 1 || sum.Jobs != 2 {
		t.Fatalf("sum %+v, err %v", sum, err)
	}
	jobs := mustReadAll(t, out)
	if jobs[1].JobName != "bad\uFFFD\uFFFD" || jobs[1].Repair != ingest.RepairInvalidText || jobs[0].Repair != "" {
		t.Errorf("jobs %q %q, %q %q", jobs[0].JobName, jobs[0].Repair, jobs[1].JobName, jobs[1].Repair)
	}
	_, err = ingest.Run(context.Background(), []string{in}, out, ingest.Options{Strict: true})
	var pe *ingest.ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ingest.ErrBadText) || pe.Line != 3 || pe.Field != "JobName" {
		t.Fatalf("strict: %v", err)
	}
	if want := in + `:3: JobName: invalid text: "bad\xff\x00" holds invalid UTF-8 or a control character (replaced with U+FFFD unless --strict)`; err.Error() != want {
		t.Errorf("message\ngot  %s\nwant %s", err, want)
	}
}

// TestRun_TextFileName checks that an input name that is not valid UTF-8
// is written (source_file, the quarantine file's file: the base name) as
// clean text.
func TestRun_TextFileName(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in\xff.txt", []byte(hardHeader+hardRow("1", "a")+"2|b|bob|BOGUS|||\n"))
	out := filepath.Join(dir, "o.parquet")
	if _, err := ingest.Run(context.Background(), []string{in}, out, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	want := "in\uFFFD.txt"
	if jobs := mustReadAll(t, out); jobs[0].SourceFile != want {
		t.Errorf("source_file %q, want %q", jobs[0].SourceFile, want)
	}
	if recs := readQuarantine(t, ingest.DefaultQuarantinePath(out)); len(recs) != 1 || recs[0].File != want {
		t.Errorf("quarantine %+v", recs)
	}
}

// TestRead_BOM checks that every reader sees past a UTF-8 byte-order mark.
func TestRead_BOM(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	for _, tt := range []struct{ Name, Input, Format string }{
		{"Sacct", bom + "JobID|JobIDRaw|State\n5_1|6|COMPLETED\n", "sacct"},
		{"SacctNoJobIDRaw", bom + "JobID|State\n5_1|COMPLETED\n", "sacct"},
		{"JSON", bom + `{"jobs": [{"job_id": 5, "state": {"current": "COMPLETED"}}]}`, "sacct-json"},
		{"Mirage", bom + "1\nJobID JobName State\n----- ------- -----\n5\tx\tCOMPLETED\n", "mirage"},
		{"SWF", bom + "; UnixStartTime: 1672531200\n5 0 1 1 1 -1 -1 1 10 -1 1 1 1 -1 1 1 -1 -1\n", "swf"},
	} {
		t.Run(tt.Name, func(t *testing.T) {
			var jobs []trace.Job
			sum, err := ingest.Read(context.Background(), strings.NewReader(tt.Input), "in", ingest.Options{Strict: true},
				func(j *trace.Job) error { jobs = append(jobs, *j); return nil }, nil)
			if err != nil || sum.Format != tt.Format || len(jobs) != 1 {
				t.Fatalf("format %q, %d jobs, err %v", sum.Format, len(jobs), err)
			}
			if tt.Format == "sacct" && (jobs[0].ArrayJobID != 5 || jobs[0].ArrayTaskID != 1) {
				t.Errorf("array IDs lost: %+v", jobs[0])
			}
		})
	}
}
