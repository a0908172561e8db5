package main

import (
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
		{"features build", []string{"features", "build", "--trace", tr, "--nodes", "8", "-o", filepath.Join(out, "s.parquet")}, "--nodes"},
		{"evaluate", []string{"evaluate", "--trace", tr, "--partition", "8", "-o", out}, "--partition"},
		{"train --model dqn", []string{"train", "--model", "dqn", "--trace", tr, "--protocol", "ls6", "--nodes", "8", "-o", filepath.Join(out, "dqn")}, "--nodes"},
		{"train --model forecast", []string{"train", "--model", "forecast", "--trace", tr, "--protocol", "ls6", "--nodes", "8",
			"--runtime-model", filepath.Join(out, "none"), "-o", filepath.Join(out, "fc")}, "--nodes"},
	} {
		_, stderr, code := run(t, tt.args...)
		want := "mirage: " + tt.name + ": the trace does not fit the simulated partition: " + strings.Replace(wideMsg, "FLAG", tt.flag, 1) +
			"; or pass --allow-skip to simulate without them (more than 1% of the jobs or node-hours)\n"
		if code != exitBadInput || !strings.HasSuffix(stderr, want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 2 ending %q", tt.name, code, stderr, want)
		}
	}
}
