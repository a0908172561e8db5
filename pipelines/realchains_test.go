package pipelines_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/pipelines"
)

// TestRun_RealChains runs a study with real_chains: true: the evaluate
// stage writes chains.csv and metrics.json's real_chains over the
// validation period, and the report states the real chains' hours.
func TestRun_RealChains(t *testing.T) {
	dir := t.TempDir()
	tr := smallTrace(t, dir)
	s := smallStudy(2)
	s.RealChains = true
	s.Models = []pipelines.ModelSpec{{Kind: "estimate"}}
	res, err := pipelines.Run(context.Background(), s, pipelines.RunOptions{Trace: tr, Out: filepath.Join(dir, "out"), Version: "test", Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	stage := map[string]pipelines.StageResult{}
	for _, r := range res {
		stage[r.Name] = r
	}
	m, err := evaluate.ReadMetrics(stage["evaluate"].Dir)
	if err != nil {
		t.Fatal(err)
	}
	rc := m.RealChains
	if rc == nil || rc.Replayed == 0 {
		t.Fatalf("real_chains %+v: want replayed links", rc)
	}
	if _, err := os.Stat(filepath.Join(stage["evaluate"].Dir, evaluate.ChainsCSV)); err != nil {
		t.Error(err)
	}
	page, err := os.ReadFile(filepath.Join(stage["report"].Dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "your users lost") {
		t.Error("report.html does not state the real chains' hours")
	}
}
