package pipelines

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// A sharded stage (features-train, features-validation, evaluate under the Slurm executor with
// slurm.shards > 1) runs as n shards, each over a contiguous run of the
// windows (shardWindows) and every chain size, into
// OUT/shards/STAGE-KEY16/I-of-N/ (one Parquet file per chain size, see
// shard_file.go, then done), and a merge
// that puts the rows in the order one run makes them (chain size, then
// window) and writes the stage's outputs, byte for byte the files the
// unsharded stage writes: a sharded stage is a cache hit for a local run.

// shardWindows returns the windows [a, b) of shard i of n over windows.
func shardWindows(windows, i, n int) (a, b int) {
	return windows * i / n, windows * (i + 1) / n
}

// shardDir is the directory of shard i of n of a stage of key.
func shardDir(out, stage, key string, i, n int) string {
	return filepath.Join(out, "shards", stage+"-"+key[:16], fmt.Sprintf("%d-of-%d", i, n))
}

// runShard runs shard o.Shard of o.Shards of st, unless it or the stage
// (not forced) is done; it holds the shard's lock meanwhile.
func runShard(ctx context.Context, st stage, o RunOptions) (StageResult, error) {
	key, dir, err := stageKey(st, o)
	if err != nil {
		return StageResult{}, err
	}
	res := StageResult{Name: st.name, Key: key, Dir: dir}
	if finished(dir, key) && !slices.Contains(o.Force, st.name) {
		res.Cached = true
		return res, nil
	}
	if st.shard == nil || o.Shard < 0 || o.Shard >= o.Shards {
		return res, fmt.Errorf("%w: stage %s: shard %d of %d: not a sharded stage or no such shard", ErrStudy, st.name, o.Shard, o.Shards)
	}
	sdir := shardDir(o.Out, st.name, key, o.Shard, o.Shards)
	lock, err := lockShard(sdir)
	if err != nil {
		return res, err
	}
	defer lock.Unlock()
	done, damaged := checkShard(sdir)
	if done {
		o.Logger.Info("shard cached", "stage", st.name, "shard", o.Shard, "shards", o.Shards)
		res.Cached = true
		return res, nil
	}
	if damaged != "" {
		o.Logger.Warn(fmt.Sprintf("%s: shard %d of %d: %s: redoing", st.name, o.Shard, o.Shards, damaged), "stage", st.name, "dir", sdir)
	}
	if err := os.RemoveAll(sdir); err != nil {
		return res, err
	}
	if err := os.MkdirAll(sdir, 0o755); err != nil {
		return res, err
	}
	o.Logger.Info("shard", "stage", st.name, "shard", o.Shard, "shards", o.Shards, "dir", sdir)
	if err := st.shard(ctx, o.Shard, o.Shards, sdir); err != nil {
		return res, err
	}
	return res, recordShard(sdir)
}

// mergeShards runs st as the merge of its o.Shards shards, which must be
// done, unless the stage (not forced) is finished; the shards' directory
// is removed once the stage is finished.
func mergeShards(ctx context.Context, st stage, o RunOptions) (StageResult, error) {
	key, dir, err := stageKey(st, o)
	if err != nil {
		return StageResult{}, err
	}
	if finished(dir, key) && !slices.Contains(o.Force, st.name) {
		return StageResult{Name: st.name, Key: key, Dir: dir, Cached: true}, nil
	}
	if st.merge == nil {
		return StageResult{}, fmt.Errorf("%w: stage %s: not a sharded stage", ErrStudy, st.name)
	}
	dirs := make([]string, o.Shards)
	for i := range dirs {
		dirs[i] = shardDir(o.Out, st.name, key, i, o.Shards)
		switch done, damaged := checkShard(dirs[i]); {
		case damaged != "":
			return StageResult{}, fmt.Errorf("stage %s: merge: shard %d of %d (%s): %s (its array task redoes it)", st.name, i, o.Shards, dirs[i], damaged)
		case !done:
			return StageResult{}, fmt.Errorf("stage %s: merge: shard %d of %d not done (%s)", st.name, i, o.Shards, dirs[i])
		}
	}
	merged := st
	merged.run = func(ctx context.Context, dir string) error { return st.merge(ctx, dirs, dir) }
	res, err := runStage(ctx, merged, o)
	if err != nil {
		return res, err
	}
	return res, os.RemoveAll(filepath.Dir(dirs[0]))
}

