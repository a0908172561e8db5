package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/trace"
)

// writeHourly writes a trace of n 1-node jobs of a 48 h limit, one
// submitted every hour, each running an hour.
func writeHourly(t *testing.T, path string, n int) {
	t.Helper()
	w, err := trace.Create(path, trace.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		j := trace.NewJob()
		j.JobID = "j" + string(rune('a'+i%26))
		j.Submit = t0.Add(time.Duration(i) * time.Hour)
		j.Start, j.End, j.NNodes, j.TimelimitSec = j.Submit, j.Submit.Add(time.Hour), 1, 48*3600
		if err := w.Write(&j); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestStudyInit_TooShort: a trace too short for any window gets its study
// written with the problem marked and what to edit, and a failure; the
// written study's check names the period to edit.
func TestStudyInit_TooShort(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "tiny.parquet")
	writeHourly(t, tr, 100)
	st := filepath.Join(dir, "tiny.yaml")
	_, stderr, code := run(t, "study", "init", "--trace", tr, "-o", st)
	if code != exitBadInput {
		t.Fatalf("study init of a 99 h trace: exit %d, want %d (the trace's data, not the flags)\n%s", code, exitBadInput, stderr)
	}
	if !strings.Contains(stderr, "wrote "+st+" with its problem marked") || !strings.Contains(stderr, "edit periods") {
		t.Errorf("stderr:\n%s", stderr)
	}
	b := string(readFile(t, st))
	if !strings.HasPrefix(b, "# PROBLEM (mirage study init)") || !strings.Contains(b, "the trace spans 99h") || !strings.Contains(b, "name: tiny") {
		t.Errorf("study file:\n%s", b)
	}
	_, stderr, code = run(t, "study", "show", st)
	if code == 0 || !strings.Contains(stderr, "windows 0") {
		t.Errorf("study show of the problem study: exit %d\n%s\nwant it refused naming the period with 0 windows", code, stderr)
	}
}

// TestStudyInit_ShortTrace: a 647 h trace (too short for the default
// 168 h window) gets a study with shorter windows that checks.
func TestStudyInit_ShortTrace(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "short.parquet")
	writeHourly(t, tr, 648)
	st := filepath.Join(dir, "short.yaml")
	out, stderr, code := run(t, "study", "init", "--trace", tr, "-o", st, "--models-from", "synth")
	if code != 0 {
		t.Fatalf("study init: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(out, "windows of 24h warm-up and 60h workload: the trace spans 647h, too short for 48h and 120h in both periods") {
		t.Errorf("study init output does not say the windows are shorter:\n%s", out)
	}
	if _, stderr, code := run(t, "study", "show", st); code != 0 {
		t.Errorf("study show: exit %d\n%s", code, stderr)
	}
}

// TestStudyInit_DataRefusalsExit2: study init's refusals caused by the
// trace's data exit 2 (bad input data), those caused by its flags 3.
func TestStudyInit_DataRefusalsExit2(t *testing.T) {
	dir := t.TempDir()
	// No job ever started: nothing to size the partition by.
	never := filepath.Join(dir, "never.parquet")
	w, err := trace.Create(never, trace.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 50 {
		j := trace.NewJob()
		j.JobID = fmt.Sprint("n", i)
		j.Submit, j.NNodes, j.TimelimitSec = t0.Add(time.Duration(i)*time.Hour), 1, 3600
		if err := w.Write(&j); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := run(t, "study", "init", "--trace", never, "-o", filepath.Join(dir, "never.yaml"))
	if code != exitBadInput || !strings.Contains(stderr, "no job of the trace has both a start and an end") {
		t.Errorf("study init of a trace whose jobs never ran: exit %d, want %d naming the missing starts\n%s", code, exitBadInput, stderr)
	}
	// A bad flag stays usage, even on a trace the data would refuse.
	_, stderr, code = run(t, "study", "init", "--trace", never, "-o", filepath.Join(dir, "neg.yaml"), "--partition-nodes", "-1")
	if code != exitUsage || !strings.Contains(stderr, "partition nodes -1") {
		t.Errorf("study init --partition-nodes -1: exit %d, want %d\n%s", code, exitUsage, stderr)
	}
}
