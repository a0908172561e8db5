package trace_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mirage-hpc/mirage/internal/golden"
	"github.com/mirage-hpc/mirage/trace"
	"github.com/parquet-go/parquet-go"
)

var t0 = time.Date(2022, 11, 1, 0, 0, 0, 0, time.UTC)

// fullJob returns a job with every field set.
func fullJob() trace.Job {
	return trace.Job{
		JobID: "3_1", JobIDRaw: 9, ArrayJobID: 3, ArrayTaskID: 1, HetJobID: 0, HetOffset: trace.Unknown,
		Cluster: "ls6", Partition: "gpu-a100", Account: "acct", User: "alice", UID: 1001,
		Group: "g", GID: 0, JobName: "train", QOS: "normal", State: trace.StateCancelled,
		CancelledBy: 0, Reason: "Dependency", ExitCode: 1, ExitSignal: 9,
		Submit: t0, Eligible: t0.Add(time.Second), Start: t0.Add(time.Minute), End: t0.Add(time.Hour),
		ElapsedSec: trace.Unknown, TimelimitSec: 7200, NNodes: 2, NCPUs: 256, NGPUs: 6, ReqMemMB: 0, Priority: 0,
		Attempt: 1, Steps: 3, Repair: trace.RepairShiftedFields, SourceFile: "a.txt", SourceLine: 7,
	}
}

// epochJob has times at the Unix epoch, which must not read back as unknown.
func epochJob() trace.Job {
	j := trace.NewJob()
	j.JobID, j.Submit, j.Start, j.End = "0", time.Unix(0, 0).UTC(), time.Unix(0, 0).UTC(), time.Unix(1, 0).UTC()
	return j
}

// sparseJob returns a job with every optional field unknown.
func sparseJob() trace.Job {
	j := trace.NewJob()
	j.JobID, j.Submit, j.SourceFile, j.SourceLine = "5", t0, "b.txt", 1
	return j
}

// startUnknownJob returns a job that ran for 90 s from an unknown start
// (an SWF wait time of -1).
func startUnknownJob() trace.Job {
	j := trace.NewJob()
	j.JobID, j.Submit, j.SourceFile, j.SourceLine = "6", t0.Add(time.Hour), "c.swf", 4
	j.State, j.StartUnknown, j.ElapsedSec, j.TimelimitSec = trace.StateCompleted, true, 90, 600
	return j
}

func writeJobs(tb testing.TB, path string, opts trace.WriterOptions, jobs []trace.Job) *trace.Writer {
	tb.Helper()
	w, err := trace.Create(path, opts)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range jobs {
		if err := w.Write(&jobs[i]); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return w
}

func TestWriter_RoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.parquet")
	in := []trace.Job{fullJob(), sparseJob(), epochJob(), startUnknownJob()}
	in[0].TimeMinSec = 1800 // schema version 3
	writeJobs(t, path, trace.WriterOptions{Metadata: map[string]string{"k": "v"}}, in)
	got, err := trace.ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []trace.Job{in[2], in[1], in[0], in[3]} // epoch first; "5" before "3_1": same Submit, shorter JobID first
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	r, err := trace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if v, _ := r.Metadata("k"); v != "v" {
		t.Errorf("metadata k = %q", v)
	}
	if v, _ := r.Metadata(trace.MetaSchemaVersion); v != strconv.Itoa(trace.SchemaVersion) {
		t.Errorf("schema version = %q", v)
	}
}

// randomJobs returns n jobs with random submits (some equal) and unique IDs.
func randomJobs(n int, seed uint64) []trace.Job {
	rng := rand.New(rand.NewPCG(seed, 1))
	jobs := make([]trace.Job, n)
	for i := range jobs {
		j := trace.NewJob()
		j.JobID = strconv.Itoa(i)
		j.Submit = t0.Add(time.Duration(rng.IntN(n/4+1)) * time.Second)
		j.SourceFile, j.SourceLine = "r", int64(i+1)
		jobs[i] = j
	}
	return jobs
}

