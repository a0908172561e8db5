package ingest_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/klauspost/compress/zstd"
	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/trace"
)

// writeFile writes data to name in dir and returns its path.
func writeFile(tb testing.TB, dir, name string, data []byte) string {
	tb.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

func readFixture(tb testing.TB, parts ...string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(parts...))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// insertLine inserts line after the n-th line (1-indexed) of data.
func insertLine(tb testing.TB, data []byte, n int, line string) []byte {
	tb.Helper()
	lines := strings.SplitAfter(string(data), "\n")
	if n > len(lines) {
		tb.Fatalf("insert after line %d of %d", n, len(lines))
	}
	out := strings.Join(lines[:n], "") + line + "\n" + strings.Join(lines[n:], "")
	return []byte(out)
}

// readQuarantine reads a quarantine JSONL file.
func readQuarantine(tb testing.TB, path string) []ingest.QuarantineRecord {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var recs []ingest.QuarantineRecord
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r ingest.QuarantineRecord
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			tb.Fatalf("quarantine line %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return recs
}

func mustReadAll(tb testing.TB, path string) []trace.Job {
	tb.Helper()
	jobs, err := trace.ReadAll(path)
	if err != nil {
		tb.Fatal(err)
	}
	return jobs
}

// garbageCases are inputs with bad lines in the middle, in both formats,
// and the quarantine records they must produce (File is filled in).
func garbageCases(tb testing.TB) []struct {
	Name  string
	Data  []byte
	Opts  ingest.Options
	Jobs  int64
	Want  []ingest.QuarantineRecord
	First *ingest.ParseError // the strict error
} {
	tb.Helper()
	sacct := readFixture(tb, "testdata", "sacct", "p2_sample.txt")
	// After line 10 (job 5): a line of garbage, then a row with a bad End.
	sacct = insertLine(tb, sacct, 10, "8|8|badtime|root|root|debug|COMPLETED|0:0|2026-11-30T12:39:00|2026-11-30T12:39:00|2026-11-30T12:39:01|2026-11-30T25:00:00|1|UNLIMITED|1|100M|vm")
	sacct = insertLine(tb, sacct, 10, "this line is garbage")
	mirage := readFixture(tb, "testdata", "mirage", "no_count.txt")
	mirage = insertLine(tb, mirage, 3, "200003\tc\t00012\t2023-01-10T08:00:00\t2023-01-10T08:30:00\t2023-01-10T09:00:00\tlots\t1")
	mirage = insertLine(tb, mirage, 3, "garbage")
	return []struct {
		Name  string
		Data  []byte
		Opts  ingest.Options
		Jobs  int64
		Want  []ingest.QuarantineRecord
		First *ingest.ParseError
	}{
		{
			Name: "sacct", Data: sacct, Opts: sacctOpts, Jobs: 25,
			Want: []ingest.QuarantineRecord{
				{Line: 11, Reason: "wrong number of fields: 1, header has 17", Raw: "this line is garbage"},
				{Line: 12, Field: "End", Reason: `invalid time: "2026-11-30T25:00:00" is out of range`,
					Raw: "8|8|badtime|root|root|debug|COMPLETED|0:0|2026-11-30T12:39:00|2026-11-30T12:39:00|2026-11-30T12:39:01|2026-11-30T25:00:00|1|UNLIMITED|1|100M|vm"},
			},
			First: &ingest.ParseError{Line: 11, Err: ingest.ErrFieldCount},
		},
		{
			Name: "mirage", Data: mirage, Opts: mirageOpts(tb), Jobs: 2,
			Want: []ingest.QuarantineRecord{
				{Line: 4, Reason: "wrong number of fields: 1, header has 8", Raw: "garbage"},
				{Line: 5, Field: "TimelimitR", Reason: `invalid duration: "lots" (want minutes, UNLIMITED or Partition_Limit)`,
					Raw: "200003\tc\t00012\t2023-01-10T08:00:00\t2023-01-10T08:30:00\t2023-01-10T09:00:00\tlots\t1"},
			},
			First: &ingest.ParseError{Line: 4, Err: ingest.ErrFieldCount},
		},
	}
}

func TestRun_Quarantine(t *testing.T) {
	for _, tt := range garbageCases(t) {
		t.Run(tt.Name, func(t *testing.T) {
			dir := t.TempDir()
			in := writeFile(t, dir, "in.txt", tt.Data)
			out := filepath.Join(dir, "out.parquet")
			sum, err := ingest.Run(context.Background(), []string{in}, out, tt.Opts)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Jobs != tt.Jobs || sum.Quarantined != 2 || !sum.Balanced ||
				sum.RowsRead != sum.Jobs+sum.StepsFolded+sum.Quarantined || sum.Inputs[0].Quarantined != 2 {
				t.Errorf("summary = %+v", sum)
			}
			if sum.Output != out || sum.QuarantineFile != filepath.Join(dir, "out.quarantine.jsonl") {
				t.Errorf("output %q, quarantine file %q", sum.Output, sum.QuarantineFile)
			}
			if jobs := mustReadAll(t, out); int64(len(jobs)) != tt.Jobs {
				t.Errorf("output has %d jobs, want %d", len(jobs), tt.Jobs)
			}
			want := append([]ingest.QuarantineRecord(nil), tt.Want...)
			for i := range want {
				want[i].File = filepath.Base(in) // its name, not its path
			}
			if diff := cmp.Diff(want, readQuarantine(t, sum.QuarantineFile)); diff != "" {
				t.Errorf("quarantine mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRun_Strict(t *testing.T) {
	for _, tt := range garbageCases(t) {
		t.Run(tt.Name, func(t *testing.T) {
			dir := t.TempDir()
			in := writeFile(t, dir, "in.txt", tt.Data)
			out := filepath.Join(dir, "out.parquet")
			opts := tt.Opts
			opts.Strict = true
			_, err := ingest.Run(context.Background(), []string{in}, out, opts)
			var pe *ingest.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Run error %v (%T) is not a *ParseError", err, err)
			}
			if pe.Path != in || pe.Line != tt.First.Line || pe.Field != tt.First.Field || !errors.Is(err, tt.First.Err) {
				t.Errorf("ParseError:\ngot  %+v\nwant path %s, line %d, field %q, wrapping %v", pe, in, tt.First.Line, tt.First.Field, tt.First.Err)
			}
			if msg, want := err.Error(), in+":"+strconv.FormatInt(tt.First.Line, 10)+": "+tt.Want[0].Reason; msg != want {
				t.Errorf("message:\ngot  %q\nwant %q", msg, want)
			}
			if !ingest.IsInputError(err) {
				t.Error("IsInputError = false")
			}
			assertNoOutput(t, dir, "in.txt")
		})
	}
	// The message of an error with a field: "path:line: field: reason".
	t.Run("Field", func(t *testing.T) {
		dir := t.TempDir()
		in := writeFile(t, dir, "in.txt", []byte("JobID|State\n1|COMPLETED\n2|DONE\n"))
		_, err := ingest.Run(context.Background(), []string{in}, filepath.Join(dir, "out.parquet"), ingest.Options{Strict: true})
		var pe *ingest.ParseError
		if !errors.As(err, &pe) || pe.Field != "State" || pe.Line != 3 || !errors.Is(err, trace.ErrBadState) {
			t.Fatalf("Run error = %#v", err)
		}
		if want := in + `:3: State: invalid job state: "DONE"`; err.Error() != want {
			t.Errorf("message:\ngot  %q\nwant %q", err.Error(), want)
		}
		assertNoOutput(t, dir, "in.txt")
	})
}

// assertNoOutput checks that dir holds nothing but the inputs: no output,
// no quarantine file, no temporary files.
func assertNoOutput(tb testing.TB, dir string, inputs ...string) {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range entries {
		if !containsName(inputs, e.Name()) {
			tb.Errorf("%s left behind after an error", e.Name())
		}
	}
}

func containsName(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestRun_InputErrors(t *testing.T) {
	tests := []struct {
		Name  string
		Input string
		Err   error
	}{
		{Name: "Empty", Input: "", Err: ingest.ErrEmptyInput},
		{Name: "Blank", Input: "\n\n", Err: ingest.ErrEmptyInput},
		{Name: "HeaderOnly", Input: "JobID|State|Reason|Submit|Eligible\n", Err: ingest.ErrHeaderOnly},
		{Name: "MirageHeaderOnly", Input: "2\n" + mirageHeader, Err: ingest.ErrHeaderOnly},
		{Name: "Unknown", Input: "JobIDtJobNametState\n1twraptCOMPLETED\n", Err: ingest.ErrUnknownFormat},
		{Name: "FixedWidth", Input: string(readFixture(t, "testdata", "sacct", "fixed_default.txt")), Err: ingest.ErrFixedWidth},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			dir := t.TempDir()
			in := writeFile(t, dir, "in.txt", []byte(tt.Input))
			_, err := ingest.Run(context.Background(), []string{in}, filepath.Join(dir, "out.parquet"), sacctOpts)
			if !errors.Is(err, tt.Err) {
				t.Fatalf("Run error:\ngot  %v\nwant %v", err, tt.Err)
			}
			if !ingest.IsInputError(err) || !strings.Contains(err.Error(), in) {
				t.Errorf("error %q: not an input error naming the input", err)
			}
			assertNoOutput(t, dir, "in.txt")
		})
	}
}

// TestRun_Duplicates ingests two overlapping dumps: the jobs in both are
// kept once, from the later file, and the earlier copies quarantined.
func TestRun_Duplicates(t *testing.T) {
	dir := t.TempDir()
	sample := strings.SplitAfter(string(readFixture(t, "testdata", "sacct", "p2_sample.txt")), "\n")
	header, rows := sample[0], sample[1:len(sample)-1] // the split leaves "" last
	if len(rows) != 25 {
		t.Fatalf("p2_sample has %d rows", len(rows))
	}
	// a: rows 0..14, b: rows 10..24; rows 10..14 (jobs 12, 13, 14, 16, 15) overlap.
	a := writeFile(t, dir, "a.txt", []byte(header+strings.Join(rows[:15], "")))
	b := writeFile(t, dir, "b.txt", []byte(header+strings.Join(rows[10:], "")))
	out := filepath.Join(dir, "out.parquet")
	sum, err := ingest.Run(context.Background(), []string{a, b}, out, sacctOpts)
	if err != nil {
		t.Fatal(err)
	}
	if sum.RowsRead != 30 || sum.Jobs != 25 || sum.Duplicates != 5 || sum.Quarantined != 5 || !sum.Balanced {
		t.Errorf("summary = %+v", sum)
	}
	if sum.Inputs[0].Quarantined != 5 || sum.Inputs[1].Quarantined != 0 {
		t.Errorf("per-input quarantined = %d, %d; want 5, 0", sum.Inputs[0].Quarantined, sum.Inputs[1].Quarantined)
	}
	jobs := mustReadAll(t, out)
	overlap := map[string]bool{"12": true, "13": true, "14": true, "16": true, "15": true}
	seen := map[string]int{}
	for _, j := range jobs {
		seen[j.JobID]++
		if overlap[j.JobID] && j.SourceFile != "b.txt" { // its name, not its path
			t.Errorf("job %s kept from %s, want the later file b.txt", j.JobID, j.SourceFile)
		}
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("job %s appears %d times", id, n)
		}
	}
	recs := readQuarantine(t, sum.QuarantineFile)
	if len(recs) != 5 {
		t.Fatalf("quarantine = %+v", recs)
	}
	for _, r := range recs {
		if r.File != "a.txt" || r.Field != "JobID" || !strings.HasPrefix(r.Reason, ingest.ErrDuplicate.Error()) || r.Line < 12 || r.Line > 16 {
			t.Errorf("quarantine record = %+v", r)
		}
	}

	// Strict: the duplicate is an error.
	_, err = ingest.Run(context.Background(), []string{a, b}, filepath.Join(dir, "strict.parquet"), ingest.Options{Strict: true, Cluster: "localtest"})
	var pe *ingest.ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ingest.ErrDuplicate) || pe.Path != a {
		t.Errorf("strict Run error = %v", err)
	}
}

func TestRun_Deterministic(t *testing.T) {
	for _, c := range []struct {
		name string
		path string
		opts ingest.Options
	}{
		{"sacct", filepath.Join("testdata", "sacct", "p2_full.txt"), sacctOpts},
		{"mirage", filepath.Join("testdata", "mirage", "basic.txt"), mirageOpts(t)},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var outs [2][]byte
			for i := range outs {
				out := filepath.Join(dir, "out"+strconv.Itoa(i)+".parquet")
				opts := c.opts
				opts.Quarantine = filepath.Join(dir, "q.jsonl")
				if _, err := ingest.Run(context.Background(), []string{c.path}, out, opts); err != nil {
					t.Fatal(err)
				}
				outs[i] = readFixture(t, out)
			}
			if !bytes.Equal(outs[0], outs[1]) {
				t.Errorf("two runs over the same input differ (%d and %d bytes)", len(outs[0]), len(outs[1]))
			}
		})
	}
}

func gzipBytes(tb testing.TB, data []byte) []byte {
	tb.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(data); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func zstdBytes(tb testing.TB, data []byte) []byte {
	tb.Helper()
	w, err := zstd.NewWriter(nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Close()
	return w.EncodeAll(data, nil)
}

func TestRun_Compressed(t *testing.T) {
	for _, c := range []struct {
		name string
		path string
		opts ingest.Options
	}{
		{"sacct", filepath.Join("testdata", "sacct", "p2_default.txt"), sacctOpts},
		{"mirage", filepath.Join("testdata", "mirage", "basic.txt"), mirageOpts(t)},
	} {
		t.Run(c.name, func(t *testing.T) {
			plain := readFixture(t, c.path)
			dir := t.TempDir()
			ignoreFile := cmpopts.IgnoreFields(trace.Job{}, "SourceFile")
			var want []trace.Job
			for _, comp := range []struct {
				name string
				data []byte
			}{{"none", plain}, {"gzip", gzipBytes(t, plain)}, {"zstd", zstdBytes(t, plain)}} {
				in := writeFile(t, dir, "in."+comp.name, comp.data)
				out := filepath.Join(dir, comp.name+".parquet")
				sum, err := ingest.Run(context.Background(), []string{in}, out, c.opts)
				if err != nil {
					t.Fatalf("%s: %v", comp.name, err)
				}
				if sum.Inputs[0].Compression != comp.name || !sum.Balanced {
					t.Errorf("%s: summary %+v", comp.name, sum)
				}
				jobs := mustReadAll(t, out)
				if want == nil {
					want = jobs
					continue
				}
				if diff := cmp.Diff(want, jobs, ignoreFile); diff != "" {
					t.Errorf("%s: jobs differ from plain input (-plain +%s):\n%s", comp.name, comp.name, diff)
				}
				// Read decompresses too.
				res, err := ingestBytes(t, comp.data, "in", c.opts)
				if err != nil || res.Summary.Inputs[0].Compression != comp.name || len(res.Jobs) != len(want) {
					t.Errorf("%s: Read: %v, %+v", comp.name, err, res.Summary)
				}
			}
		})
	}
}

func TestRun_MetadataAndSort(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.parquet")
	sum, err := ingest.Run(context.Background(), []string{filepath.Join("testdata", "sacct", "p2_sample.txt")}, out, sacctOpts)
	if err != nil {
		t.Fatal(err)
	}
	jobs := mustReadAll(t, out)
	if int64(len(jobs)) != sum.Jobs || sum.Format != "sacct" || sum.TimeZone != "UTC" {
		t.Errorf("summary = %+v", sum)
	}
	for i := 1; i < len(jobs); i++ {
		if trace.Less(&jobs[i], &jobs[i-1]) {
			t.Errorf("job %s (row %d) sorts before %s", jobs[i].JobID, i, jobs[i-1].JobID)
		}
	}
	r, err := trace.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	meta, ok := r.Metadata(ingest.MetaIngest)
	if !ok || !strings.Contains(meta, `"format":"sacct"`) || !strings.Contains(meta, `"cluster":"localtest"`) {
		t.Errorf("metadata %s = %q, %v", ingest.MetaIngest, meta, ok)
	}
	if q := readQuarantine(t, sum.QuarantineFile); len(q) != 0 {
		t.Errorf("quarantine = %+v, want empty", q)
	}
}
