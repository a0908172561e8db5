package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// swfParquet ingests a header-less SWF trace of rows (times from
// 2023-01-01, each processor a node) and returns the Parquet trace.
func swfParquet(t *testing.T, rows string) string {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.swf")
	if err := os.WriteFile(in, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "t.parquet")
	if _, stderr, code := run(t, "ingest", "--progress", "never", "--start-time", "2023-01-01T00:00:00Z", "-o", out, in); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	return out
}

// swfRow is an SWF line: job id, submit (s), wait (s; -1 unknown), run
// time (s), processors (nodes here), requested time (s), status, user.
func swfRow(id, submit, wait, run, procs, limit, status, user int) string {
	return fmt.Sprintf("%d %d %d %d %d -1 -1 %d %d -1 %d %d 1 -1 1 1 -1 -1\n", id, submit, wait, run, procs, procs, limit, status, user)
}

// TestSimReplay_NoneCompared checks that a replay of a trace whose waits
// are all unknown says so and why, with the fidelity figures absent (not
// 0) in text and JSON.
func TestSimReplay_NoneCompared(t *testing.T) {
	var rows strings.Builder
	for i := range 4 {
		rows.WriteString(swfRow(i+1, 60*i, -1, 600, 1, 3600, 1, i%2))
	}
	rows.WriteString(swfRow(5, 300, -1, -1, 1, 3600, 5, 1)) // cancelled before it started
	tr := swfParquet(t, rows.String())

	stdout, stderr, code := run(t, "sim", "replay", "--trace", tr, "--partition-nodes", "4", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"wait_mae_sec", "wait_median_abs_err_sec", "wait_spearman", "within_2x"} {
		if v, ok := sum[k]; ok {
			t.Errorf("%s = %v, want absent", k, v)
		}
	}
	const want = "no job had a real wait to compare, so there are no fidelity figures: of the 5 jobs replayed, 4 ran from a start the trace did not record (waits unknown, an SWF wait of -1), 1 never started in the trace (1 cancelled while pending, 0 still pending)"
	if sum["compared"] != 0.0 || sum["not_compared"] != want {
		t.Errorf("compared %v, not_compared %q\nwant 0, %q", sum["compared"], sum["not_compared"], want)
	}
	if w, _ := sum["warnings"].([]any); len(w) != 1 || w[0] != want {
		t.Errorf("warnings = %v, want [%q]", sum["warnings"], want)
	}

	stdout, stderr, code = run(t, "sim", "replay", "--trace", tr, "--partition-nodes", "4")
	if code != 0 {
		t.Fatalf("text: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "waits: none compared (no MAE, median, Spearman or within-2x figures)\n") ||
		!strings.Contains(stdout, "warning: "+want+"\n") || strings.Contains(stdout, "MAE 0.00") {
		t.Errorf("text output:\n%s\nwant the none-compared line and the warning, no MAE 0.00", stdout)
	}
}

// TestSimReplay_OneCompared checks that with a single job to compare the
// rank correlation is absent from the JSON and "-" in the text, overall
// and in its month, where the other figures are given.
func TestSimReplay_OneCompared(t *testing.T) {
	tr := swfParquet(t, swfRow(1, 0, 120, 600, 1, 3600, 1, 1)+swfRow(2, 60, -1, 600, 1, 3600, 1, 2))
	stdout, stderr, code := run(t, "sim", "replay", "--trace", tr, "--partition-nodes", "4", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if _, ok := sum["wait_spearman"]; ok || sum["compared"] != 1.0 || sum["wait_mae_sec"] == nil {
		t.Errorf("compared %v, wait_spearman %v, wait_mae_sec %v: want 1, absent, present", sum["compared"], sum["wait_spearman"], sum["wait_mae_sec"])
	}
	stdout, stderr, code = run(t, "sim", "replay", "--trace", tr, "--partition-nodes", "4")
	if code != 0 {
		t.Fatalf("text: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "waits of 1 jobs that ran: MAE 0.03 h, median |error| 0.03 h, Spearman -, within 2x") ||
		!strings.Contains(stdout, "Spearman      -  within 2x") {
		t.Errorf("text output:\n%s\nwant Spearman shown as - overall and in the month", stdout)
	}
}

// wideRows is a trace of 10 one-node jobs and one of 100 nodes.
func wideRows() string {
	var rows strings.Builder
	for i := range 10 {
		rows.WriteString(swfRow(i+1, 60*i, 5, 600, 1, 3600, 1, i%3))
	}
	rows.WriteString(swfRow(11, 700, 5, 600, 100, 3600, 1, 1))
	return rows.String()
}

// wideMsg is the message about wideRows on an 8-node partition.
const wideMsg = "1 of 11 jobs (9.1%; 90.9% of the node-hours) need more than the partition's 8 nodes and are skipped; the widest, job 11, needs 100 nodes: set FLAG 108 (or more) to simulate them"

// TestSimReplay_TooWide checks that jobs wider than the partition stop a
// replay (exit 2) when they are more than 1% of the trace, with the count
// and the widest job, and are a warning with --allow-skip; sim starts
// refuses them alike.
func TestSimReplay_TooWide(t *testing.T) {
	tr := swfParquet(t, wideRows())
	msg := strings.Replace(wideMsg, "FLAG", "--partition-nodes", 1)
	for _, sub := range []string{"replay", "starts"} {
		_, stderr, code := run(t, "sim", sub, "--trace", tr, "--partition-nodes", "8")
		want := "mirage: sim " + sub + ": the trace does not fit the simulated partition: " + msg +
			"; or pass --allow-skip to simulate without them (more than 1% of the jobs or node-hours)\n"
		if code != exitBadInput || !strings.HasSuffix(stderr, want) {
			t.Errorf("sim %s: exit %d, stderr:\n%s\nwant exit 2 ending %q", sub, code, stderr, want)
		}
	}
	stdout, stderr, code := run(t, "sim", "replay", "--trace", tr, "--partition-nodes", "8", "--allow-skip", "--json")
	if code != 0 {
		t.Fatalf("--allow-skip: exit %d: %s", code, stderr)
	}
	var sum struct {
		Jobs     int
		Warnings []string
		Fit      struct {
			WideJobs  int    `json:"wide_jobs"`
			Widest    int    `json:"widest"`
			WidestJob string `json:"widest_job"`
		}
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Jobs != 10 || len(sum.Warnings) != 1 || sum.Warnings[0] != msg || sum.Fit.WideJobs != 1 || sum.Fit.Widest != 100 || sum.Fit.WidestJob != "11" {
		t.Errorf("--allow-skip: %+v\nwant 10 jobs, fit 1 wide job (job 11, 100 nodes), warning %q", sum, msg)
	}
	if _, stderr, code := run(t, "sim", "replay", "--trace", tr, "--partition-nodes", "100"); code != 0 || strings.Contains(stderr, "skipped") {
		t.Errorf("--partition-nodes 100: exit %d, stderr %s; want 0 and no warning", code, stderr)
	}
}

// TestSimReplay_Overloaded checks that a replay whose jobs ask many times
// the partition's node-hours, while the trace's own jobs used their nodes
// ordinarily, is reported as a probable partition-size error naming
// --partition-nodes.
func TestSimReplay_Overloaded(t *testing.T) {
	var rows strings.Builder
	// 40 jobs of 10 nodes, 2 h each, one every 30 minutes over 19.5 h:
	// the trace ran them 4 at a time on 40 nodes; 4 nodes cannot run one
	// without skipping it, 10 nodes are 4x overloaded.
	for i := range 40 {
		rows.WriteString(swfRow(i+1, 1800*i, 0, 7200, 10, 7200, 1, i%4))
	}
	tr := swfParquet(t, rows.String())
	stdout, stderr, code := run(t, "sim", "replay", "--trace", tr, "--partition-nodes", "10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	const want = "warning: the jobs ask 4.1x the node-hours the partition's 10 nodes offer over the 20 h of submissions (the trace's own jobs held at most 40 nodes at once, 103% busy): probably a partition-size or run-time error: set --partition-nodes 40 (or the cluster's size), or check the trace's run times and their unit\n"
	if !strings.Contains(stdout, want) {
		t.Errorf("stdout:\n%s\nwant %q", stdout, want)
	}
	if stdout, _, _ := run(t, "sim", "replay", "--trace", tr, "--partition-nodes", "40"); strings.Contains(stdout, "warning") {
		t.Errorf("--partition-nodes 40: a warning:\n%s", stdout)
	}
}

// TestSimReplay_Interrupt checks that a cancelled context (SIGINT in
// main) stops a replay of an overloaded 30,000-job trace within 2 s with
// exit status 130.
func TestSimReplay_Interrupt(t *testing.T) {
	dir := t.TempDir()
	in, tr := filepath.Join(dir, "big.sacct"), filepath.Join(dir, "big.parquet")
	if _, stderr, code := run(t, "synth", "--jobs", "30000", "--partition-nodes", "100", "--utilisation", "1.2", "-o", in); code != 0 {
		t.Fatalf("synth: exit %d: %s", code, stderr)
	}
	if _, stderr, code := run(t, "ingest", "--progress", "never", "-o", tr, in); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	for _, after := range []time.Duration{10 * time.Millisecond, 300 * time.Millisecond} {
		ctx, cancel := context.WithCancel(context.Background()) // as SIGINT cancels main's
		time.AfterFunc(after, cancel)
		var out, errb bytes.Buffer
		g := &globalOptions{stdout: &out, stderr: &errb}
		cmd := newRootCommand(g)
		cmd.SetArgs([]string{"sim", "replay", "--trace", tr, "--partition-nodes", "100", "--progress", "never"})
		began := time.Now()
		err := cmd.ExecuteContext(ctx)
		took := time.Since(began)
		cancel()
		if err == nil {
			t.Logf("cancel after %s: the replay finished first (%s)", after, took)
			continue
		}
		if code := exitCode(err); code != exitInterrupted || took > after+2*time.Second {
			t.Errorf("cancel after %s: exit %d (%v) after %s; want 130 within 2 s of the cancel", after, code, err, took)
		}
	}
}
