package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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
	hyper := filepath.Join(dir, "hyper.json")
	if err := os.WriteFile(hyper, []byte(`{"hidden": [16, 8], "stats_episodes": 2, "valid_episodes": 1, "seed": 7}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, "train", "--model", "dqn", "--trace", tr, "--protocol", "mirage-ls6", "--episodes", "2",
		"--dqn-config", hyper, "--windows", "120", "--chain-nodes", "1", "-o", out, "--json")
	if code != 0 {
		t.Fatalf("train --model dqn: exit %d: %s", code, stderr)
	}
	var s map[string]any
	if err := json.Unmarshal([]byte(stdout), &s); err != nil || s["model"] != "dqn" {
		t.Fatalf("summary %s (%v)", stdout, err)
	}
	for _, f := range []string{"model.safetensors", "model.onnx", "manifest.json", "curve.csv"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	// The hyper-parameter file reached the trainer and the manifest.
	b, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Arch struct {
			Layers []int `json:"layers"`
		} `json:"architecture"`
		Hyper struct {
			Seed   uint64 `json:"seed"`
			Hidden []int  `json:"hidden"`
		} `json:"hyper_parameters"`
		Spec struct {
			Windows    int   `json:"windows"`
			ChainNodes []int `json:"chain_nodes"`
		} `json:"protocol_spec"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Arch.Layers) != 4 || m.Arch.Layers[1] != 16 || m.Arch.Layers[2] != 8 || m.Hyper.Seed != 7 {
		t.Errorf("manifest layers %v seed %d, want [79 16 8 2] and the file's seed 7", m.Arch.Layers, m.Hyper.Seed)
	}
	if m.Spec.Windows != 120 || len(m.Spec.ChainNodes) != 1 || m.Spec.ChainNodes[0] != 1 {
		t.Errorf("manifest protocol_spec %+v, want the --windows 120 --chain-nodes 1 overrides", m.Spec)
	}
}

// TestTrain_DQNConfigErrors: a bad hyper-parameter file is a usage error
// naming the file and the problem.
func TestTrain_DQNConfigErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, body, want string }{
		{"unknown.json", `{"hiden": [4]}`, "unknown field"},
		{"syntax.json", `{"lr": }`, "invalid character"},
		{"type.json", `{"episodes": "many"}`, "cannot unmarshal"},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := run(t, "train", "--model", "dqn", "--trace", "x.parquet", "--protocol", "ls6", "--dqn-config", p, "-o", filepath.Join(dir, "m"))
		if code != exitUsage || !strings.Contains(stderr, c.name) || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d naming the file and %q", c.name, code, stderr, exitUsage, c.want)
		}
	}
	_, stderr, code := run(t, "train", "--model", "dqn", "--trace", "x.parquet", "--protocol", "ls6", "--dqn-config", filepath.Join(dir, "missing.json"), "-o", filepath.Join(dir, "m"))
	if code != exitUsage || !strings.Contains(stderr, "missing.json") {
		t.Errorf("missing file: exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = run(t, "train", "--model", "dqn", "--trace", "x.parquet", "--protocol", "ls6", "--chain-nodes", "1,x", "-o", filepath.Join(dir, "m"))
	if code != exitUsage || !strings.Contains(stderr, "--chain-nodes") {
		t.Errorf("bad --chain-nodes: exit %d, stderr %q", code, stderr)
	}
}
