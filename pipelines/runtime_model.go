package pipelines

import (
	"fmt"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// runtimeModel is a study's features.runtime_model, resolved: the
// run-time model whose predictions make the features.ModelEstimateName
// column of every features stage. A nil *runtimeModel is a study
// without one (no column).
type runtimeModel struct {
	// model's Dir is the run-time model's absolute directory and SHA256
	// its model file's SHA-256 (hex), as the samples' metadata record them.
	model *features.RunTimeModel
}

// resolveRuntimeModel resolves the study's features.runtime_model
// (evaluate.FeatureRunTimeModel): nil when the study has none, an error
// wrapping ErrStudy and naming the field when the path is not a run-time
// model or a forecast directory.
func (s *Study) resolveRuntimeModel() (*runtimeModel, error) {
	path := s.RuntimeModelPath()
	if path == "" {
		return nil, nil
	}
	m, err := evaluate.FeatureRunTimeModel(path)
	if err != nil {
		return nil, fmt.Errorf("%w: features.runtime_model: %w", ErrStudy, err)
	}
	return &runtimeModel{model: m}, nil
}

// input is the features stages' input key of the run-time model: its
// directory (the samples record it) and its model file's digest, so a
// run-time model trained again reruns them.
func (rt *runtimeModel) input() string {
	return "runtime_model:" + rt.model.Dir + " sha256:" + rt.model.SHA256
}

// features returns rt as features.In takes it (nil for none), its
// prediction errors naming the study's field.
func (rt *runtimeModel) features() *features.RunTimeModel {
	if rt == nil {
		return nil
	}
	m := *rt.model
	m.Predict = func(tjobs []trace.Job, jobs []sim.Job) (*features.RunTimes, error) {
		r, err := rt.model.Predict(tjobs, jobs)
		if err != nil {
			return nil, fmt.Errorf("features.runtime_model: %w", err)
		}
		return r, nil
	}
	return &m
}
