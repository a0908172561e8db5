package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/sim"
)

// replayJSON runs sim replay --json with args on trace tr and returns its
// summary without the wall-clock figures (wall_sec, events_per_sec).
func replayJSON(t *testing.T, tr string, args ...string) map[string]any {
	t.Helper()
	stdout, stderr, code := run(t, append([]string{"sim", "replay", "--trace", tr, "--json", "--progress", "never"}, args...)...)
	if code != 0 {
		t.Fatalf("sim replay %v: exit %d: %s", args, code, stderr)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	delete(sum, "wall_sec")
	delete(sum, "events_per_sec")
	return sum
}

// writeProfile writes the built-in profile name, with each old string of
// edits replaced by the new one after it, to dir/file and returns its
// path; the text comes from mirage sim profile show, as a user copies it.
func writeProfile(t *testing.T, dir, file, name string, edits ...string) string {
	t.Helper()
	stdout, stderr, code := run(t, "sim", "profile", "show", name)
	if code != 0 {
		t.Fatalf("sim profile show %s: exit %d: %s", name, code, stderr)
	}
	path := filepath.Join(dir, file)
	if err := os.WriteFile(path, []byte(strings.NewReplacer(edits...).Replace(stdout)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSimReplay_ProfileFile: --profile FILE with a copy of a built-in
// profile replays as --profile NAME does (inferences included); an edited
// copy replays with its edits; a bad file is exit status 3 naming the
// file, line and field. TestSimProfile_Flags has the flags' overrides.
func TestSimReplay_ProfileFile(t *testing.T) {
	dir := t.TempDir()
	tr := ingestSynth500(t, dir)
	replay := func(args ...string) map[string]any {
		return replayJSON(t, tr, append(args, "--partition-nodes", "16")...)
	}
	// A copy of each built-in profile is that profile (sim's
	// TestLoadProfile_File); the replay of ls6's, the one that infers,
	// checks the command uses the file's inferences as the name's.
	ls6 := replay("--profile", "ls6")
	if copied := replay("--profile", writeProfile(t, dir, "ls6.yaml", "ls6")); !reflect.DeepEqual(ls6, copied) {
		t.Errorf("--profile ls6 and a copy of it differ:\n%v\n%v", ls6, copied)
	}
	if ls6["inferred_dependencies"] == nil || ls6["capacity_steps"] == 0.0 {
		t.Errorf("--profile ls6: inferred dependencies %v, %v capacity steps", ls6["inferred_dependencies"], ls6["capacity_steps"])
	}
	easy := replay("--profile", writeProfile(t, dir, "none.yaml", "ls6", "flavour: conservative", "flavour: none"))
	if f := easy["config"].(map[string]any)["backfill"].(map[string]any)["flavour"]; f != 2.0 || reflect.DeepEqual(easy["work"], ls6["work"]) {
		t.Errorf("a copy of ls6 without backfill: flavour %v, work %v (ls6's %v)", f, easy["work"], ls6["work"])
	}

	bad := writeProfile(t, dir, "bad.yaml", "ls6", "interval_sec: 600", "interval_sec: 0")
	_, stderr, code := run(t, "sim", "replay", "--trace", tr, "--profile", bad)
	if code != exitUsage || !strings.Contains(stderr, bad+":") || !strings.Contains(stderr, "config.backfill.interval_sec: 0") {
		t.Errorf("bad profile: exit %d, %s; want %d naming the file, line and field", code, stderr, exitUsage)
	}
	if _, stderr, code := run(t, "sim", "replay", "--trace", tr, "--profile", "slurm"); code != exitUsage || !strings.Contains(stderr, `"slurm"`) {
		t.Errorf("--profile slurm: exit %d, %s", code, stderr)
	}
}

// TestSimProfileShow: a built-in profile prints as its embedded file; a
// profile file prints checked, as YAML or JSON; a bad one is exit status 3.
func TestSimProfileShow(t *testing.T) {
	for _, name := range sim.ProfileNames() {
		want, err := sim.BuiltinProfileYAML(name)
		if err != nil {
			t.Fatal(err)
		}
		if stdout, stderr, code := run(t, "sim", "profile", "show", name); code != 0 || stdout != string(want) {
			t.Errorf("show %s: exit %d (%s), output differs from the embedded file", name, code, stderr)
		}
	}
	dir := t.TempDir()
	path := writeProfile(t, dir, "mine.yaml", "ls6", "name: ls6", "name: mine")
	stdout, _, code := run(t, "sim", "profile", "show", path)
	if code != 0 || !strings.HasPrefix(stdout, "name: mine\n") || strings.Contains(stdout, "#") {
		t.Errorf("show FILE: exit %d:\n%s", code, stdout)
	}
	stdout, _, code = run(t, "sim", "profile", "show", "--json", path)
	var p sim.Profile
	if err := json.Unmarshal([]byte(stdout), &p); code != 0 || err != nil || p.Name != "mine" || p.InferCapacity == nil {
		t.Errorf("show --json FILE: exit %d, %v: %+v", code, err, p)
	}
	if _, _, code := run(t, "sim", "profile", "show", filepath.Join(dir, "none.yaml")); code != exitUsage {
		t.Errorf("show of a missing file: exit %d, want %d", code, exitUsage)
	}
}

// TestSimProfile_Flags: the sim section's flags override a profile's
// settings only when set away from their "the profile's" values, and the
// inference flags turn the profile's inferences off or on.
func TestSimProfile_Flags(t *testing.T) {
	dir := t.TempDir()
	custom := writeProfile(t, dir, "custom.yaml", "ls6", "max_jobs_per_user: 0", "max_jobs_per_user: 3",
		"max_job_user: 0", "max_job_user: 5", "bucket_sec: 86400", "bucket_sec: 3600", "smooth: 0", "smooth: 2",
		"headroom: 0", "headroom: 1", "min_pending_sec: 0", "min_pending_sec: 600")
	file, err := sim.LoadProfile(custom)
	if err != nil {
		t.Fatal(err)
	}
	none := func(string) bool { return false }
	for _, tt := range []struct {
		name    string
		profile string
		set     func(*SimConfig)
		changed []string
		want    func(*sim.Profile)
	}{
		{"ProfileAsItIs", custom, func(*SimConfig) {}, nil, func(*sim.Profile) {}},
		{"Limits", custom, func(c *SimConfig) { c.MaxJobsPerUser, c.MaxNodesPerUser, c.BfMaxJobUser = 0, 4, 0 }, nil,
			func(p *sim.Profile) {
				p.Config.Limits = sim.Limits{MaxNodesPerUser: 4}
				p.Config.Backfill.MaxJobUser = 0
			}},
		{"Scheduler", custom, func(c *SimConfig) { c.PartitionNodes, c.Backfill, c.Cancelled = 12, "easy", "run-zero" }, nil,
			func(p *sim.Profile) {
				p.Config.Nodes, p.Config.Backfill.Flavour, p.Config.Cancelled = 12, sim.BackfillEASY, sim.CancelRunZero
			}},
		{"Capacity", custom, func(c *SimConfig) {
			c.CapacityBucket, c.CapacitySmooth, c.CapacityHeadroom, c.CapacityMinPending, c.CapacityLookahead = 24*time.Hour, 0, 0, 0, true
		}, nil, func(p *sim.Profile) { *p.InferCapacity = sim.CapacityOptions{BucketSec: 86400} }},
		{"InferenceOff", custom, func(c *SimConfig) {}, []string{"infer-deps", "infer-capacity"},
			func(p *sim.Profile) { p.InferDependencies, p.InferCapacity = nil, nil }},
		{"InferenceOn", "default", func(c *SimConfig) { c.InferDeps, c.InferCapacity = true, true }, nil,
			func(p *sim.Profile) {
				*p = sim.Profile{Name: "default", NodesFromTrace: true, Config: sim.DefaultConfig(), InferDependencies: &sim.InferOptions{},
					InferCapacity: &sim.CapacityOptions{BucketSec: sim.DefaultCapacityBucketSec, Causal: true}}
			}},
		{"InferenceOnWithFlags", "default", func(c *SimConfig) { c.InferCapacity, c.CapacitySmooth = true, 1 }, []string{"infer-capacity"},
			func(p *sim.Profile) {
				*p = sim.Profile{Name: "default", NodesFromTrace: true, Config: sim.DefaultConfig(),
					InferCapacity: &sim.CapacityOptions{BucketSec: sim.DefaultCapacityBucketSec, Smooth: 1, Causal: true}}
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := defaultConfig().Sim
			c.Profile = tt.profile
			tt.set(&c)
			changed := none
			if tt.changed != nil {
				changed = func(f string) bool { return slices.Contains(tt.changed, f) }
			}
			got, err := simProfile(c, changed)
			if err != nil {
				t.Fatal(err)
			}
			want := file
			want.InferDependencies, want.InferCapacity = ptr(*file.InferDependencies), ptr(*file.InferCapacity)
			tt.want(&want)
			if !reflect.DeepEqual(want, got) {
				t.Errorf("simProfile =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
	for _, set := range []func(*SimConfig){
		func(c *SimConfig) { c.MaxJobsPerUser = -2 },
		func(c *SimConfig) { c.BfMaxJobTest = -2 },
		func(c *SimConfig) { c.CapacityBucket = time.Millisecond },
		func(c *SimConfig) { c.CapacitySmooth = -2 },
		func(c *SimConfig) { c.CapacityMinPending = -2 * time.Second },
	} {
		c := defaultConfig().Sim
		c.Profile = "ls6"
		set(&c)
		if _, err := simProfile(c, none); exitCode(err) != exitUsage {
			t.Errorf("%+v: %v, want a usage error", c, err)
		}
	}
}

func ptr[T any](v T) *T { return &v }
