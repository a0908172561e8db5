//go:build cgo && !noxgboost

package train

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestRun_EarlyStopWithoutCV: with K 0 (no cross-validation) an xgboost
// model still stops early on the latest training windows: far fewer than
// p.Rounds rounds are kept, and --no-early-stopping (EarlyStopping 0) runs
// them all.
func TestRun_EarlyStopWithoutCV(t *testing.T) {
	s, meta := synth()
	p := DefaultParams(KindXGBoost)
	p.Rounds, p.EarlyStopping, p.Threads = 400, 5, 2
	dir := filepath.Join(t.TempDir(), "m")
	m, err := Run(context.Background(), s, meta, dir, Options{Params: p, K: 0, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("K 0: %d of %d rounds kept", m.Rounds, p.Rounds)
	if m.CV != nil || m.Rounds < 1 || m.Rounds >= p.Rounds {
		t.Errorf("K 0: %d rounds kept (cv %v), want early stopping below %d", m.Rounds, m.CV, p.Rounds)
	}
	a, err := Open(dir)
	if err != nil || a.Manifest.Rounds != m.Rounds {
		t.Fatalf("artifact: %v", err)
	}
	p.EarlyStopping, p.ValidShare, p.Rounds = 0, 0, 30
	m, err = Run(context.Background(), s, meta, dir, Options{Params: p, K: 0, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Rounds != 30 {
		t.Errorf("without early stopping: %d rounds, want 30", m.Rounds)
	}
	// The directory was replaced as a unit: only the artifact's files.
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("parent holds %d entries, want only the model directory", len(entries))
	}
}
