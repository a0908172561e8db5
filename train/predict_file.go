package train

import (
	"context"
	"fmt"
	"path/filepath"
)

// PredictSummary is what PredictFile did.
type PredictSummary struct {
	// Kind is the model's (forest or xgboost); Rows the samples
	// predicted.
	Kind string `json:"kind"`
	Rows int    `json:"rows"`
	// MAEH is the mean absolute error of the predictions (hours) against
	// the samples' label_r_sec; nil when they have no labels.
	MAEH *float64 `json:"mae_h,omitempty"`
}

// PredictFile is the predict stage: it predicts r (hours) for the
// samples file with the model a opened from modelDir (OpenPredictor: a
// forest or xgboost model, pure Go), after checking that a model trained with a
// run-time column is given samples built with the same run-time model
// (Artifact.CheckRuntime), and writes out (WritePredictions) labelled by
// the model's name and digest, not its path as spelled: the output does
// not depend on where the model is.
func PredictFile(ctx context.Context, a *Artifact, modelDir, samples, out string) (PredictSummary, error) {
	s, meta, err := ReadSamples(ctx, samples)
	if err != nil {
		return PredictSummary{}, err
	}
	if err := a.CheckRuntime(meta); err != nil {
		return PredictSummary{}, fmt.Errorf("predict %s with %s: %w", samples, modelDir, err)
	}
	pred, err := a.Predict(s, meta.SchemaVersion)
	if err != nil {
		return PredictSummary{}, fmt.Errorf("predict %s with %s: %w", samples, modelDir, err)
	}
	sum := PredictSummary{Kind: a.Manifest.Kind, Rows: s.Len()}
	if err := WritePredictions(out, s, pred, filepath.Base(filepath.Clean(modelDir))+" sha256:"+a.Manifest.ModelSHA256); err != nil {
		return PredictSummary{}, err
	}
	if len(s.LabelRSec) == s.Len() && s.Len() > 0 {
		var mae float64
		for i, p := range pred {
			d := float64(p) - float64(s.LabelRSec[i])/3600
			mae += max(d, -d)
		}
		mae /= float64(s.Len())
		sum.MAEH = &mae
	}
	return sum, nil
}
