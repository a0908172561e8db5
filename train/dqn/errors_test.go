package dqn_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/dqn"
)

// writeTiny writes a DQN model directory over the features package's
// features and returns it.
func writeTiny(t *testing.T) string {
	t.Helper()
	fs := features.Schema()
	net, err := dqn.NewMLP([]int{len(fs), 4, dqn.NumActions}, 1)
	if err != nil {
		t.Fatal(err)
	}
	m := &dqn.Manifest{Features: fs, FeatureSchemaVersion: features.FeatureSchemaVersion,
		Standardisation: dqn.NewStats(nil, len(fs))}
	dir := filepath.Join(t.TempDir(), "dqn")
	if err := dqn.WriteArtifact(dir, net, nil, m); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestOpen_Errors: a DQN model's errors are the XGBoost model's, so that
// both kinds exit alike (train.ErrDigest, train.ErrFeatures,
// train.ErrBadModel).
func TestOpen_Errors(t *testing.T) {
	dir := writeTiny(t)
	m, err := dqn.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Check(features.Names(), features.FeatureSchemaVersion); err != nil {
		t.Fatalf("Check on its own features: %v", err)
	}
	t.Run("Reordered", func(t *testing.T) {
		names := features.Names()
		names[0], names[1] = names[1], names[0]
		err := m.Check(names, features.FeatureSchemaVersion)
		if !errors.Is(err, train.ErrFeatures) || !strings.Contains(err.Error(), "column 0 is "+names[0]+", model wants "+names[1]) {
			t.Errorf("got %v; want ErrFeatures naming the swapped features", err)
		}
	})
	t.Run("Schema", func(t *testing.T) {
		err := m.Check(features.Names(), features.FeatureSchemaVersion+1)
		if !errors.Is(err, train.ErrFeatures) || !strings.Contains(err.Error(), "feature schema version") {
			t.Errorf("got %v; want ErrFeatures naming the schema version", err)
		}
	})
	t.Run("Digest", func(t *testing.T) {
		d := writeTiny(t)
		p := filepath.Join(d, dqn.WeightsFile)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)-1] ^= 1
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := dqn.Open(d); !errors.Is(err, train.ErrDigest) || !errors.Is(err, dqn.ErrDigest) {
			t.Errorf("got %v; want train.ErrDigest", err)
		}
	})
	t.Run("Kind", func(t *testing.T) {
		d := writeTiny(t)
		p := filepath.Join(d, dqn.ManifestFile)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b = []byte(strings.Replace(string(b), `"kind": "dqn"`, `"kind": "xgboost"`, 1))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := dqn.Open(d); !errors.Is(err, train.ErrBadModel) {
			t.Errorf("got %v; want train.ErrBadModel", err)
		}
	})
	t.Run("PredictOnDQN", func(t *testing.T) {
		if _, err := train.Open(dir); !errors.Is(err, train.ErrDQNModel) || !errors.Is(err, train.ErrBadModel) {
			t.Errorf("train.Open on a DQN directory: %v; want ErrDQNModel", err)
		}
	})
}
