package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mirage-hpc/mirage/internal/testenv"
)

func TestFeaturesBuild_JSONSummary(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.parquet")
	in := filepath.Join(testenv.Root(), "data", "synth-500.sacct")
	if _, stderr, code := run(t, "ingest", "--tz", "America/Chicago", "-o", tr, in); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	for _, protocol := range []string{"mirage-ls6", "ls6"} {
		t.Run(protocol, func(t *testing.T) {
			out := filepath.Join(dir, protocol+".parquet")
			stdout, stderr, code := run(t, "features", "build", "--trace", tr, "--protocol", protocol,
				"--start", "2022-10-31T00:00:00", "--windows", "2", "--interval", "1h", "--chain-nodes", "1,2",
				"-o", out, "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var s map[string]any
			if err := json.Unmarshal([]byte(stdout), &s); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
			}
			for _, k := range []string{"windows", "samples", "wall_sec", "samples_per_sec", "output"} {
				if _, ok := s[k]; !ok {
					t.Errorf("summary lacks %q: %s", k, stdout)
				}
			}
			if s["windows"] != 2.0 || s["samples"] != 28.0 || s["output"] != out {
				t.Errorf("summary = %s", stdout)
			}
			if st, err := os.Stat(out); err != nil || st.Size() == 0 {
				t.Errorf("output: %v", err)
			}
		})
	}
}

func TestFeaturesBuild_UsageErrors(t *testing.T) {
	for name, args := range map[string][]string{
		"UnknownProtocol": {"features", "build", "--trace", "x", "--protocol", "nope", "-o", "y"},
		"NoOutput":        {"features", "build", "--trace", "x"},
		"BadChainNodes":   {"features", "build", "--trace", "x", "--chain-nodes", "1,a", "-o", "y"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, stderr, code := run(t, args...); code != exitUsage {
				t.Errorf("exit %d, want %d: %s", code, exitUsage, stderr)
			}
		})
	}
}
