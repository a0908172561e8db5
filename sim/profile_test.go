package sim_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mirage-hpc/mirage/sim"
)

// goProfiles are the built-in profiles as Go wrote them before they
// became YAML files (sim.DefaultConfig, MirageCompat, LS6 and LS6Capacity,
// copied here): the configurations; the ls6 protocol's dependency
// inference (FromTrace with &InferOptions{}: the defaults) and capacity
// inference (LS6Capacity, its Nodes the partition size when used); and
// the default profile's partition size standing for the trace's in
// mirage analyze.
func goProfiles() map[string]sim.Profile {
	def := sim.Config{
		Nodes:     88,
		Cancelled: sim.CancelLeave,
		Priority: sim.Priority{AgeWeight: 7000, SizeWeight: 100, FairShareWeight: 4000,
			MaxAgeSec: 7 * 86400, DecayHalfLifeSec: 2 * 86400},
		Backfill: sim.Backfill{Flavour: sim.BackfillConservative, IntervalSec: 600, WindowSec: 48 * 3600,
			ResolutionSec: 600, MaxJobTest: 3000},
	}
	compat := def
	compat.Priority.FairShareWeight = 0
	compat.Priority.AgeUncapped = true
	compat.AgeFromSubmit = true
	compat.MinuteRounding = true
	compat.Cancelled = sim.CancelRunZero
	ls6 := def
	ls6.Nodes = 80
	ls6.Backfill.Flavour = sim.BackfillConservative
	ls6.Cancelled = sim.CancelLeave
	ls6.Limits = sim.Limits{}
	infer := sim.InferOptions{GapSec: sim.DefaultGapSec, MinWaitSec: sim.DefaultMinWaitSec}
	capacity := sim.CapacityOptions{BucketSec: sim.DefaultCapacityBucketSec, Causal: true}
	return map[string]sim.Profile{
		"default":       {Name: "default", NodesFromTrace: true, Config: def},
		"mirage-compat": {Name: "mirage-compat", Config: compat},
		"ls6":           {Name: "ls6", Config: ls6, InferDependencies: &infer, InferCapacity: &capacity},
	}
}

func TestBuiltinProfile_AsGoWroteThem(t *testing.T) {
	want := goProfiles()
	if diff := cmp.Diff([]string{"default", "ls6", "mirage-compat"}, sim.ProfileNames()); diff != "" {
		t.Errorf("ProfileNames (-want +got):\n%s", diff)
	}
	for _, name := range sim.ProfileNames() {
		t.Run(name, func(t *testing.T) {
			got, err := sim.LoadProfile(name)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want[name], got); diff != "" {
				t.Errorf("LoadProfile(%s) (-Go +YAML):\n%s", name, diff)
			}
			if got.BuiltinName() != name {
				t.Errorf("BuiltinName = %q, want %q", got.BuiltinName(), name)
			}
		})
	}
	if p, err := sim.LoadProfile(""); err != nil || p.Name != "default" {
		t.Errorf(`LoadProfile("") = %s, %v; want the default profile`, p.Name, err)
	}
	if diff := cmp.Diff(want["default"].Config, sim.DefaultConfig()); diff != "" {
		t.Errorf("DefaultConfig (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want["mirage-compat"].Config, sim.MirageCompat()); diff != "" {
		t.Errorf("MirageCompat (-want +got):\n%s", diff)
	}
}

// TestBuiltinProfile_Independent checks that a built-in profile's value
// shares nothing with the next caller's.
func TestBuiltinProfile_Independent(t *testing.T) {
	a, _ := sim.LoadProfile("ls6")
	a.InferCapacity.Smooth, a.InferDependencies.GapSec = 9, 9
	a.Config.Capacity = append(a.Config.Capacity, sim.CapacityStep{At: 1, Nodes: 1})
	b, _ := sim.LoadProfile("ls6")
	if b.InferCapacity.Smooth != 0 || b.InferDependencies.GapSec != sim.DefaultGapSec || len(b.Config.Capacity) != 0 {
		t.Errorf("second LoadProfile(ls6) sees the first's changes: %+v %+v %v", *b.InferCapacity, *b.InferDependencies, b.Config.Capacity)
	}
}

