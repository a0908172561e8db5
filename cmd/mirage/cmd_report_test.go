package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/evaluate"
)

func TestReport_PrintsPath(t *testing.T) {
	dir := t.TempDir()
	rows := []evaluate.Row{
		{Policy: "reactive", ChainNodes: 1, Window: 0, RSec: 7200, ReactiveRSec: 7200},
		{Policy: "oracle", ChainNodes: 1, Window: 0, RSec: -600, ReactiveRSec: 7200},
	}
	if err := evaluate.WriteDir(dir, evaluate.Compute(rows), rows); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, "report", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := filepath.Join(dir, "report.html")
	if strings.TrimSpace(stdout) != want {
		t.Fatalf("stdout %q, want %q", stdout, want)
	}
	if _, err := os.Stat(want); err != nil {
		t.Fatal(err)
	}
}

func TestReport_NotAnEvaluation(t *testing.T) {
	if _, stderr, code := run(t, "report", t.TempDir()); code != 3 {
		t.Fatalf("exit %d, want 3: %s", code, stderr)
	}
}
