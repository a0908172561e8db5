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
	// dir is the run-time model's absolute directory and sha its model
	// file's SHA-256 (hex), as the samples' metadata records them.
	dir, sha string
}

// resolveRuntimeModel resolves the study's features.runtime_model
// (evaluate.ResolveRuntimeModel): nil when the study has none, an error
// wrapping ErrStudy and naming the field when the path is not a run-time
// model or a forecast directory.
func (s *Study) resolveRuntimeModel() (*runtimeModel, error) {
	path := s.RuntimeModelPath()
	if path == "" {
		return nil, nil
	}
	dir, sha, err := evaluate.ResolveRuntimeModel(path)
	if err != nil {
		return nil, fmt.Errorf("%w: features.runtime_model: %w", ErrStudy, err)
	}
	return &runtimeModel{dir: dir, sha: sha}, nil
}

// input is the features stages' input key of the run-time model: its
// directory (the samples record it) and its model file's digest, so a
// run-time model trained again reruns them.
func (rt *runtimeModel) input() string {
	return "runtime_model:" + rt.dir + " sha256:" + rt.sha
}

// featureNames returns the feature columns of the samples built with rt:
// features.Names, then features.ModelEstimateName when rt is not nil
// (features.Options.FeatureNames).
func (rt *runtimeModel) featureNames() []string {
	n := features.Names()
	if rt != nil {
		n = append(n, features.ModelEstimateName)
	}
	return n
}

// meta returns the samples' metadata of protocol p (sim config cfg,
// trace digest traceKey, "" for none) with rt's directory and digest.
func (rt *runtimeModel) meta(p features.Protocol, traceKey string, cfg sim.Config) features.FileMeta {
	m := features.FileMeta{Protocol: p.Name, TraceDigest: traceKey, SimConfig: cfg, Options: p}
	if rt != nil {
		m.RuntimeModel, m.RuntimeSHA256 = rt.dir, rt.sha
	}
	return m
}

// prepareFeatures reads the trace and returns the simulator jobs and the
// features options of p, with the run-time predictions of rt
// (evaluate.FeatureRunTimes, which checks the model file's digest again)
// when rt is not nil.
func prepareFeatures(o RunOptions, p features.Protocol, rt *runtimeModel) ([]sim.Job, features.Options, error) {
	tjobs, err := trace.ReadAll(o.Trace)
	if err != nil {
		return nil, features.Options{}, err
	}
	jobs, fo, err := p.Prepare(tjobs)
	if err != nil || rt == nil {
		return jobs, fo, err
	}
	if fo.RunTimes, err = evaluate.FeatureRunTimes(rt.dir, rt.sha, tjobs, jobs); err != nil {
		return nil, features.Options{}, fmt.Errorf("features.runtime_model: %w", err)
	}
	return jobs, fo, nil
}