func TestWriter_SortsAcrossRuns(t *testing.T) {
	tests := []struct {
		Name     string
		N, Group int
		Shuffle  int // 0 sorted, -1 random order, k > 0: reversed blocks of k
		WantRuns int // 0 = more than one
	}{
		{"SortedOneRun", 5000, 100, 0, 1},
		{"NearlySortedOneRun", 5000, 100, 40, 1},
		{"LongShiftsOneRun", 5000, 1000, 700, 1},
		{"ShuffledSpills", 5000, 100, -1, 0},
		{"FitsInMemory", 500, 1000, -1, 1},
		{"Empty", 0, 10, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			jobs := randomJobs(tt.N, 7)
			if tt.Shuffle >= 0 {
				sortJobs(jobs)
			}
			for k := tt.Shuffle; k > 0 && len(jobs) > 0; k = 0 {
				for lo := 0; lo < len(jobs); lo += tt.Shuffle {
					b := jobs[lo:min(len(jobs), lo+tt.Shuffle)]
					for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
						b[i], b[j] = b[j], b[i]
					}
				}
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "t.parquet")
			w := writeJobs(t, path, trace.WriterOptions{RowGroupRows: tt.Group}, jobs)
			if tt.WantRuns != 0 && w.Runs() != tt.WantRuns || tt.WantRuns == 0 && w.Runs() < 2 {
				t.Errorf("runs = %d, want %d (0 = several)", w.Runs(), tt.WantRuns)
			}
			got, err := trace.ReadAll(path)
			if err != nil {
				t.Fatal(err)
			}
			want := append([]trace.Job{}, jobs...)
			sortJobs(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if w.Rows() != int64(tt.N) {
				t.Errorf("Rows = %d, want %d", w.Rows(), tt.N)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("temporary files left: %v", entries)
			}
		})
	}
}

func sortJobs(jobs []trace.Job) {
	slices.SortStableFunc(jobs, func(a, b trace.Job) int {
		switch {
		case trace.Less(&a, &b):
			return -1
		case trace.Less(&b, &a):
			return 1
		}
		return 0
	})
}

func TestWriter_Duplicates(t *testing.T) {
	for _, group := range []int{3, 1000} {
		t.Run("RowGroup"+strconv.Itoa(group), func(t *testing.T) {
			jobs := randomJobs(50, 3)
			dupA := jobs[10]
			dupA.SourceFile, dupA.SourceLine, dupA.State = "later", 1, trace.StateCompleted
			dupB := jobs[20]
			dupB.SourceFile, dupB.SourceLine = "later", 2
			jobs = append(jobs, dupA, dupB)
			var dropped []string
			path := filepath.Join(t.TempDir(), "t.parquet")
			w := writeJobs(t, path, trace.WriterOptions{RowGroupRows: group, OnDuplicate: func(kept, d *trace.Job) {
				if kept.SourceFile != "later" {
					t.Errorf("kept %s, want the later row", kept.Position())
				}
				dropped = append(dropped, d.Position())
			}}, jobs)
			if w.Rows() != 50 || w.Duplicates() != 2 || len(dropped) != 2 {
				t.Fatalf("rows %d duplicates %d dropped %v", w.Rows(), w.Duplicates(), dropped)
			}
			got, err := trace.ReadAll(path)
			if err != nil {
				t.Fatal(err)
			}
			later := 0
			for _, j := range got {
				if j.SourceFile == "later" {
					later++
				}
			}
			if later != 2 {
				t.Errorf("later rows kept = %d, want 2", later)
			}
		})
	}
}

func TestWriter_Deterministic(t *testing.T) {
	jobs := randomJobs(3000, 11)
	dir := t.TempDir()
	var files [2][]byte
	for i := range files {
		path := filepath.Join(dir, strconv.Itoa(i)+".parquet")
		writeJobs(t, path, trace.WriterOptions{RowGroupRows: 256}, jobs)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = b
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("the same jobs gave different bytes")
	}
}

func TestWriter_Abort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.parquet")
	w, err := trace.Create(path, trace.WriterOptions{RowGroupRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range randomJobs(10, 1) {
		if err := w.Write(&j); err != nil {
			t.Fatal(err)
		}
	}
	w.Abort()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files left after Abort: %v", entries)
	}
	if err := w.Write(&trace.Job{}); err == nil {
		t.Error("Write after Abort succeeded")
	}
}

