package pipelines_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/pipelines"
)

// fakeSlurm is a Command that records sbatch calls, numbers the jobs 1,
// 2, ... and answers squeue from states (a job it does not list is
// unknown, as one squeue has forgotten).
type fakeSlurm struct {
	submitted [][]string // each sbatch's arguments, the script last
	states    map[string]string
}

func (f *fakeSlurm) command(_ context.Context, name string, args ...string) ([]byte, error) {
	switch name {
	case "sbatch":
		f.submitted = append(f.submitted, args)
		return fmt.Appendf(nil, "%d\n", len(f.submitted)), nil
	case "squeue":
		var ids []string
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, "--jobs="); ok {
				ids = strings.Split(v, ",")
			}
		}
		var out strings.Builder
		for _, id := range ids {
			if s, ok := f.states[id]; ok {
				fmt.Fprintf(&out, "%s|%s|None\n", id, s)
			}
		}
		if out.Len() == 0 {
			return nil, errors.New("squeue: exit status 1: slurm_load_jobs error: Invalid job id specified")
		}
		return []byte(out.String()), nil
	}
	return nil, fmt.Errorf("fake slurm: no %s", name)
}

// submissions returns, per sbatch call, "STAGE after=DEPS".
func (f *fakeSlurm) submissions(from int) []string {
	var out []string
	for _, args := range f.submitted[from:] {
		stage := strings.TrimSuffix(filepath.Base(args[len(args)-1]), ".sh")
		deps := ""
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, "--dependency=afterok:"); ok {
				deps = v
			}
		}
		out = append(out, stage+" after="+deps)
	}
	return out
}

