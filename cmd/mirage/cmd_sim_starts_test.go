package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/sim/replay"
)

// TestSimStarts: on the 500-job synthetic trace, sim starts scores slurm,
// history and replay on the same jobs that ran, writes one Parquet row per
// scored job, and refuses an unusable -o before any work.
func TestSimStarts(t *testing.T) {
	dir := t.TempDir()
	tr := ingestSynth500(t, dir)
	out := filepath.Join(dir, "starts")
	stdout, stderr, code := run(t, "sim", "starts", "--trace", tr, "--partition-nodes", "8", "--allow-skip", "-o", out, "--json") // 5 of 500 jobs wider than 8 nodes
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum replay.StartsSummary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	var names []string
	for _, p := range sum.Predictors {
		names = append(names, p.Name)
		if p.Jobs != sum.Predictors[0].Jobs || p.Jobs == 0 {
			t.Errorf("%s scored %d jobs, %s %d", p.Name, p.Jobs, sum.Predictors[0].Name, sum.Predictors[0].Jobs)
		}
		if p.Within1Min > p.Within10Min || p.Within10Min > 1 || p.MAESec < 0 {
			t.Errorf("%s: inconsistent scores %+v", p.Name, p.StartAccuracy)
		}
	}
	if got := strings.Join(names, ","); got != "slurm,history,replay" {
		t.Errorf("predictors %s", got)
	}
	rows, err := replay.ReadStarts(filepath.Join(out, "starts.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != sum.Predictors[0].Jobs {
		t.Errorf("%d rows, %d jobs scored", len(rows), sum.Predictors[0].Jobs)
	}
	for _, r := range rows {
		if r.Start < r.Submit || r.SlurmEst != 0 && r.SlurmEst < r.Submit {
			t.Fatalf("row %+v: a start before its submission", r)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "starts.json")); err != nil {
		t.Error(err)
	}
	// A file where the directory should be: refused, before any work.
	bad := filepath.Join(dir, "file")
	if err := os.WriteFile(bad, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, "sim", "starts", "--trace", tr, "-o", bad); code == 0 || !strings.Contains(stderr, bad) {
		t.Errorf("-o on a file: exit %d, %s", code, stderr)
	}
}
