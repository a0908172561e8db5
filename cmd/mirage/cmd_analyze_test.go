package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalyze_SWF runs mirage analyze on an SWF trace whose start times
// are partly unknown: it writes the page and says, in --json, which
// sections are absent or partial and why.
func TestAnalyze_SWF(t *testing.T) {
	dir, in := writeSWF(t)
	tr := filepath.Join(dir, "o.parquet")
	if _, stderr, code := run(t, "ingest", "--start-time", "2006-01-02T15:04:05Z", "-o", tr, in); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "analysis")
	stdout, stderr, code := run(t, "analyze", tr, "-o", out, "--json", "--no-figures")
	if code != 0 {
		t.Fatalf("analyze: exit %d: %s", code, stderr)
	}
	var got struct {
		Jobs     int `json:"jobs"`
		Sections []struct {
			ID     string   `json:"id"`
			Absent string   `json:"absent"`
			Notes  []string `json:"notes"`
		} `json:"sections"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.Jobs != 3 || len(got.Sections) != 7 {
		t.Fatalf("got %d jobs and %d sections, want 3 and 7:\n%s", got.Jobs, len(got.Sections), stdout)
	}
	util := got.Sections[1]
	if util.ID != "utilisation" || !strings.Contains(strings.Join(util.Notes, " "), "unrecorded start") {
		t.Errorf("utilisation section: %+v, want a note on the job with an unrecorded start", util)
	}
	if _, err := os.Stat(filepath.Join(out, "waits.parquet")); err != nil {
		t.Error(err)
	}
	if _, _, code := run(t, "analyze", tr); code != exitUsage {
		t.Errorf("analyze without -o: exit %d, want %d", code, exitUsage)
	}
}
