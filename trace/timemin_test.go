package trace_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"

	"github.com/mirage-hpc/mirage/trace"
)

// fileSchema returns a trace file's schema version and whether it has the
// time_min_sec column.
func fileSchema(t *testing.T, path string) (string, bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	v, _ := pf.Lookup(trace.MetaSchemaVersion)
	_, ok := pf.Schema().Lookup("time_min_sec")
	return v, ok
}

// TestWriter_TimeMinColumn: a trace without a time-min is written as
// schema version 2, without the time_min_sec column (as before the
// column existed); one where some job has a time-min as version 3 with
// it, whether that job comes first or after runs were started (a run then
// splits, and the merge brings the runs into one file), sorted or not.
func TestWriter_TimeMinColumn(t *testing.T) {
	for _, tt := range []struct {
		name    string
		from    int // jobs from this index on have a time-min; -1: none
		shuffle bool
	}{
		{"None", -1, false},
		{"NoneShuffled", -1, true},
		{"First", 0, false},
		{"AfterRunsStarted", 3000, false},
		{"AfterRunsStartedShuffled", 3000, true},
		{"Last", 4999, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			jobs := randomJobs(5000, 11)
			sortJobs(jobs)
			for i := range jobs {
				if tt.from >= 0 && i >= tt.from && i%7 == 0 || tt.from == 4999 && i == 4999 {
					jobs[i].TimeMinSec = int64(60 * (i%5 + 1))
				}
			}
			in := slices.Clone(jobs)
			if tt.shuffle {
				for i := range in {
					k := (i * 7919) % len(in)
					in[i], in[k] = in[k], in[i]
				}
			}
			path := filepath.Join(t.TempDir(), "t.parquet")
			writeJobs(t, path, trace.WriterOptions{RowGroupRows: 100}, in)
			got, err := trace.ReadAll(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(jobs, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
			v, has := fileSchema(t, path)
			want := strconv.Itoa(trace.SchemaVersion)
			if tt.from < 0 {
				want = "2"
			}
			if v != want || has != (tt.from >= 0) {
				t.Errorf("schema version %s, time_min_sec column %v; want %s and %v", v, has, want, tt.from >= 0)
			}
		})
	}
}
