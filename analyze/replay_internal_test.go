package analyze

import (
	"testing"

	"github.com/mirage-hpc/mirage/sim"
)

// TestSimConfig_Profile: the replays' partition is the node count given,
// else the profile's, else, for a profile whose node count is a
// placeholder (the default profile's), the trace's peak (at least its
// widest job); dependencies are inferred exactly when the profile infers
// them, with its settings.
func TestSimConfig_Profile(t *testing.T) {
	all := []sim.Job{{Submit: 0, TraceStart: 10, RunSec: 100, LimitSec: 200, Nodes: 3, After: sim.NoJob}}
	load := func(name string) *sim.Profile {
		p, err := sim.LoadProfile(name)
		if err != nil {
			t.Fatal(err)
		}
		return &p
	}
	custom := load("ls6")
	custom.Config.Nodes, custom.NodesFromTrace, custom.InferDependencies = 40, true, &sim.InferOptions{GapSec: 7}
	for _, tt := range []struct {
		name      string
		prof      *sim.Profile
		nodes     int
		wantNodes int
		wantInfer *sim.InferOptions
	}{
		{"DefaultPeak", load("default"), 0, 12, nil},
		{"DefaultGiven", load("default"), 30, 30, nil},
		{"MirageCompat", load("mirage-compat"), 0, 88, nil},
		{"LS6", load("ls6"), 0, 80, &sim.InferOptions{GapSec: sim.DefaultGapSec, MinWaitSec: sim.DefaultMinWaitSec}},
		{"FilePlaceholder", custom, 0, 12, &sim.InferOptions{GapSec: 7}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := DefaultOptions()
			o.Nodes, o.Replay.Sim = tt.nodes, tt.prof
			cfg := simConfig(&o, 12, 5, all)
			if cfg.Nodes != tt.wantNodes || (len(cfg.Capacity) > 0) != (tt.nodes == 0) {
				t.Errorf("nodes %d, %d capacity steps; want %d, steps only without a node count", cfg.Nodes, len(cfg.Capacity), tt.wantNodes)
			}
			fo := fromTraceOptions(&o, cfg)
			if tt.wantInfer != nil { // the partition's size, for require_idle
				want := *tt.wantInfer
				want.Nodes = tt.wantNodes
				tt.wantInfer = &want
			}
			if (fo.Infer == nil) != (tt.wantInfer == nil) || fo.Infer != nil && *fo.Infer != *tt.wantInfer {
				t.Errorf("inference %+v, want %+v", fo.Infer, tt.wantInfer)
			}
		})
	}
}