func TestOpen_ErrSchemaVersion(t *testing.T) {
	type other struct {
		X int64 `parquet:"x"`
	}
	tests := []struct {
		Name string
		Meta map[string]string
	}{
		{"Missing", nil},
		{"Newer", map[string]string{trace.MetaSchemaVersion: strconv.Itoa(trace.SchemaVersion + 1)}},
		{"Garbage", map[string]string{trace.MetaSchemaVersion: "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			var buf bytes.Buffer
			var opts []parquet.WriterOption
			for k, v := range tt.Meta {
				opts = append(opts, parquet.KeyValueMetadata(k, v))
			}
			w := parquet.NewGenericWriter[other](&buf, opts...)
			if _, err := w.Write([]other{{1}}); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "x.parquet")
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := trace.Open(path)
			if !errors.Is(err, trace.ErrSchemaVersion) {
				t.Errorf("err = %v, want ErrSchemaVersion", err)
			}
		})
	}
}

// TestFormat_V1Fixture keeps reading the schema-version-1 fixture, which
// has no start_unknown and elapsed_sec columns: they read as false and
// Unknown. Never rewrite it.
func TestFormat_V1Fixture(t *testing.T) {
	got, err := trace.ReadAll(filepath.Join("testdata", "format_v1", "jobs.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]trace.Job{sparseJob(), fullJob()}, got); diff != "" {
		t.Errorf("v1 fixture (-want +got):\n%s", diff)
	}
}

// v2Fixture is the schema-version-2 fixture.
var v2Fixture = filepath.Join("testdata", "format_v2", "jobs.parquet")

// TestFormat_V2Fixture keeps reading the schema-version-2 fixture; it is
// written with -update only while SchemaVersion is 2.
func TestFormat_V2Fixture(t *testing.T) {
	want := []trace.Job{sparseJob(), fullJob(), startUnknownJob()}
	if golden.Update() && trace.SchemaVersion == 2 {
		if err := os.MkdirAll(filepath.Dir(v2Fixture), 0o755); err != nil {
			t.Fatal(err)
		}
		writeJobs(t, v2Fixture, trace.WriterOptions{}, want)
	}
	got, err := trace.ReadAll(v2Fixture)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("v2 fixture (-want +got):\n%s", diff)
	}
}

// TestWriter_SchemaMatchesFixture checks that Writer writes the schema
// (column names, types, logical types, nullability), compression and null
// counts of the fixture of the current version.
func TestWriter_SchemaMatchesFixture(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.parquet")
	writeJobs(t, path, trace.WriterOptions{}, []trace.Job{sparseJob(), fullJob(), startUnknownJob()})
	got, want := openParquet(t, path), openParquet(t, v2Fixture)
	if diff := cmp.Diff(want.Schema().String(), got.Schema().String()); diff != "" {
		t.Errorf("schema (-fixture +written):\n%s", diff)
	}
	wantCols, gotCols := want.Metadata().RowGroups[0].Columns, got.Metadata().RowGroups[0].Columns
	if len(gotCols) != len(wantCols) {
		t.Fatalf("%d columns, fixture has %d", len(gotCols), len(wantCols))
	}
	for i := range wantCols {
		w, g := wantCols[i].MetaData, gotCols[i].MetaData
		if !slices.Equal(g.PathInSchema, w.PathInSchema) || g.Type != w.Type || g.Codec != w.Codec ||
			g.NumValues != w.NumValues || g.Statistics.NullCount != w.Statistics.NullCount {
			t.Errorf("column %d: got %v %v %v values=%d nulls=%d, fixture %v %v %v values=%d nulls=%d", i,
				g.PathInSchema, g.Type, g.Codec, g.NumValues, g.Statistics.NullCount,
				w.PathInSchema, w.Type, w.Codec, w.NumValues, w.Statistics.NullCount)
		}
	}
}

func openParquet(t *testing.T, path string) *parquet.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return pf
}
