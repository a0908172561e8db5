package evaluate

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
	"github.com/mirage-hpc/mirage/train/jobruntime"
)

// ErrRuntimeModel means the run-time model a model's
// features.ModelEstimateName column was computed with is missing, or its
// model file no longer has the SHA-256 recorded when the samples were
// built.
var ErrRuntimeModel = errors.New("run-time model of the features missing or changed")

// ResolveRuntimeModel resolves the run-time model of a
// features.ModelEstimateName column: dir is a run-time model (train
// --model runtime) or a forecast directory (train --model forecast),
// whose run-time model it names and checks as openForecastDir does. It
// returns the run-time model's absolute directory and its model file's
// SHA-256.
func ResolveRuntimeModel(dir string) (rtDir, sha string, err error) {
	if rtDir, _, err = openForecastDir(dir); err != nil {
		return "", "", err
	}
	if rtDir, err = filepath.Abs(rtDir); err != nil {
		return "", "", fmt.Errorf("run-time model %s: %w", dir, err)
	}
	if sha, err = jobruntime.ModelDigest(rtDir); err != nil {
		return "", "", err
	}
	return rtDir, sha, nil
}

// FeatureRunTimes predicts the median run times of the simulator jobs
// sjobs (sim.FromTrace of the trace jobs tjobs) with the run-time model
// in rtDir whose model file has SHA-256 sha, for features.Options.RunTimes.
// Jobs of the model's training period get out-of-fold target encodings
// (NewRunTimes with oof), in every window: a feature of a training window
// never sees a job's own run time through the model's encodings. Model
// policies bind the same predictions (BindTrace), so the column means the
// same in training and in evaluation. It returns an error wrapping
// ErrRuntimeModel when the model file's digest is not sha.
func FeatureRunTimes(rtDir, sha string, tjobs []trace.Job, sjobs []sim.Job) (*features.RunTimes, error) {
	if err := checkRuntimeModel(rtDir, sha); err != nil {
		return nil, err
	}
	rt, err := NewRunTimes(rtDir, tjobs, sjobs, true)
	if err != nil {
		return nil, err
	}
	return &features.RunTimes{Dir: rtDir, SHA256: sha, MedianSec: rt.MedianSec}, nil
}

// checkRuntimeModel returns an error wrapping ErrPolicy and
// ErrRuntimeModel unless rtDir is a run-time model whose model file has
// SHA-256 sha.
func checkRuntimeModel(rtDir, sha string) error {
	got, err := jobruntime.ModelDigest(rtDir)
	if err != nil {
		return fmt.Errorf("%w: %w: run-time model %s: %w", ErrPolicy, ErrRuntimeModel, rtDir, err)
	}
	if got != sha {
		return fmt.Errorf("%w: %w: run-time model %s has model sha256 %s, the features were built with %s",
			ErrPolicy, ErrRuntimeModel, rtDir, got, sha)
	}
	return nil
}
