package archtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLayers checks the module's own tree: every package has a layer and
// imports only downward, only cmd/ uses the CLI libraries, and the pure-Go
// evaluator links no cgo.
func TestLayers(t *testing.T) {
	bad, err := Check(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Error(b)
	}
}

// TestLayers_Planted plants violations in a copy of the module and checks that Check reports each one: an upward
// import from internal/, viper in a library package, cgo under the pure-Go
// evaluator, a package with no layer, and a package go list cannot load.
func TestLayers_Planted(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: copies the module")
	}
	root := filepath.Join("..", "..")
	for _, c := range []struct {
		name  string
		files map[string]string // path in the module -> content
		want  string            // a substring of one violation or of the error
	}{
		{"internal imports up", map[string]string{"internal/golden/zz_planted.go": "package golden\n\nimport _ \"" + Module + "/reports\"\n"},
			"internal/golden (layer 0) imports reports (layer 60)"},
		{"viper in features", map[string]string{"features/zz_planted.go": "package features\n\nimport _ \"github.com/spf13/viper\"\n"},
			"features imports github.com/spf13/viper, which only cmd/ may use"},
		{"cgo under xgbjson", map[string]string{"train/xgbjson/zz_planted.go": "package xgbjson\n\nimport _ \"" + Module + "/train/xgboost\"\n"},
			"train/xgbjson links cgo through " + Module + "/train/xgboost"},
		{"no layer", map[string]string{"sim/zznew/zz.go": "package zznew\n"},
			"sim/zznew has no layer"},
		{"broken package", map[string]string{"trace/zz_planted.go": "package trace\n\nimport _ \"" + Module + "/nosuchpackage\"\n"},
			"go list"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyModule(t, root)
			for p, body := range c.files {
				full := filepath.Join(dir, filepath.FromSlash(p))
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			bad, err := Check(dir)
			if err != nil {
				if !strings.Contains(err.Error(), c.want) {
					t.Fatalf("Check: %v, want a violation %q", err, c.want)
				}
				return
			}
			for _, b := range bad {
				if strings.Contains(b, c.want) {
					return
				}
			}
			t.Errorf("Check passed the planted violation: got %q, want one containing %q", bad, c.want)
		})
	}
}

// copyModule copies the module at root (every file but those of
// testdata, hidden and output folders: the Go files and what they embed)
// into a temporary directory, and returns it.
func copyModule(t *testing.T, root string) string {
	t.Helper()
	dir := t.TempDir()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "out" || d.Name() == "bin") {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