// writeFile writes text to dir/name and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadProfile_File: a copy of a built-in profile's file, renamed or
// not, loads to that profile (BuiltinName); an edited copy does not; a
// file's config fields left out are the default profile's; a profile's
// YAML loads back to it.
func TestLoadProfile_File(t *testing.T) {
	dir := t.TempDir()
	text, err := sim.BuiltinProfileYAML("ls6")
	if err != nil {
		t.Fatal(err)
	}
	ls6, _ := sim.LoadProfile("ls6")
	copied, err := sim.LoadProfile(writeFile(t, dir, "copy.yaml", string(text)))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ls6, copied); diff != "" || copied.BuiltinName() != "ls6" {
		t.Errorf("copy of ls6.yaml: BuiltinName %q, (-built-in +copy):\n%s", copied.BuiltinName(), diff)
	}
	renamed, err := sim.LoadProfile(writeFile(t, dir, "renamed.yaml", strings.Replace(string(text), "name: ls6", "name: my-cluster", 1)))
	if err != nil || renamed.Name != "my-cluster" || renamed.BuiltinName() != "ls6" {
		t.Errorf("renamed copy: %q, BuiltinName %q, %v", renamed.Name, renamed.BuiltinName(), err)
	}
	edited, err := sim.LoadProfile(writeFile(t, dir, "edited.yaml", strings.Replace(string(text), "flavour: conservative", "flavour: easy", 1)))
	if err != nil || edited.Config.Backfill.Flavour != sim.BackfillEASY || edited.BuiltinName() != "" {
		t.Errorf("edited copy: flavour %v, BuiltinName %q, %v", edited.Config.Backfill.Flavour, edited.BuiltinName(), err)
	}

	partial, err := sim.LoadProfile(writeFile(t, dir, "partial.yml", "config:\n  nodes: 12\n  priority: {age_weight: 5}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := sim.Profile{Name: "partial", Config: sim.DefaultConfig()}
	want.Config.Nodes, want.Config.Priority.AgeWeight = 12, 5
	if diff := cmp.Diff(want, partial); diff != "" {
		t.Errorf("partial file (-want +got):\n%s", diff)
	}

	for _, name := range sim.ProfileNames() {
		p, _ := sim.LoadProfile(name)
		p.Config.Capacity = []sim.CapacityStep{{At: 100, Nodes: 3, Unannounced: true}, {At: 200, Nodes: p.Config.Nodes}}
		p.InferCapacity = nil
		b, err := p.YAML()
		if err != nil {
			t.Fatal(err)
		}
		back, err := sim.LoadProfile(writeFile(t, dir, name+"-back.yaml", string(b)))
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
		if diff := cmp.Diff(p, back); diff != "" {
			t.Errorf("%s: YAML round trip (-before +after):\n%s", name, diff)
		}
	}
}

// TestLoadProfile_Errors: every bad profile file is an error wrapping
// ErrProfile that names the file, the line and the field.
func TestLoadProfile_Errors(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "a-dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, text string
		want       string // in the message, after the file's name
	}{
		{"UnknownField", "config:\n  nodes: 8\n  prority: {}\n", ":3: field prority not found"},
		{"UnknownTop", "name: x\ninfer_deps: true\n", ":2: field infer_deps not found"},
		{"UnknownInferField", "infer_capacity:\n  bucket: 3600\n", ":2: field bucket not found"},
		{"BadFlavour", "config:\n  backfill:\n    flavour: fast\n", `:3: backfill flavour "fast"`},
		{"BadCancelled", "config:\n  cancelled: drop\n", `:2: cancelled policy "drop"`},
		{"FlavourNotScalar", "config:\n  backfill:\n    flavour: [easy]\n", ":3: backfill flavour"},
		{"BadType", "config:\n  nodes: many\n", ":2: cannot unmarshal"},
		{"Nodes", "config:\n  nodes: 0\n", ":2: config.nodes: 0"},
		{"NegativeWeight", "config:\n  priority:\n    size_weight: -1\n", ":3: config.priority.size_weight: -1"},
		{"NaNWeight", "config:\n  priority:\n    fairshare_weight: .nan\n", ":3: config.priority.fairshare_weight: NaN"},
		{"MaxAge", "config:\n  priority:\n    max_age_sec: 0\n", ":3: config.priority.max_age_sec: 0"},
		{"HalfLife", "config:\n  priority:\n    decay_half_life_sec: -5\n", ":3: config.priority.decay_half_life_sec: -5"},
		{"Interval", "config:\n  backfill:\n    interval_sec: 0\n", ":3: config.backfill.interval_sec: 0"},
		{"Window", "config:\n  backfill:\n    window_sec: -1\n", ":3: config.backfill.window_sec: -1"},
		{"Resolution", "config:\n  backfill:\n    resolution_sec: 0\n", ":3: config.backfill.resolution_sec: 0"},
		{"MaxJobTest", "config:\n  backfill:\n    max_job_test: -1\n", ":3: config.backfill.max_job_test: -1"},
		{"MaxJobUser", "config:\n  backfill:\n    max_job_user: -2\n", ":3: config.backfill.max_job_user: -2"},
		{"LimitJobs", "config:\n  limits:\n    max_jobs_per_user: -1\n", ":3: config.limits.max_jobs_per_user: -1"},
		{"LimitNodes", "config:\n  limits:\n    max_nodes_per_user: -1\n", ":3: config.limits.max_nodes_per_user: -1"},
		{"CapacityNodes", "config:\n  nodes: 4\n  capacity:\n    - {at: 1, nodes: 5}\n", ":4: config.capacity.0.nodes: 5"},
		{"CapacityUnsorted", "config:\n  capacity:\n    - {at: 10, nodes: 5}\n    - at: 5\n      nodes: 6\n", ":4: config.capacity.1.at: 5"},
		{"CapacityAndInferred", "config:\n  capacity: [{at: 1, nodes: 5}]\ninfer_capacity: {causal: true}\n", ":2: config.capacity: given with infer_capacity"},
		{"Gap", "infer_dependencies:\n  gap_sec: -1\n", ":2: infer_dependencies.gap_sec: -1"},
		{"MinWait", "infer_dependencies:\n  min_wait_sec: -1\n", ":2: infer_dependencies.min_wait_sec: -1"},
		{"Bucket", "infer_capacity:\n  bucket_sec: -60\n", ":2: infer_capacity.bucket_sec: -60"},
		{"Smooth", "infer_capacity:\n  smooth: -1\n", ":2: infer_capacity.smooth: -1"},
		{"Headroom", "infer_capacity:\n  headroom: -1\n", ":2: infer_capacity.headroom: -1"},
		{"MinPending", "infer_capacity:\n  min_pending_sec: -1\n", ":2: infer_capacity.min_pending_sec: -1"},
		{"Name", "name: \"a\\nb\"\n", `:1: name: "a\nb"`},
		{"Empty", "", ": empty"},
		{"TwoDocuments", "name: a\n---\nname: b\n", ": more than one YAML document"},
		{"NotYAML", "config: [\n", ":1: did not find expected node content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, dir, tt.name+".yaml", tt.text)
			_, err := sim.LoadProfile(path)
			if !errors.Is(err, sim.ErrProfile) || !strings.Contains(err.Error(), path+tt.want) {
				t.Errorf("LoadProfile = %v\nwant an ErrProfile naming %q", err, path+tt.want)
			}
		})
	}
	big := writeFile(t, dir, "big.yaml", "name: big\n"+strings.Repeat("# padding\n", sim.MaxProfileBytes/10+1))
	for _, path := range []string{"slurm", filepath.Join(dir, "missing.yaml"), filepath.Join(dir, "a-dir"), big} {
		if _, err := sim.LoadProfile(path); !errors.Is(err, sim.ErrProfile) || !strings.Contains(err.Error(), path) {
			t.Errorf("LoadProfile(%s) = %v, want an ErrProfile naming it", path, err)
		}
	}
}
