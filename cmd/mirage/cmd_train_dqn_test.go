package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestTrain_DQNUsage(t *testing.T) {
	_, stderr, code := run(t, "train", "--model", "dqn", "-o", filepath.Join(t.TempDir(), "m"))
	if code != exitUsage {
		t.Fatalf("exit %d, want %d; stderr %s", code, exitUsage, stderr)
	}
}

// TestTrain_DQNSmoke trains a few episodes on the synthetic sample trace
// and checks the model directory.
func TestTrain_DQNSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: trains a DQN for a few episodes")
	}
	dir := t.TempDir()
	sacct := filepath.Join(dir, "s.sacct")
	if _, stderr, code := run(t, "synth", "--jobs", "3000", "--seed", "3", "-o", sacct); code != 0 {
		t.Fatalf("synth: %s", stderr)
	}
	tr := filepath.Join(dir, "t.parquet")
	if _, stderr, code := run(t, "ingest", "--tz", "America/Chicago", "-o", tr, sacct); code != 0 {
		t.Fatalf("ingest: %s", stderr)
	}
	out := filepath.Join(dir, "dqn")
	stdout, stderr, code := run(t, "train", "--model", "dqn", "--trace", tr, "--protocol", "mirage-ls6", "--episodes", "2", "-o", out, "--json")
	if code != 0 {
		t.Skipf("skipping: the synthetic trace does not cover the mirage-ls6 training period here: %s", stderr)
	}
	var s map[string]any
	if err := json.Unmarshal([]byte(stdout), &s); err != nil || s["model"] != "dqn" {
		t.Fatalf("summary %s (%v)", stdout, err)
	}
	for _, f := range []string{"model.safetensors", "manifest.json", "curve.csv"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
}
