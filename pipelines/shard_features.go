package pipelines

import (
	"context"
	"path/filepath"

	"github.com/mirage-hpc/mirage/features"
)

// featureShard builds shard i of n of p's samples (features.RunShard,
// with the run-time column of rt when not nil) into dir: one
// samples-C.parquet per chain size, window ids of the whole period.
func featureShard(ctx context.Context, o RunOptions, p features.Protocol, rt *runtimeModel, i, n int, dir string) error {
	a, b := shardWindows(p.Windows, i, n)
	parts, meta, err := features.RunShard(ctx, featuresIn(o, p, rt, ""), featuresOptions(o, ""), a, b)
	if err != nil {
		return err
	}
	for c := range parts {
		if err := writeSamplesShard(samplesShardPath(dir, c), &parts[c], meta); err != nil {
			return err
		}
	}
	return nil
}

// mergeFeatures writes dir/samples.parquet from the shards' samples
// (features.MergeShards: Build's rows and weights, the run-time column of
// rt when not nil read from the shards, not predicted again).
func mergeFeatures(ctx context.Context, o RunOptions, p features.Protocol, rt *runtimeModel, traceKey string, shards []string, dir string) error {
	in := featuresIn(o, p, rt, traceKey)
	names := in.FeatureNames()
	parts := make([][]*features.Samples, len(shards))
	for k, sd := range shards {
		a, b := shardWindows(p.Windows, k, len(shards))
		parts[k] = make([]*features.Samples, len(p.ChainNodes))
		for c, nodes := range p.ChainNodes {
			var err error
			if parts[k][c], err = readSamplesShard(ctx, samplesShardPath(sd, c), names, nodes, a, b); err != nil {
				return err
			}
		}
	}
	_, err := features.MergeShards(ctx, in, featuresOptions(o, filepath.Join(dir, "samples.parquet")), parts)
	return err
}
