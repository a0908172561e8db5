package advise_test

import (
	"testing"

	"github.com/mirage-hpc/mirage/advise"
	"github.com/mirage-hpc/mirage/sim"
)

// TestBuildState_Held: squeue's held job reaches the features' queue
// exactly when the configuration shows held jobs (Config.HeldInSnapshot),
// as the simulated world shows its own; it never runs there.
func TestBuildState_Held(t *testing.T) {
	for _, show := range []bool{false, true} {
		cfg := sim.DefaultConfig()
		cfg.HeldInSnapshot = show
		obs := queue()
		st, _, err := advise.BuildState(&obs, "10", advise.LiveOptions{Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		snap := st.Sim.Snapshot()
		var held []string
		for _, p := range snap.Pending {
			if p.Held {
				held = append(held, st.Sim.Job(p.ID).Name)
			}
		}
		want := 0
		if show {
			want = 1
		}
		if len(held) != want || want == 1 && held[0] != "13" || len(snap.Pending) != 1+want {
			t.Errorf("HeldInSnapshot %v: pending %+v, held %v; want %d held (job 13)", show, snap.Pending, held, want)
		}
	}
}
