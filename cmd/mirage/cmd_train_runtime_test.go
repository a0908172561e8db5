package main

import (
	"path/filepath"
	"testing"
)

func TestTrainRuntime_Usage(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		Name string
		Args []string
	}{
		{"ErrTraceRequired", []string{"train", "--model", "runtime", "--study", "ls6", "-o", dir}},
		{"ErrPeriodRequired", []string{"train", "--model", "runtime", "--trace", filepath.Join(dir, "t.parquet"), "-o", dir}},
		{"ErrOutputRequired", []string{"train", "--model", "runtime", "--trace", filepath.Join(dir, "t.parquet"), "--study", "ls6"}},
		{"ErrUnknownProtocol", []string{"train", "--model", "runtime", "--trace", filepath.Join(dir, "t.parquet"), "--protocol", "nope", "-o", dir}},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			if _, stderr, code := run(t, tt.Args...); code != 3 {
				t.Errorf("exit %d, want 3 (usage): %s", code, stderr)
			}
		})
	}
}