// finish writes a stage's meta.json as if its job had finished.
func finish(t *testing.T, r pipelines.StageResult) {
	t.Helper()
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]string{"stage": r.Name, "key": r.Key})
	if err := os.WriteFile(filepath.Join(r.Dir, "meta.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSlurmExecutor_Dependencies: each stale stage is one sbatch after
// the jobs of the stages it reads; a rerun while they are queued submits
// nothing; after a failure, only the failed stage and what reads it are
// resubmitted, after the jobs of the stages that are still not finished;
// status (Jobs) reports the failed job with its exit status and log.
func TestSlurmExecutor_Dependencies(t *testing.T) {
	dir := t.TempDir()
	tr := smallTrace(t, dir)
	out := filepath.Join(dir, "out")
	fake := &fakeSlurm{states: map[string]string{}}
	exec, err := pipelines.NewSlurmExecutor("/opt/mirage/bin/mirage", fake.command)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	o := pipelines.RunOptions{Trace: tr, Out: out, Version: "test", Executor: exec}
	res, err := pipelines.Run(ctx, smallStudy(2), o)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"features-train after=", "train-forest-interrupt after=1", "train-estimate after=1",
		"evaluate after=2:3", "report after=4"}
	if got := fake.submissions(0); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("first run submitted\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, r := range res {
		if r.Job == nil || r.Job.ID != fmt.Sprint(i+1) || r.Cached || r.Key == "" {
			t.Errorf("result %+v", r)
		}
	}

	for id := range 5 {
		fake.states[fmt.Sprint(id+1)] = "PENDING"
	}
	if _, err := pipelines.Run(ctx, smallStudy(2), o); err != nil {
		t.Fatal(err)
	}
	if got := fake.submissions(5); len(got) != 0 {
		t.Errorf("rerun while queued submitted %v", got)
	}

	// features and the estimate finished; the forest failed (its exit
	// status written, squeue has forgotten it); evaluate and report
	// were cancelled.
	finish(t, res[0])
	finish(t, res[2])
	fake.states = map[string]string{"1": "COMPLETED", "3": "COMPLETED", "4": "CANCELLED", "5": "CANCELLED"}
	if err := os.WriteFile(filepath.Join(out, "slurm", "train-forest-interrupt.2.exit"), []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	status, err := pipelines.Run(ctx, smallStudy(2), pipelines.RunOptions{Trace: tr, Out: out, Version: "test", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := exec.Jobs(ctx, out, status); err != nil {
		t.Fatal(err)
	}
	forest := status[1].Job
	if forest == nil || forest.State != "FAILED" || forest.ExitCode == nil || *forest.ExitCode != 1 ||
		forest.Log != filepath.Join(out, "slurm", "logs", "train-forest-interrupt-2.log") {
		t.Errorf("status of the failed forest: %+v", forest)
	}
	if j := status[3].Job; j == nil || j.State != "CANCELLED" {
		t.Errorf("status of evaluate: %+v", j)
	}

	if _, err := pipelines.Run(ctx, smallStudy(2), o); err != nil {
		t.Fatal(err)
	}
	want = []string{"train-forest-interrupt after=", "evaluate after=6", "report after=7"}
	if got := fake.submissions(5); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rerun after the failure submitted\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSlurmExecutor_Ingest: with the study's trace.inputs, ingest is a
// job and every stage after it is submitted with its key not yet known
// (its job computes it); the job reads a copy of the study whose inputs
// are absolute; the study's slurm section and device reach sbatch.
func TestSlurmExecutor_Ingest(t *testing.T) {
	dir := t.TempDir()
	smallTrace(t, dir) // dir/t.sacct
	s := smallStudy(2)
	s.Trace.Inputs, s.Trace.Cluster = []string{"t.sacct"}, "small"
	s.Models = []pipelines.ModelSpec{{Kind: "xgboost"}}
	s.Device = "cuda"
	s.Slurm = &pipelines.SlurmSpec{Partition: "gpu", CPUs: 4, Time: pipelines.SlurmTimes{Train: pipelines.Duration(7200e9)}}
	b, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "study.yaml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := pipelines.Load(path, b)
	if err != nil {
		t.Fatal(err)
	}
	fake := &fakeSlurm{}
	exec, _ := pipelines.NewSlurmExecutor("mirage", fake.command)
	res, err := pipelines.Run(context.Background(), loaded, pipelines.RunOptions{Out: filepath.Join(dir, "out"), Version: "test", Executor: exec})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ingest after=", "features-train after=1", "train-xgboost after=2", "evaluate after=1:3", "report after=4"}
	if got := fake.submissions(0); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("submitted\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res[0].Key == "" || res[1].Key != "" || res[1].Dir != "" {
		t.Errorf("ingest key %q, features key %q dir %q: want known, unknown, unknown", res[0].Key, res[1].Key, res[1].Dir)
	}
	trainArgs := strings.Join(fake.submitted[2], " ")
	for _, w := range []string{"--partition=gpu", "--cpus-per-task=4", "--time=0-02:00:00", "--gres=gpu:1"} {
		if !strings.Contains(trainArgs, w) {
			t.Errorf("train sbatch %s: no %s", trainArgs, w)
		}
	}
	if strings.Contains(strings.Join(fake.submitted[1], " "), "--gres") {
		t.Errorf("features asks a GPU: %v", fake.submitted[1])
	}
	copies, _ := filepath.Glob(filepath.Join(dir, "out", "slurm", "study-*.yaml"))
	if len(copies) != 1 {
		t.Fatalf("study copies %v", copies)
	}
	c, err := pipelines.Resolve(copies[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := c.InputPaths(); len(got) != 1 || got[0] != filepath.Join(dir, "t.sacct") {
		t.Errorf("the jobs' study reads %v", got)
	}
}

// TestSlurmExecutor_Shards: with slurm.shards, features-train and
// evaluate are each a job array (at most one task per window) and a
// merge job after it; what reads them waits for the merge.
func TestSlurmExecutor_Shards(t *testing.T) {
	dir := t.TempDir()
	tr := smallTrace(t, dir)
	s := smallStudy(2)
	s.Slurm = &pipelines.SlurmSpec{Shards: 4}
	fake := &fakeSlurm{}
	exec, _ := pipelines.NewSlurmExecutor("mirage", fake.command)
	res, err := pipelines.Run(context.Background(), s, pipelines.RunOptions{Trace: tr, Out: filepath.Join(dir, "out"), Version: "test", Executor: exec})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"features-train-shards after=", "features-train after=1", "train-forest-interrupt after=2", "train-estimate after=2",
		"evaluate-shards after=3:4", "evaluate after=5", "report after=6"}
	if got := fake.submissions(0); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("submitted\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, arr := range map[int]string{0: "--array=0-3", 4: "--array=0-1"} { // 2 validation windows: 2 tasks
		if args := strings.Join(fake.submitted[i], " "); !strings.Contains(args, arr) {
			t.Errorf("sbatch %d: %s: no %s", i+1, args, arr)
		}
	}
	if j := res[0].Job; j == nil || j.ID != "2" || j.Shards == nil || j.Shards.ID != "1" {
		t.Errorf("features-train job %+v", j)
	}
}

// TestSlurmExecutor_DQNAndPredictions: the DQN's job reads only the
// trace (no dependency on the features job); features-validation reads
// the trace, each predict job its model and the validation features, and
// report the evaluation and the predictions.
func TestSlurmExecutor_DQNAndPredictions(t *testing.T) {
	dir := t.TempDir()
	tr := smallTrace(t, dir)
	fake := &fakeSlurm{states: map[string]string{}}
	exec, err := pipelines.NewSlurmExecutor("/opt/mirage/bin/mirage", fake.command)
	if err != nil {
		t.Fatal(err)
	}
	s := smallStudy(2)
	s.Models = []pipelines.ModelSpec{{Kind: "forest"}, {Kind: "dqn", Episodes: 2}}
	s.Predictions = true
	if _, err := pipelines.Run(context.Background(), s, pipelines.RunOptions{Trace: tr, Out: filepath.Join(dir, "out"), Version: "test", Executor: exec}); err != nil {
		t.Fatal(err)
	}
	want := []string{"features-train after=", "train-forest after=1", "train-dqn after=", "features-validation after=",
		"predict-forest after=2:4", "evaluate after=2:3", "report after=6:5"}
	if got := fake.submissions(0); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("submitted\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
