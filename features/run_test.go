package features_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/simtest"
	"github.com/mirage-hpc/mirage/trace"
)

// runDay0 is 2022-11-01T00:00:00Z.
var runDay0 = time.Date(2022, 11, 1, 0, 0, 0, 0, time.UTC)

// busyTrace returns simtest.BusyJobs(n, days, seed) from runDay0 as
// completed trace jobs.
func busyTrace(n, days int, seed uint64) []trace.Job {
	var out []trace.Job
	for _, sj := range simtest.BusyJobs(n, days, seed, runDay0.Unix()) {
		j := trace.NewJob()
		j.JobID, j.User, j.State = sj.Name, "u"+string(rune('0'+sj.User)), trace.StateCompleted
		j.Submit = time.Unix(sj.Submit, 0).UTC()
		j.Eligible, j.Start = j.Submit, time.Unix(sj.TraceStart, 0).UTC()
		j.End = j.Start.Add(time.Duration(sj.RunSec) * time.Second)
		j.NNodes, j.TimelimitSec, j.ElapsedSec = sj.Nodes, sj.LimitSec, sj.RunSec
		out = append(out, j)
	}
	return out
}

// runProtocol is mirage-ls6 narrowed to 3 windows every 6 h on 8 nodes,
// chains of 1 and 4 nodes, 5 probes, from the trace's second day.
func runProtocol(t *testing.T) features.Protocol {
	t.Helper()
	p, err := features.LookupProtocol("mirage-ls6")
	if err != nil {
		t.Fatal(err)
	}
	p.TZ = "UTC"
	p, err = features.Overrides{Start: "2022-11-02T00:00:00", Windows: 3, Interval: 6 * time.Hour, Probes: "5",
		PartitionNodes: 8, ChainNodes: []int{1, 4}}.Apply(p)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// mustRead returns path's bytes.
func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// medians is a run-time model that predicts half of every job's limit.
var medians = &features.RunTimeModel{Dir: "/models/rt", SHA256: "abc",
	Predict: func(_ []trace.Job, jobs []sim.Job) (*features.RunTimes, error) {
		m := make([]int64, len(jobs))
		for i := range jobs {
			m[i] = jobs[i].LimitSec / 2
		}
		return &features.RunTimes{Dir: "/models/rt", SHA256: "abc", MedianSec: m}, nil
	}}

// TestRun_SameAsBuild: Run writes what Prepare, Build and WriteParquet
// write, with and without a run-time column, and reports Build's summary.
func TestRun_SameAsBuild(t *testing.T) {
	ctx := context.Background()
	tjobs, p := busyTrace(500, 10, 1), runProtocol(t)
	for _, tt := range []struct {
		Name string
		RT   *features.RunTimeModel
	}{{"Plain", nil}, {"RunTimes", medians}} {
		t.Run(tt.Name, func(t *testing.T) {
			dir := t.TempDir()
			in := features.In{Jobs: tjobs, Protocol: p, TraceDigest: "deadbeef", RunTimes: tt.RT}
			got, err := features.Run(ctx, in, features.RunOptions{Workers: 2, Seed: 7, Output: filepath.Join(dir, "run.parquet")})
			if err != nil {
				t.Fatal(err)
			}
			jobs, fo, err := p.Prepare(tjobs)
			if err != nil {
				t.Fatal(err)
			}
			meta := features.FileMeta{Protocol: p.Name, TraceDigest: "deadbeef", Seed: 7, SimConfig: fo.Config, Options: p}
			if tt.RT != nil {
				if fo.RunTimes, err = tt.RT.Predict(tjobs, jobs); err != nil {
					t.Fatal(err)
				}
				meta.RuntimeModel, meta.RuntimeSHA256 = tt.RT.Dir, tt.RT.SHA256
			}
			s, sum, err := features.Build(ctx, jobs, fo)
			if err != nil {
				t.Fatal(err)
			}
			if err := features.WriteParquet(filepath.Join(dir, "build.parquet"), &s, meta); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(mustRead(t, filepath.Join(dir, "run.parquet")), mustRead(t, filepath.Join(dir, "build.parquet"))) {
				t.Error("Run's file differs from Build's")
			}
			if got.Summary != sum || got.Features != len(s.Names) || got.Protocol != p.Name || got.TraceDigest != "deadbeef" || sum.Samples == 0 {
				t.Errorf("summary %+v\nwant Build's %+v with %d features", got, sum, len(s.Names))
			}
		})
	}
}

// TestRunShard_MergeShards: shards of the windows merged give Run's file
// byte for byte, with and without a run-time column, however the windows
// are split.
func TestRunShard_MergeShards(t *testing.T) {
	ctx := context.Background()
	tjobs, p := busyTrace(500, 10, 2), runProtocol(t)
	for _, tt := range []struct {
		Name   string
		RT     *features.RunTimeModel
		Shards int
	}{{"Plain2", nil, 2}, {"Plain3", nil, 3}, {"RunTimes2", medians, 2}} {
		t.Run(tt.Name, func(t *testing.T) {
			dir := t.TempDir()
			in := features.In{Jobs: tjobs, Protocol: p, TraceDigest: "d", RunTimes: tt.RT}
			whole, err := features.Run(ctx, in, features.RunOptions{Output: filepath.Join(dir, "whole.parquet")})
			if err != nil {
				t.Fatal(err)
			}
			parts := make([][]*features.Samples, tt.Shards)
			for k := range parts {
				a, b := p.Windows*k/tt.Shards, p.Windows*(k+1)/tt.Shards
				out, meta, err := features.RunShard(ctx, in, features.RunOptions{}, a, b)
				if err != nil {
					t.Fatal(err)
				}
				if len(out) != len(p.ChainNodes) || meta.RuntimeModel != dirOf(tt.RT) {
					t.Fatalf("shard %d: %d chain sizes, run-time model %q", k, len(out), meta.RuntimeModel)
				}
				for c := range out {
					for _, w := range out[c].WindowID {
						if int(w) < a || int(w) >= b {
							t.Fatalf("shard %d [%d, %d): window id %d", k, a, b, w)
						}
					}
					parts[k] = append(parts[k], &out[c])
				}
			}
			merged, err := features.MergeShards(ctx, in, features.RunOptions{Output: filepath.Join(dir, "merged.parquet")}, parts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(mustRead(t, filepath.Join(dir, "whole.parquet")), mustRead(t, filepath.Join(dir, "merged.parquet"))) {
				t.Error("merged file differs from Run's")
			}
			if merged.Summary != whole.Summary {
				t.Errorf("merged summary %+v, want Run's %+v", merged.Summary, whole.Summary)
			}
		})
	}
}

// dirOf is rt's directory, "" for nil.
func dirOf(rt *features.RunTimeModel) string {
	if rt == nil {
		return ""
	}
	return rt.Dir
}

// TestRun_Errors: the fit check (skipped with FitChecked), a failing
// run-time model and a missing output.
func TestRun_Errors(t *testing.T) {
	ctx := context.Background()
	p := runProtocol(t)
	wide := busyTrace(300, 10, 3)
	for i := range 30 { // 10% of the jobs wider than the 8-node partition
		wide[i].NNodes = 16
	}
	failing := &features.RunTimeModel{Dir: "x", SHA256: "y", Predict: func([]trace.Job, []sim.Job) (*features.RunTimes, error) {
		return nil, errors.New("model gone")
	}}
	tests := []struct {
		Name string
		In   features.In
		Opts features.RunOptions
		Err  error  // wrapped, nil for none
		Msg  string // the message's start
		// NoOutput leaves Opts.Output empty (else a temporary file).
		NoOutput bool
	}{
		{"ErrUnfit", features.In{Jobs: wide, Protocol: p}, features.RunOptions{PartitionFlag: "--partition-nodes"}, sim.ErrUnfit, "features build: ", false},
		{"FitChecked", features.In{Jobs: wide, Protocol: p}, features.RunOptions{FitChecked: true}, nil, "", false},
		{"AllowSkip", features.In{Jobs: wide, Protocol: p}, features.RunOptions{AllowSkip: true}, nil, "", false},
		{"ErrRunTimes", features.In{Jobs: busyTrace(300, 10, 3), Protocol: p, RunTimes: failing}, features.RunOptions{}, nil, "features build: model gone", false},
		{"ErrNoOutput", features.In{Jobs: wide, Protocol: p}, features.RunOptions{FitChecked: true}, features.ErrOptions, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			if !tt.NoOutput {
				tt.Opts.Output = filepath.Join(t.TempDir(), "s.parquet")
			}
			sum, err := features.Run(ctx, tt.In, tt.Opts)
			switch {
			case tt.Err == nil && tt.Msg == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case tt.Err != nil && !errors.Is(err, tt.Err):
				t.Fatalf("error %v\nwant one wrapping %v", err, tt.Err)
			case tt.Msg != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.Msg)):
				t.Fatalf("error %v\nwant one starting %q", err, tt.Msg)
			}
			if tt.Name == "AllowSkip" && len(sum.Warnings) == 0 {
				t.Error("AllowSkip: no warning about the wide jobs")
			}
		})
	}
}
