package pipelines

import (
	"context"
	"path/filepath"

	"github.com/mirage-hpc/mirage/features"
)

// featuresIn is the input of a features stage of p: the run's trace,
// with the run-time column of rt when not nil, recording traceKey as the
// trace's digest ("" for none).
func featuresIn(o RunOptions, p features.Protocol, rt *runtimeModel, traceKey string) features.In {
	return features.In{Trace: o.Trace, Protocol: p, TraceDigest: traceKey, RunTimes: rt.features()}
}

// featuresOptions are features.Run's options of the run, writing output:
// the study's fit was checked before any work (Study.CheckFit).
func featuresOptions(o RunOptions, output string) features.RunOptions {
	return features.RunOptions{Workers: o.Workers, Logger: o.Logger, FitChecked: true, Output: output, Progress: o.progress(o.stage, "windows")}
}

// buildFeatures writes dir/samples.parquet: the samples of p, with the
// run-time column of rt when not nil (features.Run).
func buildFeatures(ctx context.Context, o RunOptions, p features.Protocol, rt *runtimeModel, traceKey, dir string) error {
	_, err := features.Run(ctx, featuresIn(o, p, rt, traceKey), featuresOptions(o, filepath.Join(dir, "samples.parquet")))
	return err
}
