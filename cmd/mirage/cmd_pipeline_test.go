package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPipeline_RunStatus: pipeline run on a small study runs every stage
// once; status and a second run find them all cached; a bad study or a
// trace of another zone is a usage error before any stage.
func TestPipeline_RunStatus(t *testing.T) {
	dir := t.TempDir()
	tr := ingestSynth500(t, dir) // America/Chicago, 2022-11-01 .. 2022-11-03
	study := filepath.Join(dir, "s.yaml")
	text := `name: tiny
trace: {zone: America/Chicago}
cluster: {profile: default, nodes: 88, infer_dependencies: false, infer_capacity: false}
chains: {nodes: [1]}
periods:
  train: {start: "2022-11-01T06:00:00", windows: 8, stride: 2h}
  validation: {start: "2022-11-02T12:00:00", windows: 2, stride: 3h}
  warmup: 2h
  workload: 12h
  mode: cold
grid: {probes: "3"}
models: [{kind: estimate}]
policies: [reactive, oracle]
`
	if err := os.WriteFile(study, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	type result struct {
		Stage  string `json:"stage"`
		Cached bool   `json:"cached"`
	}
	runJSON := func(args ...string) []result {
		t.Helper()
		stdout, stderr, code := run(t, append(args, "--json")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var res []result
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatalf("%v: %v: %s", args, err, stdout)
		}
		return res
	}
	first := runJSON("pipeline", "run", study, "--trace", tr, "-o", out)
	var names []string
	for _, r := range first {
		names = append(names, r.Stage)
		if r.Cached {
			t.Errorf("first run: %s cached", r.Stage)
		}
	}
	if strings.Join(names, ",") != "features-train,train-estimate,evaluate,report" {
		t.Errorf("stages %v", names)
	}
	for _, args := range [][]string{{"pipeline", "status", study, "--trace", tr, "-o", out}, {"pipeline", "run", study, "--trace", tr, "-o", out}} {
		for _, r := range runJSON(args...) {
			if !r.Cached {
				t.Errorf("%s: %s not cached", args[1], r.Stage)
			}
		}
	}
	berlin := filepath.Join(dir, "berlin.yaml")
	if err := os.WriteFile(berlin, []byte(strings.Replace(text, "America/Chicago", "Europe/Berlin", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"pipeline", "run", berlin, "--trace", tr, "-o", out},
		{"pipeline", "run", "nope", "--trace", tr, "-o", out},
		{"pipeline", "run", study, "-o", out},
	} {
		if _, stderr, code := run(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d: %s", args, code, exitUsage, stderr)
		}
	}
}
