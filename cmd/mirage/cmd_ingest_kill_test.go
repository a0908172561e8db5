package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperArgsEnv carries the command line of TestHelperProcess_Mirage.
const helperArgsEnv = "MIRAGE_TEST_HELPER_ARGS"

// TestHelperProcess_Mirage is not a test: run as a subprocess (with
// helperArgsEnv set to a JSON array of arguments) it runs mirage with
// them and exits with mirage's status, so tests can kill a real mirage
// process without building one.
func TestHelperProcess_Mirage(t *testing.T) {
	js := os.Getenv(helperArgsEnv)
	if js == "" {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(js), &args); err != nil {
		os.Exit(99)
	}
	g := &globalOptions{stdout: os.Stdout, stderr: os.Stderr}
	os.Exit(execute(context.Background(), g, args))
}

// mirageProcess returns a command running mirage with args in a
// subprocess (the test binary, TestHelperProcess_Mirage).
func mirageProcess(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	js, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(os.Args[0], "-test.run=^TestHelperProcess_Mirage$")
	c.Env = append(os.Environ(), helperArgsEnv+"="+string(js))
	return c
}

// TestIngest_Kill9MidSort: an ingest killed with SIGKILL while its
// external sort has run files on disk leaves its temporary output, its
// runs (..OUT.tmp-PID-R.runN-R.tmp), its quarantine temporary and its
// lock; the next ingest of the same output removes every one of them and
// writes the same bytes as an uninterrupted ingest.
func TestIngest_Kill9MidSort(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: ingests 100,000 jobs twice")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.sacct")
	if _, stderr, code := run(t, "synth", "--jobs", "100000", "--partition-nodes", "80", "-o", in); code != 0 {
		t.Fatalf("synth: exit %d: %s", code, stderr)
	}
	args := func(out string) []string {
		return []string{"ingest", "--tz", "America/Chicago", "--row-group-rows", "500", "--log-level", "error", "-o", out, in}
	}
	killed := filepath.Join(dir, "killed")
	os.MkdirAll(killed, 0o755)
	out := filepath.Join(killed, "t.parquet")
	c := mirageProcess(t, args(out)...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	runs := func() []string {
		m, _ := filepath.Glob(filepath.Join(killed, "..t.parquet.tmp-*.run*.tmp"))
		return m
	}
	deadline := time.After(time.Minute)
poll:
	for {
		select {
		case err := <-done:
			t.Fatalf("ingest ended (%v) before a sort run was seen: %s", err, stderr.String())
		case <-deadline:
			c.Process.Kill()
			t.Fatal("no sort run within a minute")
		case <-time.After(time.Millisecond):
		}
		if len(runs()) > 0 {
			break poll
		}
	}
	if err := c.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done
	left := entries(t, killed)
	t.Logf("left by the killed ingest: %v", left)
	if len(runs()) == 0 {
		t.Fatalf("no sort run left to clean up: %v", left)
	}
	if _, stderr, code := run(t, args(out)...); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, stderr)
	}
	if got := entries(t, killed); strings.Join(got, " ") != "t.parquet t.quarantine.jsonl" {
		t.Errorf("after the rerun: %v, want only the output and its quarantine file", got)
	}
	whole := filepath.Join(dir, "whole")
	os.MkdirAll(whole, 0o755)
	if _, stderr, code := run(t, args(filepath.Join(whole, "t.parquet"))...); code != 0 {
		t.Fatalf("uninterrupted: exit %d: %s", code, stderr)
	}
	for _, f := range []string{"t.parquet", "t.quarantine.jsonl"} {
		if !bytes.Equal(readFile(t, filepath.Join(killed, f)), readFile(t, filepath.Join(whole, f))) {
			t.Errorf("%s differs from an uninterrupted ingest's", f)
		}
	}
}

// entries lists the names in dir, sorted.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
