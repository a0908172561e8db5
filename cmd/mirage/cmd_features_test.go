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
	tr := ingestSynth500(t, dir)
	for _, protocol := range []string{"mirage-ls6", "ls6"} {
		t.Run(protocol, func(t *testing.T) {
			out := filepath.Join(dir, protocol+".parquet")
			stdout, stderr, code := run(t, "features", "build", "--trace", tr, "--protocol", protocol,
				"--start", "2022-10-31T00:00:00", "--windows", "2", "--interval", "1h", "--chain-nodes", "1,2",
				"--probes", "7", "-o", out, "--json")
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

// TestFeaturesBuild_Grid checks --probes grid: every label is on the
// 10-minute decision grid from P's submission (or P's start or end), and
// a window has many more labels than the artifact's 7.
func TestFeaturesBuild_Grid(t *testing.T) {
	dir := t.TempDir()
	tr := ingestSynth500(t, dir)
	out := filepath.Join(dir, "grid.parquet")
	stdout, stderr, code := run(t, "features", "build", "--trace", tr, "--protocol", "mirage-ls6", "--probes", "grid",
		"--grid-dense", "6h", "--start", "2022-10-31T00:00:00", "--windows", "2", "--interval", "1h", "--chain-nodes", "1", "-o", out, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s struct {
		Samples int `json:"samples"`
	}
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	// P runs 48 h: 6 h every 10 minutes (36) plus hourly before (>= 42).
	if s.Samples < 2*(36+42) {
		t.Errorf("%d grid samples for 2 windows, want at least %d", s.Samples, 2*(36+42))
	}
}

func TestFeaturesBuild_UsageErrors(t *testing.T) {
	for name, args := range map[string][]string{
		"UnknownProtocol": {"features", "build", "--trace", "x", "--protocol", "nope", "-o", "y"},
		"NoOutput":        {"features", "build", "--trace", "x"},
		"BadChainNodes":   {"features", "build", "--trace", "x", "--chain-nodes", "1,a", "-o", "y"},
		"BadProbes":       {"features", "build", "--trace", "x", "--probes", "some", "-o", "y"},
		"NegativeDense":   {"features", "build", "--trace", "x", "--probes", "grid", "--grid-dense", "-1h", "-o", "y"},
		"DenseNoGrid":     {"features", "build", "--trace", "x", "--protocol", "mirage-ls6", "--grid-dense", "12h", "-o", "y"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, stderr, code := run(t, args...); code != exitUsage {
				t.Errorf("exit %d, want %d: %s", code, exitUsage, stderr)
			}
		})
	}
}

// ingestSynth500 ingests data/synth-500.sacct into dir/t.parquet and
// returns its path.
func ingestSynth500(t *testing.T, dir string) string {
	t.Helper()
	tr := filepath.Join(dir, "t.parquet")
	in := filepath.Join(testenv.Root(), "data", "synth-500.sacct")
	if _, stderr, code := run(t, "ingest", "--tz", "America/Chicago", "-o", tr, in); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	return tr
}
