package replay

import (
	"testing"

	"github.com/mirage-hpc/mirage/sim"
)

// TestDims: the coordinate search perturbs only the settings that apply
// to a candidate, never to the level it has, and each level reaches the
// profile (apply).
func TestDims(t *testing.T) {
	base := mustProfile(t, "default", 32)
	base.NodesFromTrace = false
	for _, c := range []struct {
		name string
		cand Candidate
		want []string
	}{
		{"fcfs-none", Candidate{Priority: "fcfs", Backfill: "none", Cancelled: "leave"}, nil},
		{"base-easy", Candidate{Priority: "base", Backfill: "easy", Cancelled: "leave"},
			[]string{"age-weight", "fairshare-weight", "size-weight", "max-age", "half-life", "bf-window", "bf-max-job-test"}},
		{"fcfs-capacity", Candidate{Priority: "fcfs", Backfill: "conservative", Cancelled: "leave", InferCapacity: true},
			[]string{"bf-window", "bf-max-job-test", "capacity-bucket", "capacity-smooth", "capacity-min-pending"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ds, err := dims(base, c.cand, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, d := range ds {
				names = append(names, d.name)
			}
			if len(names) != len(c.want) {
				t.Fatalf("dims %v, want %v", names, c.want)
			}
			from, err := apply(base, c.cand, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range ds {
				if d.name != c.want[i] || len(d.levels) == 0 {
					t.Errorf("dim %d: %s with %d levels, want %s", i, d.name, len(d.levels), c.want[i])
				}
				for _, l := range d.levels {
					p, err := apply(base, l, nil)
					if err != nil {
						t.Fatal(err)
					}
					if same(p, from) {
						t.Errorf("%s: level %s leaves the profile as it was", d.name, l.Tune)
					}
				}
			}
		})
	}
}

// same reports whether two profiles schedule alike (the fields a tuning
// sets).
func same(a, b sim.Profile) bool {
	if a.Config.Priority != b.Config.Priority || a.Config.Backfill != b.Config.Backfill {
		return false
	}
	if (a.InferCapacity == nil) != (b.InferCapacity == nil) {
		return false
	}
	return a.InferCapacity == nil || *a.InferCapacity == *b.InferCapacity
}
