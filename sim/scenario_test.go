package sim_test

import (
	"path/filepath"
	"testing"

	"github.com/mirage-hpc/mirage/sim/simtest"
)

// TestScenarios runs every testdata/*.test scenario file (grammar in
// package simtest). Each file holds hand-computed schedules for one
// behaviour, with the reasoning in its comments.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.test"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scenario files in testdata")
	}
	for _, f := range files {
		simtest.RunFile(t, f)
	}
}
