package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCheckOutput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	model := filepath.Join(dir, "model")
	os.MkdirAll(model, 0o755)
	os.WriteFile(filepath.Join(model, "manifest.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(model, "notes.txt"), []byte("mine"), 0o644)
	tests := []struct {
		Name  string
		Path  string
		Kind  outputKind
		Owned []string
		Msg   string // "" for no error
	}{
		{"FileOK", filepath.Join(dir, "o.parquet"), outputFile, nil, ""},
		{"FileNoDir", filepath.Join(dir, "missing", "o.parquet"), outputFile, nil, "no such file or directory"},
		{"FileIsDir", dir, outputFile, nil, "is a directory"},
		{"FileUnderFile", filepath.Join(file, "o.parquet"), outputFile, nil, "not a directory"},
		{"DirNew", filepath.Join(dir, "a", "b", "m"), outputDir, nil, ""},
		{"DirIsFile", file, outputDir, nil, "exists and is not a directory"},
		{"DirUnderFile", filepath.Join(file, "m"), outputDir, nil, "not a directory"},
		{"DirForeign", model, outputDir, []string{"manifest.json", "model.json"}, "notes.txt"},
		{"DirOwned", model, outputDir, []string{"manifest.json", "*.txt"}, ""},
		{"ExistingDirMissing", filepath.Join(dir, "nope"), outputExistingDir, nil, "no such directory"},
	}
	if _, err := os.Stat("/proc/self"); err == nil {
		tests = append(tests, struct {
			Name  string
			Path  string
			Kind  outputKind
			Owned []string
			Msg   string
		}{"Unwritable", "/proc/mirage-out/m", outputDir, nil, "cannot create files in /proc"})
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			err := checkOutput("-o", tt.Path, tt.Kind, tt.Owned...)
			if tt.Msg == "" {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.Msg) || exitCode(err) != exitUsage {
				t.Fatalf("got %v (exit %d), want a usage error containing %q", err, exitCode(err), tt.Msg)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("checkOutput left files: %d entries", len(entries))
	}
}

// TestCommands_UnwritableOutputFailsFast: features build, train, evaluate
// and report refuse an output they cannot write before reading any input
// (the inputs here do not exist), with exit 3, in well under a second, and
// train leaves no model directory behind.
func TestCommands_UnwritableOutputFailsFast(t *testing.T) {
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("needs /proc, a directory no one can create files in")
	}
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.parquet")
	for _, args := range [][]string{
		{"features", "build", "--trace", missing, "--protocol", "mirage-ls6", "-o", "/proc/mirage/s.parquet"},
		{"train", "--model", "xgboost", "--samples", missing, "-o", "/proc/mirage-model"},
		{"train", "--model", "dqn", "--trace", missing, "--protocol", "mirage-ls6", "-o", "/proc/mirage-dqn"},
		{"evaluate", "--trace", missing, "--protocol", "mirage-ls6", "--policy", "reactive", "-o", "/proc/mirage-eval"},
		{"report", "/proc/mirage-eval"},
	} {
		began := time.Now()
		_, stderr, code := run(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "/proc/mirage") || strings.Contains(stderr, "missing.parquet") {
			t.Errorf("%s: exit %d, stderr %q; want exit 3 about the output, before the input", args[0], code, stderr)
		}
		if d := time.Since(began); d > time.Second {
			t.Errorf("%s: took %v", args[0], d)
		}
	}
	_, _, code := run(t, "train", "--model", "xgboost", "--samples", missing, "-o", filepath.Join(dir, "m"))
	if code == 0 {
		t.Fatal("train on a missing samples file succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "m")); !os.IsNotExist(err) {
		t.Errorf("train left %s behind: %v", filepath.Join(dir, "m"), err)
	}
}
