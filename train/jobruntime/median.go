package jobruntime

import (
	"fmt"
	"math"
)

// MedianSec returns a job's predicted median run time, seconds: the
// median ratio of its distribution p over the bins of edges (a row of
// Distribution or DistributionOf) times its limit limitSec, rounded and
// kept within [1, limitSec]. The planners that replace a job's limit by
// the model's median (evaluate's RunTimes, features.ModelEstimateName in
// features build, evaluate and advise) all use it.
func MedianSec(edges []float64, p []float32, limitSec int64) int64 {
	return min(max(int64(math.Round(quantile(edges, p, 0.5)*float64(limitSec))), 1), limitSec)
}

// ModelDigest returns the SHA-256 (hex) of the first model file of the
// run-time model in dir, as its manifest records it: the digest by which
// samples with the features.ModelEstimateName column, and the models
// trained on them, name their run-time model (Open checks the file itself
// against the manifest). It returns ReadManifest's error, or one wrapping
// ErrArtifact for a manifest without model files.
func ModelDigest(dir string) (string, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return "", err
	}
	if len(m.Models) == 0 {
		return "", fmt.Errorf("%w: %s has no model file", ErrArtifact, dir)
	}
	return m.Models[0].SHA256, nil
}
