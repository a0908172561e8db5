//go:build cgo && !noxgboost

package evaluate

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/train"
)

// TestModel_WideColumns checks that a model trained on samples with the
// wide columns (features build --wide) predicts, at each decision time
// of evaluate's timeline (built without them), what it predicts on the
// samples' row: Model.Predict appends DecisionContext.Wide as Build
// wrote the columns. A model without them appends nothing.
func TestModel_WideColumns(t *testing.T) {
	ctx := context.Background()
	jobs := busyJobs(600, 8, 6)
	fo := testOptions(sim.WindowCold, 1).Features
	fo.Windows, fo.Probes = 3, 4
	for _, wide := range []bool{true, false} {
		fo.Wide = wide
		s, _, err := features.Build(ctx, jobs, fo)
		if err != nil {
			t.Fatal(err)
		}
		fs := features.Schema()
		if wide {
			fs = append(fs, features.WideSchema()...)
		}
		meta := train.SamplesMeta{Features: fs, SchemaVersion: features.FeatureSchemaVersion, Protocol: "test"}
		p := train.DefaultParams(train.KindXGBoost)
		p.Rounds, p.Threads = 20, 1
		dir := filepath.Join(t.TempDir(), "m")
		if _, err := train.Run(ctx, &s, meta, dir, train.Options{Params: p, Target: train.TargetStop}); err != nil {
			t.Fatal(err)
		}
		m, err := NewModel("m", dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.Wide != wide {
			t.Fatalf("model trained with wide %v: Model.Wide %v", wide, m.Wide)
		}
		pred, err := m.Artifact.Predict(&s, features.FeatureSchemaVersion)
		if err != nil {
			t.Fatal(err)
		}
		eo := fo
		eo.Wide = false // evaluate's timelines compute the base columns
		if err := features.Normalise(&eo); err != nil {
			t.Fatal(err)
		}
		user := features.ChainUser(jobs)
		var tl *features.Timeline
		for i := range s.Len() {
			if i == 0 || s.WindowID[i] != s.WindowID[i-1] || s.ChainNodes[i] != s.ChainNodes[i-1] {
				if tl, err = features.NewTimeline(ctx, jobs, &eo, int(s.WindowID[i]), int(s.ChainNodes[i]), user); err != nil {
					t.Fatal(err)
				}
			}
			at := s.ProbeTime[i]
			if err := tl.Advance(ctx, at); err != nil {
				t.Fatal(err)
			}
			q := tl.Q()
			q.Submit = at
			pStart, started := tl.Sim().Started(tl.PID())
			c := &DecisionContext{Now: at, Sim: tl.Sim(), P: tl.P(), PID: tl.PID(), Q: q, PStarted: started, PStart: pStart,
				compute: func(dst []float64) error { return tl.Features(ctx, dst) }}
			got, err := m.Predict(c)
			if err != nil {
				t.Fatal(err)
			}
			if float32(got) != pred[i] {
				t.Fatalf("wide %v, row %d (window %d, %d nodes, t %d): replay predicts %v, the samples' row %v",
					wide, i, s.WindowID[i], s.ChainNodes[i], at, got, pred[i])
			}
		}
	}
}
