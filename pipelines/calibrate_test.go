package pipelines_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/pipelines"
	"github.com/mirage-hpc/mirage/sim"
)

// TestRun_Calibrate: with cluster.calibrate the calibrate stage runs
// first and its fitted profile is what every later stage simulates (the
// evaluation records it); the report writes the fidelity replay beside
// the page; a second run is all cache hits.
func TestRun_Calibrate(t *testing.T) {
	dir := t.TempDir()
	tr := smallTrace(t, dir)
	out := filepath.Join(dir, "out")
	s := smallStudy(2)
	s.Cluster.Calibrate = true
	o := pipelines.RunOptions{Trace: tr, Out: out, Version: "test", Workers: 2}
	res, err := pipelines.Run(context.Background(), s, o)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Name != "calibrate" || res[0].Cached {
		t.Fatalf("first stage %s (cached %v), want calibrate run first", res[0].Name, res[0].Cached)
	}
	prof, err := sim.LoadProfile(filepath.Join(res[0].Dir, pipelines.CalibratedProfile))
	if err != nil {
		t.Fatal(err)
	}
	head, _ := os.ReadFile(filepath.Join(res[0].Dir, pipelines.CalibratedProfile))
	if !strings.HasPrefix(string(head), "# Calibrated by mirage sim calibrate") || !strings.Contains(string(head), "Check months") {
		t.Errorf("the profile's header does not state the calibration:\n%.300s", head)
	}
	var ev, rep pipelines.StageResult
	for _, r := range res {
		switch r.Name {
		case "evaluate":
			ev = r
		case "report":
			rep = r
		}
	}
	var m struct {
		Protocol struct {
			Profile     string       `json:"profile"`
			ProfileSpec *sim.Profile `json:"profile_spec"`
		} `json:"protocol"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(ev.Dir, "metrics.json")), &m); err != nil {
		t.Fatal(err)
	}
	if m.Protocol.Profile != "small-calibrated" || m.Protocol.ProfileSpec == nil || m.Protocol.ProfileSpec.Config.Priority != prof.Config.Priority {
		t.Errorf("the evaluation simulated profile %q (%v), want the calibrated one", m.Protocol.Profile, m.Protocol.ProfileSpec != nil)
	}
	if _, err := os.Stat(filepath.Join(rep.Dir, pipelines.FidelityFile)); err != nil {
		t.Errorf("the report wrote no fidelity replay: %v", err)
	}
	again, err := pipelines.Run(context.Background(), s, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range again {
		if !r.Cached {
			t.Errorf("second run: stage %s ran", r.Name)
		}
	}
}
