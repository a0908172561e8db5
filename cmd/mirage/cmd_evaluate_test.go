package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/evaluate"
)

func TestEvaluate_JSONAndFiles(t *testing.T) {
	dir := t.TempDir()
	tr := ingestSynth500(t, dir)
	out := filepath.Join(dir, "eval")
	stdout, stderr, code := run(t, "evaluate", "--trace", tr, "--protocol", "mirage-ls6-val",
		"--start", "2022-10-31T00:00:00", "--windows", "2", "--interval", "1h", "--chain-nodes", "1,2",
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
	var written evaluate.Metrics
	if err := json.Unmarshal(mj, &written); err != nil {
		t.Fatal(err)
	}
	if written.Protocol == nil || written.Protocol.Name != "mirage-ls6-val" || written.SimConfig == nil || written.SimConfig.Nodes != 88 {
		t.Errorf("metrics.json does not say what was evaluated: protocol %+v, sim config %+v", written.Protocol, written.SimConfig)
	}
	recomputed := evaluate.Compute(rows, s.Metrics.Lambda)
	recomputed.Protocol, recomputed.SimConfig = written.Protocol, written.SimConfig
	re, _ := json.MarshalIndent(recomputed, "", "  ")
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
		"BadLambda":       {"evaluate", "--trace", "x", "--lambda", "-1", "-o", "y"},
		"BadMargins":      {"evaluate", "--trace", "x", "--margins", "0,soon", "-o", "y"},
		"MarginAndSweep":  {"evaluate", "--trace", "x", "--margin", "10m", "--margins", "0,1h", "-o", "y"},
		"NegPartition":    {"evaluate", "--trace", "x", "--partition-nodes", "-1", "-o", "y"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, stderr, code := run(t, args...); code != exitUsage {
				t.Errorf("exit %d, want %d: %s", code, exitUsage, stderr)
			}
		})
	}
}

// TestEvaluate_CostSweepText: --lambda is recorded, --margins sweeps
// slurm-estimate, and the text output has a table per chain size.
func TestEvaluate_CostSweepText(t *testing.T) {
	dir := t.TempDir()
	tr := ingestSynth500(t, dir)
	out := filepath.Join(dir, "eval")
	stdout, stderr, code := run(t, "evaluate", "--trace", tr, "--protocol", "mirage-ls6-val",
		"--start", "2022-10-31T00:00:00", "--windows", "2", "--interval", "1h", "--chain-nodes", "1,2",
		"--policy", "reactive,slurm-estimate,oracle,oracle-cost", "--margins", "0,30m", "--lambda", "1", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"cost = interruption + 1·overlap", "chains of 1 node(s)", "chains of 2 node(s)",
		"slurm-estimate@margin=0.5", "oracle-cost"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "metrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m evaluate.Metrics
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Lambda != 1 || len(m.Policies) != 5 || m.Policies["slurm-estimate@margin=0"].ByChain["2"].Windows != 2 {
		t.Fatalf("metrics.json: %s", b)
	}
	if _, ok := m.Frontier["slurm-estimate"]["1"]["2"]; !ok {
		t.Errorf("no slurm-estimate frontier: %s", b)
	}
	for k, c := range m.Policies[evaluate.OracleCostName].ByChain {
		for name, p := range m.Policies {
			if s := p.ByChain[k]; s.MeanCostH < c.MeanCostH-1e-9 {
				t.Errorf("%s nodes: %s costs %v < oracle-cost's %v", k, name, s.MeanCostH, c.MeanCostH)
			}
		}
	}
}
