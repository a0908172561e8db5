package sim_test

import (
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
