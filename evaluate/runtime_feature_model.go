package evaluate

import (
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// FeatureRunTimeModel resolves dir (ResolveRuntimeModel: a run-time model
// or a forecast directory) into the run-time model features.Run takes
// for the features.ModelEstimateName column: its absolute directory, its
// model file's SHA-256 and FeatureRunTimes as the predictions (which
// check the digest again). ResolveRuntimeModel's errors are returned as
// they are.
func FeatureRunTimeModel(dir string) (*features.RunTimeModel, error) {
	rtDir, sha, err := ResolveRuntimeModel(dir)
	if err != nil {
		return nil, err
	}
	return &features.RunTimeModel{Dir: rtDir, SHA256: sha,
		Predict: func(tjobs []trace.Job, jobs []sim.Job) (*features.RunTimes, error) {
			return FeatureRunTimes(rtDir, sha, tjobs, jobs)
		}}, nil
}
