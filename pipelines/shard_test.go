package pipelines_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mirage-hpc/mirage/pipelines"
)

// TestRun_Shards: features-train and evaluate run as shards and merged
// (what the jobs of a sharded Slurm stage run) write the files one
// whole run writes; a merge with a shard missing fails and finishes
// nothing; a shard run twice is a cache hit; the merge removes the
// shards; a shard leaves one Parquet file per chain size.
func TestRun_Shards(t *testing.T) {
	dir := t.TempDir()
	tr := smallTrace(t, dir)
	s := smallStudy(3)
	s.Chains.Nodes = []int{1, 2} // rows ordered by chain size, then window, across shards
	s.Models = []pipelines.ModelSpec{{Kind: "estimate"}}
	s.Policies = append(s.Policies, "oracle-cost")
	s.Sweep = true // λ variants of oracle-cost (the hindsight frontier) travel through the shard files too
	ctx := context.Background()
	whole, sharded := filepath.Join(dir, "whole"), filepath.Join(dir, "sharded")
	want, err := pipelines.Run(ctx, s, pipelines.RunOptions{Trace: tr, Out: whole, Version: "test", Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	step := func(stage string, shards, shard int, merge bool) (pipelines.StageResult, error) {
		t.Helper()
		res, err := pipelines.Run(ctx, s, pipelines.RunOptions{Trace: tr, Out: sharded, Version: "test", Workers: 2,
			Only: stage, Shards: shards, Shard: shard, Merge: merge})
		for _, r := range res {
			if r.Name == stage {
				return r, err
			}
		}
		return pipelines.StageResult{}, err
	}
	mustStep := func(stage string, shards, shard int, merge bool) pipelines.StageResult {
		t.Helper()
		r, err := step(stage, shards, shard, merge)
		if err != nil {
			t.Fatalf("%s shard %d of %d merge %v: %v", stage, shard, shards, merge, err)
		}
		return r
	}
	const n = 3
	mustStep("features-train", n, 0, false)
	mustStep("features-train", n, 1, false)
	if _, err := step("features-train", n, 0, true); err == nil {
		t.Error("merge with shard 2 missing: no error")
	}
	mustStep("features-train", n, 2, false)
	shardFiles(t, sharded, "features-train", "samples-*.parquet", n*len(s.Chains.Nodes))
	if r := mustStep("features-train", n, 2, false); !r.Cached {
		t.Error("shard 2 run twice: not cached")
	}
	mustStep("features-train", n, 0, true)
	mustStep("train-estimate", 0, 0, false)
	for i := range n {
		mustStep("evaluate", n, i, false)
	}
	shardFiles(t, sharded, "evaluate", "rows-*.parquet", n*len(s.Chains.Nodes))
	mustStep("evaluate", n, 0, true)
	mustStep("report", 0, 0, false)
	if _, err := os.Stat(filepath.Join(sharded, "shards", "")); err == nil {
		if left, _ := filepath.Glob(filepath.Join(sharded, "shards", "*")); len(left) > 0 {
			t.Errorf("shards left after the merges: %v", left)
		}
	}

	got, err := pipelines.Run(ctx, s, pipelines.RunOptions{Trace: tr, Out: sharded, Version: "test", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range got {
		if !r.Cached || r.Key != want[i].Key {
			t.Fatalf("%s: cached %v, key %s, want the whole run's %s", r.Name, r.Cached, r.Key, want[i].Key)
		}
		if r.Name == "evaluate" || r.Name == "report" {
			if r.Name == "evaluate" && !bytes.Contains(readFile(t, filepath.Join(r.Dir, "windows.csv")), []byte("oracle-cost@λ=0.3,")) {
				t.Errorf("evaluate/windows.csv: no oracle-cost@λ=0.3 rows")
			}
			for _, f := range []string{"metrics.json", "windows.csv"} {
				a := relocate(t, f, readFile(t, filepath.Join(r.Dir, f)), sharded, whole)
				if b := relocate(t, f, readFile(t, filepath.Join(want[i].Dir, f)), whole, whole); a != b {
					t.Errorf("%s/%s: sharded and whole differ:\n%s", r.Name, f, firstDiff(a, b))
				}
			}
			continue
		}
		if a, b := outputsOf(t, readFile(t, filepath.Join(r.Dir, "meta.json"))), outputsOf(t, readFile(t, filepath.Join(want[i].Dir, "meta.json"))); a != b {
			t.Errorf("%s: sharded and whole outputs differ:\n%s\n%s", r.Name, a, b)
		}
	}
}

// shardFiles checks that the shards of stage under out hold want files
// matching pattern and nothing else but their done files.
func shardFiles(t *testing.T, out, stage, pattern string, want int) {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(out, "shards", stage+"-*", "*-of-*"))
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if ok, _ := filepath.Match(pattern, e.Name()); ok {
				got++
			} else if e.Name() != "done" {
				t.Errorf("%s: unexpected shard file %s", stage, filepath.Join(d, e.Name()))
			}
		}
	}
	if got != want {
		t.Errorf("%s: %d shard files %s, want %d", stage, got, pattern, want)
	}
}
