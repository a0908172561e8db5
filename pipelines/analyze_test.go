package pipelines_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/pipelines"
)

// TestRun_Analyze runs a study with analyze: true: the analyze stage
// writes analysis.html into its directory, the report links to it by a
// relative path, and a second run finds every stage cached.
func TestRun_Analyze(t *testing.T) {
	dir := t.TempDir()
	tr := smallTrace(t, dir)
	s := smallStudy(1)
	s.Analyze = true
	s.Models = []pipelines.ModelSpec{{Kind: "estimate"}}
	out := filepath.Join(dir, "out")
	run := func() map[string]pipelines.StageResult {
		t.Helper()
		res, err := pipelines.Run(context.Background(), s, pipelines.RunOptions{Trace: tr, Out: out, Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]pipelines.StageResult{}
		for _, r := range res {
			m[r.Name] = r
		}
		return m
	}
	first := run()
	an, ok := first["analyze"]
	if !ok || an.Cached {
		t.Fatalf("first run: analyze %+v", an)
	}
	for _, f := range []string{pipelines.AnalysisPage, "waits.parquet", "chains.parquet", "meta.json"} {
		if _, err := os.Stat(filepath.Join(an.Dir, f)); err != nil {
			t.Error(err)
		}
	}
	page, err := os.ReadFile(filepath.Join(first["report"].Dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	href := `href="../` + filepath.Base(an.Dir) + "/" + pipelines.AnalysisPage + `"`
	if !strings.Contains(string(page), href) {
		t.Errorf("report.html has no link %s", href)
	}
	for name, r := range run() {
		if !r.Cached {
			t.Errorf("second run: %s not cached", name)
		}
	}
}
