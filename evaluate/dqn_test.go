package evaluate

import (
	"context"
	"testing"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/train/dqn"
)

// TestDQN_Replay writes an untrained DQN artifact, opens it as a policy and
// replays it next to the oracle, which it must never beat.
func TestDQN_Replay(t *testing.T) {
	net, err := dqn.NewMLP([]int{features.NumFeatures(), 8, 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	st := dqn.NewStats(nil, features.NumFeatures())
	dir := t.TempDir()
	m := &dqn.Manifest{Features: features.Schema(), FeatureSchemaVersion: features.FeatureSchemaVersion, Standardisation: st}
	if err := dqn.WriteArtifact(dir, net, nil, m); err != nil {
		t.Fatal(err)
	}
	ps, err := ParsePolicies("dqn:"+dir, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := ps[0]
	if p.Name() != "dqn:"+dir {
		t.Errorf("name = %q", p.Name())
	}
	opts := testOptions(sim.WindowCold, 1)
	opts.Features.Windows = 2
	res, err := Replay(context.Background(), busyJobs(700, 8, 1), []Policy{p, Oracle{}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(res.Rows); i += 2 {
		if Better(res.Rows[i].RSec, res.Rows[i+1].RSec) {
			t.Errorf("dqn beat the oracle: %+v", res.Rows[i])
		}
	}
}
