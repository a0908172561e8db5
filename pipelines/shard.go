package pipelines

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
