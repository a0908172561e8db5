package evaluate

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/train"
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

// TestReplay_NonFiniteModel: a DQN, or a tree model, that passes its load
// checks but computes an infinite or NaN score fails the replay with
// train.ErrBadModel, instead of never submitting (every comparison with
// NaN is false) as if it were the reactive policy.
func TestReplay_NonFiniteModel(t *testing.T) {
	big := func(n *dqn.MLP) {
		for _, p := range n.Params() {
			for i := range p {
				p[i] = 3e38 // finite, but ten layers overflow float64
			}
		}
	}
	net, err := dqn.NewMLP([]int{features.NumFeatures(), 4, 4, 4, 4, 4, 4, 4, 4, 4, 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	big(net)
	dqnDir := t.TempDir()
	m := &dqn.Manifest{Features: features.Schema(), FeatureSchemaVersion: features.FeatureSchemaVersion,
		Standardisation: dqn.NewStats(nil, features.NumFeatures())}
	if err := dqn.WriteArtifact(dqnDir, net, nil, m); err != nil {
		t.Fatal(err)
	}
	leaf := `{"left_children":[-1],"right_children":[-1],"split_indices":[0],"split_conditions":[3e38],"default_left":[false]}`
	model := fmt.Appendf(nil, `{"version":[2,0,3],"learner":{"learner_model_param":{"base_score":"0","num_feature":"%d"},
"objective":{"name":"reg:squarederror"},"gradient_booster":{"name":"gbtree","model":{"trees":[%s,%s]}}}}`, features.NumFeatures(), leaf, leaf)
	treeDir := filepath.Join(t.TempDir(), "xgb")
	if err := train.WriteArtifact(treeDir, model, &train.Manifest{Kind: "xgboost", Target: "r", Features: features.Schema(),
		FeatureSchemaVersion: features.FeatureSchemaVersion}); err != nil {
		t.Fatal(err)
	}
	for _, policy := range []string{"dqn:" + dqnDir, "xgboost:" + treeDir} {
		t.Run(policy[:strings.Index(policy, ":")], func(t *testing.T) {
			ps, err := ParsePolicies(policy, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			opts := testOptions(sim.WindowCold, 1)
			opts.Features.Windows = 1
			_, err = Replay(context.Background(), busyJobs(300, 8, 1), ps, opts)
			if !errors.Is(err, train.ErrBadModel) {
				t.Errorf("Replay: %v; want train.ErrBadModel", err)
			}
		})
	}
}
