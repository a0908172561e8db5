package train

import (
	"context"
	"errors"
	"fmt"
)

// FitSamples reads the samples file (Parquet, from features build) and
// trains on it into dir: the scheduler's estimate margin (RunEstimate)
// when opts.Target is TargetEstimate or TargetEstimateRT, otherwise a
// tree model of opts.Params.Kind (Run; the caller resolves
// opts.Params.Device, e.g. with SelectDevice). An error about the
// samples' contents (ErrSamples) names the file. It is the one training
// call of `mirage train --model forest|xgboost|estimate|estimate-rt` and
// of a study's model stages.
func FitSamples(ctx context.Context, samples, dir string, opts Options) (*Manifest, error) {
	s, meta, err := ReadSamples(ctx, samples)
	if err != nil {
		return nil, err
	}
	var m *Manifest
	if opts.Target == TargetEstimate || opts.Target == TargetEstimateRT || opts.Target == TargetFixedLead {
		m, err = RunEstimate(s, meta, dir, opts)
	} else {
		m, err = Run(ctx, s, meta, dir, opts)
	}
	if errors.Is(err, ErrSamples) {
		return nil, fmt.Errorf("%s: %w", samples, err)
	}
	return m, err
}
