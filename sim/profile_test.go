package sim_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mirage-hpc/mirage/sim"
)

// goProfiles are the built-in profiles as Go wrote them before they
// became YAML files: the configuration of sim.DefaultConfig, MirageCompat
// and LS6; the ls6 protocol's dependency inference (FromTrace with
// &InferOptions{}: the defaults) and capacity inference (LS6Capacity with
// the partition size as its Nodes); and the default profile's partition
// size standing for the trace's in mirage analyze.
func goProfiles() map[string]sim.Profile {
	infer := sim.DefaultInferOptions()
	capacity := sim.LS6Capacity()
	capacity.Nodes = 0 // the partition size, Config.Nodes, when used
	return map[string]sim.Profile{
		"default":       {Name: "default", NodesFromTrace: true, Config: sim.DefaultConfig()},
		"mirage-compat": {Name: "mirage-compat", Config: sim.MirageCompat()},
		"ls6":           {Name: "ls6", Config: sim.LS6(), InferDependencies: &infer, InferCapacity: &capacity},
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
}
