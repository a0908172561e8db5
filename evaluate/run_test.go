package evaluate_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/sim"
)

// sampleTrace ingests data/synth-500.sacct (two and a half days of LS6-like
// jobs) and returns its path.
func sampleTrace(t *testing.T) string {
	t.Helper()
	loc, err := time.LoadLocation("America/Chicago")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "synth.parquet")
	if _, err := ingest.Run(context.Background(), []string{"../data/synth-500.sacct"}, path, ingest.Options{Location: loc}); err != nil {
		t.Fatal(err)
	}
	return path
}

// sampleProtocol is the ls6 preset cut to fit sampleTrace: three short
// windows of chains of 1 and 2 nodes.
func sampleProtocol(t *testing.T) features.Protocol {
	t.Helper()
	p, err := features.LookupProtocol("ls6")
	if err != nil {
		t.Fatal(err)
	}
	p.Start, p.Windows, p.Interval = "2022-11-01T12:00:00", 3, 6*time.Hour
	p.Warmup, p.Workload = 12*time.Hour, 24*time.Hour
	p.ChainNodes = []int{1, 2}
	return p
}

func sampleOptions(out string) evaluate.RunOptions {
	return evaluate.RunOptions{
		Policies:    evaluate.PolicySpec{List: "reactive,avg,slurm-estimate,oracle,oracle-cost", MarginsSec: []int64{0, 900}},
		Lambda:      evaluate.DefaultLambda,
		DecisionSec: 600,
		Workers:     2,
		Output:      out,
	}
}

func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, f := range []string{"metrics.json", "windows.csv"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		out[f] = b
	}
	return out
}

// TestRun_ShardsMerge: Run, and RunShard over windows [0, 1) and [1, 3)
// merged by Merge, write the same bytes; Run's summary holds the policies
// in the replay's order and the rows it wrote.
func TestRun_ShardsMerge(t *testing.T) {
	ctx := context.Background()
	in := evaluate.In{Trace: sampleTrace(t), Protocol: sampleProtocol(t)}
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole")
	sum, err := evaluate.Run(ctx, in, sampleOptions(whole))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"reactive", "avg", "slurm-estimate@margin=0", "slurm-estimate@margin=0.25", "oracle", "oracle-cost"}
	if !slices.Equal(sum.Policies, want) || len(sum.Rows) != 2*3*len(want) || sum.Metrics.Windows != 6 {
		t.Fatalf("Run: policies %v, %d rows, %d windows; want %v, %d rows, 6 windows", sum.Policies, len(sum.Rows), sum.Metrics.Windows, want, 2*3*len(want))
	}
	var shards [][][]evaluate.Row
	for _, w := range [][2]int{{0, 1}, {1, 3}} {
		rows, err := evaluate.RunShard(ctx, in, sampleOptions(""), w[0], w[1])
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, rows)
	}
	merged := filepath.Join(dir, "merged")
	msum, err := evaluate.Merge(ctx, in, sampleOptions(merged), shards)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(msum.Policies, want) {
		t.Errorf("Merge: policies %v, want %v", msum.Policies, want)
	}
	a, b := readDir(t, whole), readDir(t, merged)
	for f := range a {
		if !bytes.Equal(a[f], b[f]) {
			t.Errorf("%s: merged shards differ from Run's", f)
		}
	}
	if _, err := evaluate.RunShard(ctx, in, sampleOptions(""), 2, 4); !errors.Is(err, features.ErrOptions) {
		t.Errorf("RunShard windows [2, 4) of 3: %v, want ErrOptions", err)
	}
}

// TestRun_Errors: a bad policy list is a *PolicyListError wrapping
// ErrPolicy, before the trace is read; a trace wider than the partition
// fails the fit check (sim.ErrUnfit) unless AllowSkip or NoFitCheck.
func TestRun_Errors(t *testing.T) {
	ctx := context.Background()
	t.Run("ErrPolicy", func(t *testing.T) {
		o := sampleOptions("")
		o.Policies.List = "reactive,oracle-cots"
		_, err := evaluate.Run(ctx, evaluate.In{Trace: "no such file", Protocol: sampleProtocol(t)}, o)
		var pe *evaluate.PolicyListError
		if !errors.As(err, &pe) || !errors.Is(err, evaluate.ErrPolicy) {
			t.Errorf("Run: %v, want a PolicyListError wrapping ErrPolicy", err)
		}
	})
	t.Run("ErrUnfit", func(t *testing.T) {
		in := evaluate.In{Trace: sampleTrace(t), Protocol: sampleProtocol(t)}
		in.Protocol.Nodes = 1
		o := sampleOptions("")
		o.Policies.List, o.FitFlag = "reactive", "--partition-nodes"
		if _, err := evaluate.Run(ctx, in, o); !errors.Is(err, sim.ErrUnfit) {
			t.Fatalf("Run on 1 node: %v, want ErrUnfit", err)
		}
		o.NoFitCheck = true
		in.Protocol.ChainNodes = []int{1}
		if _, err := evaluate.Run(ctx, in, o); err != nil {
			t.Errorf("Run on 1 node without the fit check: %v", err)
		}
	})
}
