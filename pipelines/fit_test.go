package pipelines_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/pipelines"
	"github.com/mirage-hpc/mirage/trace"
)

// startUnknown returns jobs as jobsEvery makes them, but run from a start
// the trace did not record (an SWF wait of -1).
func startUnknown(jobs []trace.Job) []trace.Job {
	for i := range jobs {
		j := &jobs[i]
		j.ElapsedSec = int64(j.End.Sub(j.Start) / time.Second)
		j.Start, j.End, j.StartUnknown = time.Time{}, time.Time{}, true
	}
	return jobs
}

// TestPropose_NoStarts: a trace whose waits are all unknown needs the
// partition size, and then gets cold windows without inference.
func TestPropose_NoStarts(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	jobs := startUnknown(jobsEvery(t0, 60*24, time.Hour, 3*time.Hour, 3))
	_, err := pipelines.Propose(jobs, pipelines.ProposeOptions{Name: "x"})
	const want = "invalid study: the trace records no job's start: 1440 of its 1440 jobs with a submit time ran from a start it did not record (an SWF wait time of -1), 0 never ran, so its waits are unknown, and the partition size cannot be inferred: give it (study init --partition-nodes N; make run NODES=N), and the study will use cold windows without inferred dependencies or capacity"
	if !errors.Is(err, pipelines.ErrStudy) || err.Error() != want {
		t.Fatalf("Propose error:\n%v\nwant\n%s", err, want)
	}
	p, err := pipelines.Propose(jobs, pipelines.ProposeOptions{Name: "x", PartitionNodes: 9})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Study.Cluster
	if p.Study.Periods.Mode != "cold" || c.InferDependencies || c.InferCapacity || c.Nodes != 9 || c.Calibrate || p.Study.RealChains {
		t.Errorf("mode %s, cluster %+v; want cold windows on 9 nodes without inference", p.Study.Periods.Mode, c)
	}
	if err := p.Study.CheckFit(jobs); err != nil {
		t.Errorf("CheckFit of the proposal: %v", err)
	}
	warm := *p.Study
	warm.Periods.Mode = "warm"
	if err := warm.CheckFit(jobs); !errors.Is(err, pipelines.ErrStudy) || !strings.Contains(err.Error(), "set periods.mode: cold") {
		t.Errorf("CheckFit of warm windows: %v, want an error naming periods.mode: cold", err)
	}
}

// TestPropose_PartitionTooSmall: a given partition size that the trace's
// jobs do not fit, or far overload, is refused naming the flag.
func TestPropose_PartitionTooSmall(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	jobs := jobsEvery(t0, 60*24, time.Hour, 3*time.Hour, 3)
	_, err := pipelines.Propose(jobs, pipelines.ProposeOptions{Name: "x", PartitionNodes: 2})
	const wide = "invalid study: 1440 of 1440 jobs (100.0%; 100.0% of the node-hours) need more than the partition's 2 nodes and are skipped; the widest needs 3 nodes: set --partition-nodes 9 (or more) to simulate them (with make run: NODES=N)"
	if err == nil || err.Error() != wide {
		t.Errorf("2 nodes: %v\nwant %s", err, wide)
	}
	_, err = pipelines.Propose(jobs, pipelines.ProposeOptions{Name: "x", PartitionNodes: 3})
	if err == nil || !strings.Contains(err.Error(), "probably a partition-size or run-time error: set --partition-nodes 9 (or the cluster's size)") {
		t.Errorf("3 nodes (3x overloaded): %v, want the overload error naming --partition-nodes 9", err)
	}
}

// TestStudy_CheckFit: jobs wider than the study's partition stop a run
// unless cluster.allow_skip.
func TestStudy_CheckFit(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	jobs := jobsEvery(t0, 100, time.Hour, time.Hour, 1)
	jobs[50].NNodes, jobs[50].JobID = 200, "wide"
	s, _, err := pipelines.Builtin("synth")
	if err != nil {
		t.Fatal(err)
	}
	err = s.CheckFit(jobs)
	if !errors.Is(err, pipelines.ErrStudy) || !strings.Contains(err.Error(), "the widest, job wide, needs 200 nodes: set cluster.nodes: 200 (or more) to simulate them in the study file (or delete it and rerun make run NODES=200), or set cluster.allow_skip: true to run without them") {
		t.Errorf("CheckFit: %v", err)
	}
	s.Cluster.AllowSkip = true
	if err := s.CheckFit(jobs); err != nil {
		t.Errorf("CheckFit with allow_skip: %v", err)
	}
	// 5 one-node jobs at once on 1 node: 5x overloaded.
	s.Cluster.Nodes = 1
	err = s.CheckFit(jobsEvery(t0, 100, time.Hour, 5*time.Hour, 1))
	if !errors.Is(err, pipelines.ErrStudy) || !strings.Contains(err.Error(), "probably a partition-size or run-time error: set cluster.nodes: 5 (or the cluster's size)") {
		t.Errorf("CheckFit of an overloaded partition: %v", err)
	}
}

// TestRun_RefusesUnfitTrace: a pipeline whose partition is far too small
// for the trace stops before any stage, naming cluster.nodes.
func TestRun_RefusesUnfitTrace(t *testing.T) {
	dir := t.TempDir()
	tr := smallTrace(t, dir)
	s := smallStudy(2)
	s.Cluster.Nodes = 4
	res, err := pipelines.Run(context.Background(), s, pipelines.RunOptions{Trace: tr, Out: filepath.Join(dir, "out")})
	if !errors.Is(err, pipelines.ErrStudy) || !strings.Contains(err.Error(), "set cluster.nodes: ") || len(res) != 0 {
		t.Errorf("Run on 4 nodes: %d stages, error %v; want none run and an error naming cluster.nodes", len(res), err)
	}
}