// shardOptions narrows fo to windows [a, b) of the chain size nodes.
func shardOptions(fo features.Options, a, b, nodes int) features.Options {
	fo.Start += int64(a) * fo.IntervalSec
	fo.Windows = b - a
	fo.ChainNodes = []int{nodes}
	return fo
}

// prepare reads the trace and returns the simulator jobs and the
// features options of p.
func prepare(o RunOptions, p features.Protocol) ([]sim.Job, features.Options, error) {
	tjobs, err := trace.ReadAll(o.Trace)
	if err != nil {
		return nil, features.Options{}, err
	}
	return p.Prepare(tjobs)
}

// featureShard builds shard i of n of p's samples (with the run-time
// column of rt when not nil) into dir: one samples-C.parquet per chain
// size, window ids of the whole period. The run-time predictions are of
// every job of the trace, as in the whole stage, so the shards' columns
// are its rows'.
func featureShard(ctx context.Context, o RunOptions, p features.Protocol, rt *runtimeModel, i, n int, dir string) error {
	jobs, fo, err := prepareFeatures(o, p, rt)
	if err != nil {
		return err
	}
	fo.Workers, fo.Logger = o.Workers, o.Logger
	a, b := shardWindows(fo.Windows, i, n)
	meta := rt.meta(p, "", fo.Config)
	for c, nodes := range fo.ChainNodes {
		s, _, err := features.Build(ctx, jobs, shardOptions(fo, a, b, nodes))
		if err != nil {
			return err
		}
		for k := range s.WindowID {
			s.WindowID[k] += int32(a)
		}
		if err := writeSamplesShard(samplesShardPath(dir, c), &s, meta); err != nil {
			return err
		}
	}
	return nil
}

// mergeFeatures writes dir/samples.parquet from the shards' samples: the
// rows in Build's order and Build's weights (every window and chain size
// weighs the same in total, the mean weight is 1; the shards' weights
// are not used), with the run-time column of rt when not nil (read from
// the shards, not predicted again).
func mergeFeatures(ctx context.Context, o RunOptions, p features.Protocol, rt *runtimeModel, traceKey string, shards []string, dir string) error {
	_, fo, err := prepare(o, p)
	if err != nil {
		return err
	}
	names := rt.featureNames()
	parts := make([][]*features.Samples, len(shards))
	for k, sd := range shards {
		a, b := shardWindows(fo.Windows, k, len(shards))
		parts[k] = make([]*features.Samples, len(fo.ChainNodes))
		for c, nodes := range fo.ChainNodes {
			if parts[k][c], err = readSamplesShard(ctx, samplesShardPath(sd, c), names, nodes, a, b); err != nil {
				return err
			}
		}
	}
	s := features.Samples{Names: names}
	s.Features = make([][]float64, len(s.Names))
	type unit struct{ chain, window int32 }
	probes := map[unit]int{}
	var units []unit // each row's
	for c := range fo.ChainNodes {
		for k := range parts {
			q := parts[k][c]
			s.WindowID = append(s.WindowID, q.WindowID...)
			s.WindowStart = append(s.WindowStart, q.WindowStart...)
			s.ChainNodes = append(s.ChainNodes, q.ChainNodes...)
			s.ProbeTime = append(s.ProbeTime, q.ProbeTime...)
			for f := range s.Features {
				s.Features[f] = append(s.Features[f], q.Features[f]...)
			}
			s.LabelRSec = append(s.LabelRSec, q.LabelRSec...)
			s.LabelWaitSec = append(s.LabelWaitSec, q.LabelWaitSec...)
			for _, w := range q.WindowID {
				u := unit{int32(c), w}
				probes[u]++
				units = append(units, u)
			}
		}
	}
	n, all := s.Len(), len(fo.ChainNodes)*fo.Windows
	s.Weight = make([]float64, n)
	for r, u := range units {
		s.Weight[r] = float64(n) / float64(all) / float64(probes[u])
	}
	return features.WriteParquet(filepath.Join(dir, "samples.parquet"), &s, rt.meta(p, traceKey, fo.Config))
}
