package pipelines_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/internal/atomicfile"
	"github.com/mirage-hpc/mirage/pipelines"
)

// TestRun_CacheDamaged: a finished stage whose outputs no longer match
// its meta.json is not a cache hit: a truncated samples.parquet, a
// deleted model manifest and (on Linux, by its ctime) a byte changed in
// place with its size and mtime kept are each reported by status
// (Damaged, not Cached) and redone by run, which logs why; the redone
// outputs are the same bytes, and the stages after them stay cached.
func TestRun_CacheDamaged(t *testing.T) {
	dir := t.TempDir()
	tr := smallTrace(t, dir)
	out := filepath.Join(dir, "out")
	s := smallStudy(2)
	s.Models = []pipelines.ModelSpec{{Kind: "estimate"}}
	var logs bytes.Buffer
	run := func(dry bool) map[string]pipelines.StageResult {
		t.Helper()
		logs.Reset()
		res, err := pipelines.Run(context.Background(), s, pipelines.RunOptions{Trace: tr, Out: out, Version: "test", Workers: 2, DryRun: dry,
			Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]pipelines.StageResult{}
		for _, r := range res {
			m[r.Name] = r
		}
		return m
	}
	first := run(false)
	outputs := map[string]string{}
	for name, r := range first {
		outputs[name] = outputsOf(t, readFile(t, filepath.Join(r.Dir, "meta.json")))
	}
	for _, tc := range []struct {
		stage, why string
		damage     func(dir string) error
	}{
		{"features-train", "samples.parquet: size 100, want ", func(dir string) error {
			return os.Truncate(filepath.Join(dir, "samples.parquet"), 100)
		}},
		{"train-estimate", "estimate/manifest.json: missing", func(dir string) error {
			return os.Remove(filepath.Join(dir, "estimate", "manifest.json"))
		}},
		{"evaluate", "metrics.json: sha256 ", func(dir string) error {
			if runtime.GOOS != "linux" {
				return errors.ErrUnsupported
			}
			time.Sleep(20 * time.Millisecond) // the ctime moves on a clock tick
			path := filepath.Join(dir, "metrics.json")
			st, err := os.Stat(path)
			if err != nil {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			b[len(b)/2] ^= 1
			if err := os.WriteFile(path, b, 0o644); err != nil {
				return err
			}
			return os.Chtimes(path, st.ModTime(), st.ModTime())
		}},
	} {
		if err := tc.damage(first[tc.stage].Dir); errors.Is(err, errors.ErrUnsupported) {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		for _, dry := range []bool{true, false} {
			for name, r := range run(dry) {
				damaged := name == tc.stage
				if r.Cached == damaged || (r.Damaged != "") != damaged || !strings.HasPrefix(r.Damaged, tc.why) && damaged {
					t.Errorf("%s damaged, dry run %v: %s cached %v, damaged %q", tc.stage, dry, name, r.Cached, r.Damaged)
				}
			}
			if want := tc.stage + ": " + tc.why; !dry && !strings.Contains(logs.String(), want) {
				t.Errorf("%s damaged: the run's log has no %q:\n%s", tc.stage, want, logs.String())
			}
		}
		redone := run(true)[tc.stage]
		if got := outputsOf(t, readFile(t, filepath.Join(redone.Dir, "meta.json"))); !redone.Cached || got != outputs[tc.stage] {
			t.Errorf("%s redone: cached %v, outputs %s, want %s", tc.stage, redone.Cached, got, outputs[tc.stage])
		}
	}
	for name, r := range run(false) {
		if !r.Cached {
			t.Errorf("untouched cache: %s ran", name)
		}
	}
}

// TestRun_Locks: a pipeline run of an output directory that another live
// run holds (OUT/.pipeline.lock) fails at once with atomicfile.ErrLocked
// naming the directory, and changes nothing; a stage run alone (Only:
// what a Slurm job runs) takes no whole-directory lock but its stage's
// lock, so the jobs of different stages run beside each other and two of
// one stage do not.
func TestRun_Locks(t *testing.T) {
	dir := t.TempDir()
	tr := smallTrace(t, dir)
	out := filepath.Join(dir, "out")
	s := smallStudy(2)
	s.Models = []pipelines.ModelSpec{{Kind: "estimate"}}
	ctx := context.Background()
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	whole, err := atomicfile.TryLock(filepath.Join(out, "pipeline"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = pipelines.Run(ctx, s, pipelines.RunOptions{Trace: tr, Out: out, Version: "test"})
	if !errors.Is(err, atomicfile.ErrLocked) || !strings.Contains(err.Error(), out+": output is being written by another process") {
		t.Fatalf("run of a locked output: %v, want ErrLocked naming %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(out, "stages")); !os.IsNotExist(err) {
		t.Errorf("run of a locked output made stages: %v", err)
	}
	res, err := pipelines.Run(ctx, s, pipelines.RunOptions{Trace: tr, Out: out, Version: "test", Only: "features-train"})
	if err != nil {
		t.Fatalf("run-stage beside a pipeline run: %v", err)
	}
	if _, err := pipelines.Run(ctx, s, pipelines.RunOptions{Trace: tr, Out: out, Version: "test", DryRun: true}); err != nil {
		t.Errorf("status of a locked output: %v", err)
	}
	whole.Unlock()
	feats := res[0]
	stageLock, err := atomicfile.TryLock(feats.Dir + ".stage") // a job of features-train running
	if err != nil {
		t.Fatal(err)
	}
	defer stageLock.Unlock()
	_, err = pipelines.Run(ctx, s, pipelines.RunOptions{Trace: tr, Out: out, Version: "test", Only: "features-train", Force: []string{"features-train"}})
	if !errors.Is(err, atomicfile.ErrLocked) || !strings.Contains(err.Error(), feats.Dir+": output is being written") {
		t.Errorf("second job of one stage: %v, want ErrLocked naming %s", err, feats.Dir)
	}
	if _, err := pipelines.Run(ctx, s, pipelines.RunOptions{Trace: tr, Out: out, Version: "test", Only: "train-estimate"}); err != nil {
		t.Errorf("job of another stage: %v", err)
	}
}

// TestRun_ShardDamaged: a finished shard's done file lists its files; a
// truncated shard file makes the merge fail naming the shard and why,
// and the shard's task redo it (not a cache hit), after which the merge
// succeeds.
func TestRun_ShardDamaged(t *testing.T) {
	dir := t.TempDir()
	tr := smallTrace(t, dir)
	out := filepath.Join(dir, "out")
	s := smallStudy(2)
	s.Models = nil
	ctx := context.Background()
	step := func(shard int, merge bool) (pipelines.StageResult, error) {
		res, err := pipelines.Run(ctx, s, pipelines.RunOptions{Trace: tr, Out: out, Version: "test", Only: "features-train", Shards: 2, Shard: shard, Merge: merge})
		for _, r := range res {
			if r.Name == "features-train" {
				return r, err
			}
		}
		return pipelines.StageResult{}, err
	}
	for i := range 2 {
		if _, err := step(i, false); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(out, "shards", "features-train-*", "0-of-2", "samples-0.parquet"))
	if len(files) != 1 {
		t.Fatalf("shard 0's files: %v", files)
	}
	if err := os.Truncate(files[0], 100); err != nil {
		t.Fatal(err)
	}
	if _, err := step(0, true); err == nil || !strings.Contains(err.Error(), "shard 0 of 2") || !strings.Contains(err.Error(), "samples-0.parquet: size 100, want ") {
		t.Errorf("merge of a truncated shard: %v", err)
	}
	if r, err := step(0, false); err != nil || r.Cached {
		t.Errorf("truncated shard's task: cached %v, %v; want it redone", r.Cached, err)
	}
	if r, err := step(1, false); err != nil || !r.Cached {
		t.Errorf("untouched shard's task: cached %v, %v; want a cache hit", r.Cached, err)
	}
	if r, err := step(0, true); err != nil || r.Cached {
		t.Errorf("merge: cached %v, %v", r.Cached, err)
	}
}
