package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitCheck_FeaturesEvaluate checks that features build and evaluate
// refuse (exit 2) a trace whose jobs wider than the partition are more
// than 1% of it, naming their partition flag, before any window is
// simulated.
func TestFitCheck_FeaturesEvaluate(t *testing.T) {
	tr := swfParquet(t, wideRows())
	out := t.TempDir()
	for _, tt := range []struct {
		name string
		args []string
		flag string
	}{
		{"features build", []string{"features", "build", "--trace", tr, "--partition-nodes", "8", "-o", filepath.Join(out, "s.parquet")}, "--partition-nodes"},
		{"evaluate", []string{"evaluate", "--trace", tr, "--partition-nodes", "8", "-o", out}, "--partition-nodes"},
		{"train --model dqn", []string{"train", "--model", "dqn", "--trace", tr, "--protocol", "ls6", "--partition-nodes", "8", "-o", filepath.Join(out, "dqn")}, "--partition-nodes"},
		{"train --model forecast", []string{"train", "--model", "forecast", "--trace", tr, "--protocol", "ls6", "--partition-nodes", "8",
			"--runtime-model", filepath.Join(out, "none"), "-o", filepath.Join(out, "fc")}, "--partition-nodes"},
	} {
		_, stderr, code := run(t, tt.args...)
		want := "mirage: " + tt.name + ": the trace does not fit the simulated partition: " + strings.Replace(wideMsg, "FLAG", tt.flag, 1) +
			"; or pass --allow-skip to simulate without them (more than 1% of the jobs or node-hours)\n"
		if code != exitBadInput || !strings.HasSuffix(stderr, want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 2 ending %q", tt.name, code, stderr, want)
		}
	}
}

// TestFitCheck_WarningsInJSON: with --allow-skip the width finding is a
// warning, in features build's --json summary as in its log.
func TestFitCheck_WarningsInJSON(t *testing.T) {
	tr := swfParquet(t, wideRows())
	stdout, stderr, code := run(t, "features", "build", "--trace", tr, "--partition-nodes", "8", "--allow-skip", "--json",
		"--start", "2023-01-01T00:00:00", "--windows", "1", "--chain-nodes", "1", "-o", filepath.Join(t.TempDir(), "s.parquet"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum struct{ Warnings []string }
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(wideMsg, "FLAG", "--partition-nodes", 1); len(sum.Warnings) == 0 || sum.Warnings[0] != want {
		t.Errorf("warnings %q, want first %q", sum.Warnings, want)
	}
}
