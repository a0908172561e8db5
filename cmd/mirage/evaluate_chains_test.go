package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/evaluate"
)

// TestEvaluate_RealChains: --real-chains writes chains.csv and
// metrics.json's real_chains (in the JSON summary too) with its span;
// its companions without it, a bad date or an empty span are usage
// errors.
func TestEvaluate_RealChains(t *testing.T) {
	dir := t.TempDir()
	tr := ingestSynth500(t, dir)
	out := filepath.Join(dir, "eval")
	stdout, stderr, code := run(t, "evaluate", "--trace", tr, "--protocol", "mirage-ls6-val",
		"--start", "2022-10-31T00:00:00", "--windows", "1", "--chain-nodes", "1", "--policy", "reactive,immediate,oracle",
		"--real-chains", "--real-chains-from", "2022-10-01", "--real-chains-to", "2022-12-01", "-o", out, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s struct {
		Metrics evaluate.Metrics `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	rc := s.Metrics.RealChains
	if rc == nil || rc.MaxLinks != evaluate.DefaultChainLinks || len(rc.Policies) != 3 || rc.To-rc.From != 61*86400+3600 { // America/Chicago leaves DST in between
		t.Fatalf("real_chains %+v: want the span 2022-10-01 to 2022-12-01, 3 policies, %d links at most", rc, evaluate.DefaultChainLinks)
	}
	b, err := os.ReadFile(filepath.Join(out, evaluate.ChainsCSV))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != strings.Join(evaluate.ChainsCSVHeader, ",") || len(lines)-1 != 3*rc.Replayed {
		t.Errorf("chains.csv: %d rows for %d replayed links and 3 policies", len(lines)-1, rc.Replayed)
	}
	for name, args := range map[string][]string{
		"FromWithoutFlag": {"--real-chains-from", "2022-10-01"},
		"MaxWithoutFlag":  {"--real-chains-max-links", "3"},
		"BadDate":         {"--real-chains", "--real-chains-from", "October"},
		"EmptySpan":       {"--real-chains", "--real-chains-from", "2022-12-01", "--real-chains-to", "2022-10-01"},
		"NegMax":          {"--real-chains", "--real-chains-max-links", "-1"},
	} {
		t.Run(name, func(t *testing.T) {
			a := append([]string{"evaluate", "--trace", "x", "-o", filepath.Join(dir, "u")}, args...)
			if _, stderr, code := run(t, a...); code != exitUsage {
				t.Errorf("exit %d, want %d: %s", code, exitUsage, stderr)
			}
		})
	}
}
