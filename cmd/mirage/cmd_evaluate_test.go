package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/internal/testenv"
)

func TestEvaluate_JSONAndFiles(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.parquet")
	in := filepath.Join(testenv.Root(), "data", "synth-500.sacct")
	if _, stderr, code := run(t, "ingest", "--tz", "America/Chicago", "-o", tr, in); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "eval")
	stdout, stderr, code := run(t, "evaluate", "--trace", tr, "--protocol", "mirage-ls6-val",
		"--start", "2022-10-31T00:00:00", "--windows", "2", "--interval", "1h", "--nodes", "1,2",
		"--policy", "reactive,immediate,avg,slurm-estimate,oracle", "-o", out, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s struct {
		Metrics evaluate.Metrics `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	if s.Metrics.Windows != 4 || len(s.Metrics.Policies) != 5 {
		t.Fatalf("metrics: %s", stdout)
	}
	mj, err := os.ReadFile(filepath.Join(out, "metrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "windows.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := evaluate.ReadCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	re, _ := json.MarshalIndent(evaluate.Compute(rows), "", "  ")
	if !bytes.Equal(append(re, '\n'), mj) {
		t.Fatalf("metrics.json differs from metrics recomputed from windows.csv")
	}
}

func TestEvaluate_UsageErrors(t *testing.T) {
	for name, args := range map[string][]string{
		"UnknownProtocol": {"evaluate", "--trace", "x", "--protocol", "nope", "-o", "y"},
		"NoOutput":        {"evaluate", "--trace", "x"},
		"BadPolicy":       {"evaluate", "--trace", "x", "--policy", "psychic", "-o", "y"},
		"BadTheta":        {"evaluate", "--trace", "x", "--theta", "a", "-o", "y"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, stderr, code := run(t, args...); code != exitUsage {
				t.Errorf("exit %d, want %d: %s", code, exitUsage, stderr)
			}
		})
	}
}
