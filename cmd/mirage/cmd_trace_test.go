package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTraceStats_StartUnknown checks that trace stats counts the jobs of an
// SWF trace whose wait time is -1 as "start unknown", in text and JSON,
// and not as cancelled while pending.
func TestTraceStats_StartUnknown(t *testing.T) {
	dir, in := writeSWF(t)
	out := filepath.Join(dir, "o.parquet")
	if _, stderr, code := run(t, "ingest", "--start-time", "2006-01-02T15:04:05Z", "-o", out, in); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	stdout, stderr, code := run(t, "trace", "stats", out, "--json")
	if code != 0 {
		t.Fatalf("stats: exit %d: %s", code, stderr)
	}
	var st struct {
		Jobs             int             `json:"jobs"`
		FirstSubmit      string          `json:"first_submit"`
		WaitSec          struct{ N int } `json:"wait_sec"`
		RunSec           struct{ N int } `json:"run_sec"`
		TimeoutJobs      int             `json:"timeout_jobs"`
		CancelledPending int             `json:"cancelled_pending"`
		StartUnknown     int             `json:"start_unknown"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatal(err)
	}
	// Job 1 waited 5 s; job 2 ran 300 s, its limit, from an unknown start;
	// job 3 was cancelled before it started.
	if st.Jobs != 3 || st.FirstSubmit != "2006-01-02T15:04:05Z" || st.WaitSec.N != 1 || st.RunSec.N != 2 ||
		st.TimeoutJobs != 1 || st.CancelledPending != 1 || st.StartUnknown != 1 {
		t.Errorf("stats = %s\nwant 3 jobs from 2006-01-02T15:04:05Z, 1 wait, 2 run times, 1 at its limit, 1 never ran, 1 start unknown", stdout)
	}
	stdout, _, code = run(t, "trace", "stats", out)
	for _, want := range []string{"never ran      1 (33.33%)\n", "start unknown  1 (33.33%)  ran; not in wait\n", "n 1\n"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("exit %d, text without %q:\n%s", code, want, stdout)
		}
	}
}

// TestTraceStats_NotParquet: a file that is not a trace (text, a damaged
// Parquet file) is bad input, exit 2, with a message that says what a
// trace is.
func TestTraceStats_NotParquet(t *testing.T) {
	dir := t.TempDir()
	txt := filepath.Join(dir, "jobs.sacct")
	if err := os.WriteFile(txt, []byte("JobID|State\n1|COMPLETED\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := run(t, "trace", "stats", txt)
	if code != exitBadInput || !strings.Contains(stderr, "not a Parquet file") || !strings.Contains(stderr, "mirage ingest") {
		t.Errorf("trace stats of a text file: exit %d, %q; want %d naming mirage ingest", code, stderr, exitBadInput)
	}
}
