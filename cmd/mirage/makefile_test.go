package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/ingest"
)

// TestMakefile_TraceName checks that `make run TRACE=...` names its
// outputs, cluster and study as ingest.TraceName does, so traces that
// differ after their first dot do not overwrite each other.
func TestMakefile_TraceName(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	for _, in := range []string{"/d/X-2.1-b1.swf.gz", "X-2.1-b2.swf.gz", "../shared/traces/ls6-a100.log", "a.b.csv", "plain"} {
		out, err := exec.Command("make", "-s", "-C", "../..", "trace-name", "TRACE="+in).Output()
		if err != nil {
			t.Fatalf("make trace-name TRACE=%s: %v", in, err)
		}
		if got, want := strings.TrimSpace(string(out)), ingest.TraceName(in); got != want {
			t.Errorf("make names %s %q, ingest.TraceName %q", in, got, want)
		}
	}
}

// TestStudyInit_DefaultName checks that study init names a study after
// its trace file, keeping what distinguishes X-2.1-b1 from X-2.1-b2.
func TestStudyInit_DefaultName(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "X-2.1-b1.sacct")
	if _, stderr, code := run(t, "synth", "--jobs", "20000", "-o", in); code != 0 {
		t.Fatalf("synth: exit %d: %s", code, stderr)
	}
	tr := filepath.Join(dir, ingest.TraceName(in)+".parquet")
	if _, stderr, code := run(t, "ingest", "--progress", "never", "-o", tr, in); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	st := filepath.Join(dir, "s.yaml")
	if _, stderr, code := run(t, "study", "init", "--trace", tr, "-o", st); code != 0 {
		t.Fatalf("study init: exit %d: %s", code, stderr)
	}
	if b := readFile(t, st); !strings.HasPrefix(string(b), "name: X-2.1-b1\n") {
		t.Errorf("study:\n%s\nwant name X-2.1-b1", b)
	}
}
