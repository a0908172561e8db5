package sim_test

import (
	"slices"
	"testing"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/simtest"
)

// TestNewOwning: the simulation of an adopted job table is New's, and the
// table is normalised in place (RunSec capped at the limit) where New
// leaves its input as it was.
func TestNewOwning(t *testing.T) {
	cfg := simtest.Cluster(4)
	mk := func() []sim.Job {
		return []sim.Job{simtest.Job(2, 0, 600, 9000), simtest.Job(4, 10, 1200, 300), simtest.Job(1, 20, 300, 100)}
	}
	copied, owned := mk(), mk()
	want, _ := schedule(t, sim.New, cfg, copied)
	if got, _ := schedule(t, sim.NewOwning, cfg, owned); !slices.Equal(got, want) {
		t.Errorf("NewOwning schedule %v, New %v", got, want)
	}
	if copied[0].RunSec != 9000 || owned[0].RunSec != 600 {
		t.Errorf("RunSec after New %d (want 9000, unchanged), after NewOwning %d (want 600, capped)", copied[0].RunSec, owned[0].RunSec)
	}
}
