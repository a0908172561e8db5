package pipelines_test

import (
	"os"
	"testing"

	"github.com/mirage-hpc/mirage/pipelines"
)

// TestResolve_DirectoryNamedLikeABuiltin: an output directory named
// synth in the working directory does not hide the built-in study.
func TestResolve_DirectoryNamedLikeABuiltin(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.Mkdir("synth", 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := pipelines.Resolve("synth")
	if err != nil || s.Name != "synth" {
		t.Fatalf("Resolve(synth) with a directory synth here: %v, %v", s, err)
	}
	if _, err := pipelines.Resolve("./synth"); err == nil {
		t.Error("./synth, a path to a directory, resolved")
	}
}
