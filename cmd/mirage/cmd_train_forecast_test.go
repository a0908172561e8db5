package main

import (
	"path/filepath"
	"testing"
)

func TestTrainForecast_Usage(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.parquet")
	tests := []struct {
		Name string
		Args []string
	}{
		{"ErrRuntimeModelRequired", []string{"train", "--model", "forecast", "--trace", tr, "--protocol", "ls6", "-o", dir}},
		{"ErrTraceRequired", []string{"train", "--model", "forecast", "--runtime-model", dir, "--protocol", "ls6", "-o", dir}},
		{"ErrCorrelation", []string{"train", "--model", "forecast", "--runtime-model", dir, "--trace", tr, "--protocol", "ls6", "--correlation", "2", "-o", dir}},
		{"ErrUnknownProtocol", []string{"train", "--model", "forecast", "--runtime-model", dir, "--trace", tr, "--protocol", "nope", "-o", dir}},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			if _, stderr, code := run(t, tt.Args...); code != 3 {
				t.Errorf("exit %d, want 3 (usage): %s", code, stderr)
			}
		})
	}
}

func TestEvaluate_ForecastNotAModel(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := run(t, "evaluate", "--trace", filepath.Join(dir, "t.parquet"), "--protocol", "ls6-val", "--policy", "forecast:"+dir, "-o", dir)
	if code != 3 {
		t.Errorf("exit %d, want 3 (usage): %s", code, stderr)
	}
}
