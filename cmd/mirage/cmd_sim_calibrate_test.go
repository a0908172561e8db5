package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/sim"
)

// TestSimCalibrate: sim calibrate writes a profile file that loads, whose
// header states the fidelity before and after on the check months, and
// that sim replay takes; the same command gives the same bytes; missing
// flags are exit 3.
func TestSimCalibrate(t *testing.T) {
	dir := t.TempDir()
	tr := ingestSynth500(t, dir)
	out := filepath.Join(dir, "fit.yaml")
	args := []string{"sim", "calibrate", "--trace", tr, "--tz", "America/Chicago", "--from", "2022-11-01", "--to", "2022-11-02T12:00:00",
		"--partition-nodes", "16", "--progress", "never", "-o", out}
	stdout, stderr, code := run(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum struct {
		Output      string         `json:"output"`
		Candidates  int            `json:"candidates"`
		Replays     int            `json:"replays"`
		Best        map[string]any `json:"best"`
		CheckFitted struct {
			Jobs int `json:"jobs"`
		} `json:"check_fitted"`
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Output != out || sum.Candidates < 2 || sum.Replays < sum.Candidates || sum.Best["priority"] == nil {
		t.Errorf("summary %+v", sum)
	}
	first, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Calibrated by mirage sim calibrate", "# Wait fidelity, calibration months: base", "# Check months"} {
		if !strings.Contains(string(first), want) {
			t.Errorf("profile header lacks %q:\n%.400s", want, first)
		}
	}
	p, err := sim.LoadProfile(out)
	if err != nil || p.Name != "fit" {
		t.Fatalf("the written profile: %v (name %q)", err, p.Name)
	}
	if _, stderr, code := run(t, "sim", "replay", "--trace", tr, "--profile", out, "--progress", "never"); code != 0 {
		t.Errorf("sim replay --profile the calibrated file: exit %d: %s", code, stderr)
	}
	if _, stderr, code := run(t, args...); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, stderr)
	}
	if again, _ := os.ReadFile(out); string(again) != string(first) {
		t.Error("a second calibration wrote other bytes")
	}
	if _, _, code := run(t, "sim", "calibrate", "--trace", tr, "-o", out); code != exitUsage {
		t.Errorf("without --from and --to: exit %d, want %d", code, exitUsage)
	}
}
