package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/train"
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

func TestReport_Predictions(t *testing.T) {
	dir := t.TempDir()
	rows := []evaluate.Row{
		{Policy: "reactive", ChainNodes: 1, Window: 0, RSec: 7200, ReactiveRSec: 7200},
		{Policy: "oracle", ChainNodes: 1, Window: 0, RSec: -600, ReactiveRSec: 7200},
	}
	if err := evaluate.WriteDir(dir, evaluate.Compute(rows), rows); err != nil {
		t.Fatal(err)
	}
	s := &features.Samples{WindowID: []int32{0, 1}, ChainNodes: []int32{1, 1},
		ProbeTime: []int64{1_700_000_000, 1_700_043_200}, LabelRSec: []int64{3600, -3600}}
	pred := filepath.Join(t.TempDir(), "p.parquet")
	if err := train.WritePredictions(pred, s, []float32{2, -1}, "m/forest sha256:0"); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := run(t, "report", "--predictions", pred, "--predictions-note", "On training samples.", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"m/forest: MAE 0.50 h over 2 rows", "On training samples."} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "predicted-vs-actual.png")); err != nil {
		t.Error(err)
	}
}
