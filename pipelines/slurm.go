package pipelines

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mirage-hpc/mirage/internal/atomicfile"
)

// Command runs the program name with args and returns its standard
// output; an error names the program and carries its standard error.
// The Slurm executor runs sbatch and squeue through one, so tests can
// fake them.
type Command func(ctx context.Context, name string, args ...string) ([]byte, error)

// ExecCommand runs a program with os/exec: the Command the Slurm executor
// uses when given none.
func ExecCommand(ctx context.Context, name string, args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	c := exec.CommandContext(ctx, name, args...)
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("%s: %w: %s", name, err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// SlurmExecutor submits each stale stage of a Run as an sbatch job that
// runs `mirage pipeline run-stage` for that stage alone, with
// --dependency=afterok on the jobs of the stages it reads (and
// --kill-on-invalid-dep=yes, so a failed stage cancels what reads it).
// Fresh stages are not submitted; a stage whose job of the same key is
// still pending or running is not submitted again. The jobs write into
// the same OUT/stages/NAME-KEY directories as the local executor (OUT
// must be on a file system every node sees), so either one's finished
// stage is a cache hit for the other. Run returns once every stale stage
// is submitted; pipeline status (Jobs) follows the jobs.
//
// Under OUT/slurm/ it writes, per stage: NAME.sh (the batch script),
// NAME.json (the job: SlurmJob), logs/NAME-JOBID.log (the job's output)
// and NAME.JOBID.exit (the exit status the job wrote); and the study the
// jobs read, study-HASH.yaml (trace.inputs and features.runtime_model
// made absolute). A sharded stage (slurm.shards > 1: features-train,
// features-validation, evaluate) is a job array,
// NAME-shards.sh with logs/NAME-shards-JOBID_TASK.log, writing
// OUT/shards/NAME-KEY16/I-of-N/, and then NAME.sh, the job that merges
// them.
type SlurmExecutor struct {
	// Binary is the mirage executable the jobs run: an absolute path
	// every node sees.
	Binary string
	// Command runs sbatch and squeue; nil is ExecCommand.
	Command Command
}

// SlurmJob is a stage's Slurm job: what the Slurm executor submitted and,
// from Jobs, its state.
type SlurmJob struct {
	// ID is the Slurm job id.
	ID string `json:"job_id"`
	// Key is the stage's key at submission; "" when it was not known
	// then (a stage after an ingest submitted in the same run).
	Key string `json:"key"`
	// Script is the batch script, Log the job's stdout and stderr.
	Script string `json:"script"`
	Log    string `json:"log"`
	// After are the job ids it waits for (afterok).
	After []string `json:"after,omitempty"`
	// Reused says the job was submitted by an earlier run and was still
	// pending or running, so this run did not submit the stage again.
	Reused bool `json:"reused,omitempty"`
	// State is Slurm's job state (PENDING, RUNNING, COMPLETED, FAILED,
	// CANCELLED, TIMEOUT, ...) from squeue, else COMPLETED or FAILED from
	// the exit status the job wrote, else UNKNOWN (cancelled or killed
	// once squeue had forgotten it); "" when not looked up.
	State string `json:"state,omitempty"`
	// Reason is squeue's reason for a pending or ended job (Dependency,
	// DependencyNeverSatisfied, NonZeroExitCode, ...).
	Reason string `json:"reason,omitempty"`
	// ExitCode is the exit status the job wrote; nil when it wrote none.
	ExitCode *int `json:"exit_code,omitempty"`
	// Shards is the job array of a sharded stage (slurm.shards): this
	// job then merges the shards after it. Its State is the worst of its
	// tasks' (a failed task's, else a running one's); its Log names the
	// tasks' logs with * for the task.
	Shards *SlurmJob `json:"shards,omitempty"`
}

// Active says whether the job is still queued or running.
func (j *SlurmJob) Active() bool {
	switch j.State {
	case "PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED",
		"RESIZING", "SUSPENDED", "SIGNALING", "STAGE_OUT":
		return true
	}
	return false
}

// NewSlurmExecutor returns a Slurm executor whose jobs run binary (made
// absolute) and which runs sbatch and squeue with cmd (nil: ExecCommand).
func NewSlurmExecutor(binary string, cmd Command) (*SlurmExecutor, error) {
	abs, err := filepath.Abs(binary)
	if err != nil {
		return nil, fmt.Errorf("slurm executor: binary %s: %w", binary, err)
	}
	if cmd == nil {
		cmd = ExecCommand
	}
	return &SlurmExecutor{Binary: abs, Command: cmd}, nil
}

func (e *SlurmExecutor) runsHere() bool { return false }

func (e *SlurmExecutor) command() Command {
	if e.Command == nil {
		return ExecCommand
	}
	return e.Command
}

func (e *SlurmExecutor) run(ctx context.Context, env *runEnv, stages []stage, after []StageResult) ([]StageResult, error) {
	if env.o.DryRun || env.o.Only != "" {
		return localExecutor{}.run(ctx, env, stages, after)
	}
	for _, p := range []struct{ what, path string }{{"output directory", env.o.Out}, {"trace", env.trace}, {"mirage binary", e.Binary}} {
		if err := CheckSlurmPath(p.what, p.path); err != nil { // before the first submission
			return nil, err
		}
	}
	var out []StageResult
	for _, st := range stages {
		reads := after
		if st.after != nil { // a stage that reads less than the batch (train-dqn: the trace only)
			reads = *st.after
		}
		var deps []string
		for _, a := range reads {
			if a.Job != nil {
				deps = append(deps, a.Job.ID)
			}
		}
		res, err := e.stage(ctx, env, st, deps)
		if err != nil {
			return out, fmt.Errorf("pipeline: stage %s: %w", st.name, err)
		}
		out = append(out, res)
	}
	return out, nil
}

// stage returns a fresh stage as cached, an active job of the same key
// as reused, and otherwise submits the stage after deps.
func (e *SlurmExecutor) stage(ctx context.Context, env *runEnv, st stage, deps []string) (StageResult, error) {
	o := env.o
	res := StageResult{Name: st.name}
	forced := slices.Contains(o.Force, st.name)
	if !slices.Contains(st.inputs, "") { // every input known: the key is
		key, dir, err := stageKey(st, o)
		if err != nil {
			return res, err
		}
		res.Key, res.Dir = key, dir
		if finished(dir, key) && !forced {
			res.Cached = true
			o.Logger.Info("stage cached", "stage", st.name, "dir", dir)
			return res, nil
		}
	}
	if prev, err := readSlurmJob(o.Out, st.name); err == nil && prev.Key == res.Key && !forced {
		if err := e.lookup(ctx, o.Out, []*SlurmJob{&prev}, []string{st.name}); err != nil {
			return res, err
		}
		if prev.Active() {
			prev.Reused = true
			res.Job = &prev
			o.Logger.Info("stage already submitted", "stage", st.name, "job", prev.ID, "state", prev.State)
			return res, nil
		}
	}
	var array *SlurmJob
	shards := 0
	if sp := env.study.Slurm; sp != nil && sp.Shards > 1 && st.shard != nil {
		shards = min(sp.Shards, st.windows)
		var err error
		if array, err = e.submit(ctx, env, st, res.Key, deps, shards, false); err != nil {
			return res, err
		}
		o.Logger.Info("stage shards submitted", "stage", st.name, "job", array.ID, "tasks", shards, "after", strings.Join(deps, ","), "log", array.Log)
		deps = []string{array.ID}
	}
	job, err := e.submit(ctx, env, st, res.Key, deps, shards, true)
	if err != nil {
		return res, err
	}
	job.Shards = array
	if err := writeSlurmJob(filepath.Join(o.Out, "slurm"), st.name, job); err != nil {
		return res, err
	}
	res.Job = job
	o.Logger.Info("stage submitted", "stage", st.name, "job", job.ID, "after", strings.Join(deps, ","), "log", job.Log)
	return res, nil
}

// submit writes st's batch script and submits it after deps: with
// shards > 0 either its job array of shards tasks (merge false) or the
// job that merges them (merge true).
func (e *SlurmExecutor) submit(ctx context.Context, env *runEnv, st stage, key string, deps []string, shards int, merge bool) (*SlurmJob, error) {
	o := env.o
	out, err := filepath.Abs(o.Out)
	if err != nil {
		return nil, fmt.Errorf("output directory %s: %w", o.Out, err)
	}
	sdir := filepath.Join(out, "slurm")
	if err := os.MkdirAll(filepath.Join(sdir, "logs"), 0o755); err != nil {
		return nil, fmt.Errorf("slurm directory: %w", err)
	}
	studyAt, err := writeJobStudy(env.study, sdir)
	if err != nil {
		return nil, err
	}
	j := jobScript{Study: env.study.Name, Stage: st.name, Key: key, Binary: e.Binary, StudyAt: studyAt,
		Out: out, Version: o.Version, Force: slices.Contains(o.Force, st.name), ExitAt: filepath.Join(sdir, st.name),
		Shards: shards, Merge: merge}
	name := st.name
	array := shards > 0 && !merge
	if array {
		name += "-shards"
		j.ExitAt = filepath.Join(sdir, name)
	}
	if env.trace != "" {
		if j.Trace, err = filepath.Abs(env.trace); err != nil {
			return nil, fmt.Errorf("trace %s: %w", env.trace, err)
		}
	}
	pattern, _ := logPaths(sdir, name, "", array)
	j.Sbatch = sbatchArgs(env.study, st.name, pattern, deps)
	if array {
		j.Sbatch = append(j.Sbatch, fmt.Sprintf("--array=0-%d", shards-1))
	}
	if sp := env.study.Slurm; sp != nil {
		j.Workers = sp.CPUs
	}
	text, err := j.render()
	if err != nil {
		return nil, err
	}
	script := filepath.Join(sdir, name+".sh")
	if err := atomicfile.WriteFile(script, []byte(text)); err != nil {
		return nil, fmt.Errorf("batch script %s: %w", script, err)
	}
	stdout, err := e.command()(ctx, "sbatch", append(slices.Clone(j.Sbatch), script)...)
	if err != nil {
		return nil, fmt.Errorf("submit %s: %w", script, err)
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(stdout)), ";") // --parsable: ID[;CLUSTER]
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return nil, fmt.Errorf("submit %s: sbatch --parsable printed %q, want a job id", script, stdout)
	}
	_, logAt := logPaths(sdir, name, id, array)
	return &SlurmJob{ID: id, Key: key, Script: script, Log: logAt, After: deps}, nil
}

// logPaths returns a job's sbatch --output pattern, sdir/logs/NAME-%j.log
// (a job array's NAME-%A_%a.log) with sdir's own % escaped, and the path
// of job id's log (an array's with * for the task). Under a directory
// with a backslash, where sbatch replaces nothing, both are
// sdir/logs/NAME.log.
func logPaths(sdir, name, id string, array bool) (pattern, path string) {
	base := filepath.Join(sdir, "logs", name)
	switch {
	case strings.Contains(base, `\`):
		return base + ".log", base + ".log"
	case array:
		return slurmPattern(base) + "-%A_%a.log", base + "-" + id + "_*.log"
	}
	return slurmPattern(base) + "-%j.log", base + "-" + id + ".log"
}

// sbatchArgs returns the sbatch options of a stage: name, log, the
// study's slurm section and the dependencies.
func sbatchArgs(s *Study, stage, log string, deps []string) []string {
	a := []string{"--parsable", "--job-name=mirage-" + s.Name + "-" + stage, "--output=" + log}
	if sp := s.Slurm; sp != nil {
		if sp.Partition != "" {
			a = append(a, "--partition="+sp.Partition)
		}
		if sp.Account != "" {
			a = append(a, "--account="+sp.Account)
		}
		if sp.CPUs > 0 {
			a = append(a, "--cpus-per-task="+strconv.Itoa(sp.CPUs))
		}
		if t := sp.timeLimit(stage); t > 0 {
			a = append(a, "--time="+slurmTime(t))
		}
	}
	if s.Device == "cuda" && strings.HasPrefix(stage, "train-xgboost") { // the one model that trains on a GPU
		gpus := 1
		if s.Slurm != nil && s.Slurm.GPUs > 0 {
			gpus = s.Slurm.GPUs
		}
		a = append(a, "--gres=gpu:"+strconv.Itoa(gpus))
	}
	if len(deps) > 0 {
		a = append(a, "--dependency=afterok:"+strings.Join(deps, ":"), "--kill-on-invalid-dep=yes")
	}
	if s.Slurm != nil {
		a = append(a, s.Slurm.ExtraArgs...)
	}
	return a
}

// writeJobStudy writes the study the jobs read into dir as
// study-HASH.yaml, its trace.inputs and features.runtime_model made
// absolute, and returns its path: the jobs read what was submitted even
// when the study file changes.
func writeJobStudy(s *Study, dir string) (string, error) {
	c := *s
	c.Trace.Inputs = nil
	for _, p := range s.InputPaths() {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("trace.inputs %s: %w", p, err)
		}
		c.Trace.Inputs = append(c.Trace.Inputs, abs)
	}
	if p := s.RuntimeModelPath(); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("features.runtime_model %s: %w", p, err)
		}
		f := *s.Features
		f.RuntimeModel = abs
		c.Features = &f
	}
	b, err := c.Marshal()
	if err != nil {
		return "", fmt.Errorf("study %s: %w", s.Name, err)
	}
	sum := sha256.Sum256(b)
	path := filepath.Join(dir, "study-"+hex.EncodeToString(sum[:8])+".yaml")
	if fileExists(path) {
		return path, nil
	}
	if err := atomicfile.WriteFile(path, b); err != nil {
		return "", fmt.Errorf("study for the jobs %s: %w", path, err)
	}
	return path, nil
}

func slurmJobPath(out, stage string) string { return filepath.Join(out, "slurm", stage+".json") }

func writeSlurmJob(sdir, stage string, j *SlurmJob) error {
	rec := *j
	rec.State, rec.Reason, rec.ExitCode, rec.Reused = "", "", nil, false // looked up, not recorded
	if rec.Shards != nil {
		a := *rec.Shards
		a.State, a.Reason = "", ""
		rec.Shards = &a
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(sdir, stage+".json")
	if err := atomicfile.WriteFile(path, append(b, '\n')); err != nil {
		return fmt.Errorf("slurm job record %s: %w", path, err)
	}
	return nil
}

func readSlurmJob(out, stage string) (SlurmJob, error) {
	var j SlurmJob
	path := slurmJobPath(out, stage)
	b, err := os.ReadFile(path)
	if err != nil {
		return j, err
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return j, fmt.Errorf("slurm job record %s: %w", path, err)
	}
	return j, nil
}

// Jobs fills in the Job of each stage in res that the Slurm executor
// submitted under out (its OUT/slurm/NAME.json, when of the stage's key
// or submitted with its key unknown) with the job's state: squeue's
// while Slurm still knows the job, else the exit status the job wrote;
// a stage whose job ended finished since res was made becomes Cached.
// A stage never submitted keeps a nil Job. Without squeue (no Slurm
// here) the states come from the exit statuses alone.
func (e *SlurmExecutor) Jobs(ctx context.Context, out string, res []StageResult) error {
	var jobs []*SlurmJob
	var stages []string
	var at []int // jobs[k] is res[at[k]]'s
	for i := range res {
		j, err := readSlurmJob(out, res[i].Name)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if j.Key != "" && j.Key != res[i].Key {
			continue // submitted for another version of the stage
		}
		res[i].Job = &j
		jobs = append(jobs, &j)
		stages = append(stages, res[i].Name)
		at = append(at, i)
	}
	if len(jobs) == 0 {
		return nil
	}
	if err := e.lookup(ctx, out, jobs, stages); err != nil {
		return err
	}
	for k, j := range jobs { // finished since res was made
		if r := &res[at[k]]; !j.Active() && !r.Cached && r.Key != "" && finished(r.Dir, r.Key) {
			r.Cached = true
		}
	}
	return nil
}

// worse says whether state a says more of an array's fate than b: a
// task that ended otherwise than COMPLETED, then a running or pending
// one, then COMPLETED.
func worse(a, b string) bool {
	rank := func(s string) int {
		j := SlurmJob{State: s}
		switch {
		case s == "COMPLETED":
			return 0
		case j.Active():
			return 1
		}
		return 2
	}
	return rank(a) > rank(b)
}

// lookup sets the State, Reason and ExitCode of jobs, the jobs of
// stages (one squeue call).
func (e *SlurmExecutor) lookup(ctx context.Context, out string, jobs []*SlurmJob, stages []string) error {
	var ids []string
	for _, j := range jobs {
		ids = append(ids, j.ID)
		if j.Shards != nil {
			ids = append(ids, j.Shards.ID)
		}
	}
	states := map[string][2]string{}
	b, err := e.command()(ctx, "squeue", "--noheader", "--states=all", "--jobs="+strings.Join(ids, ","), "--format=%i|%T|%r")
	if err == nil { // else: Slurm forgot the jobs ("Invalid job id") or is not here
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.SplitN(strings.TrimSpace(line), "|", 3)
			if len(f) != 3 {
				continue
			}
			id, _, _ := strings.Cut(f[0], "_") // an array's task: ID_TASK, ID_[0-3]
			if prev, ok := states[id]; !ok || worse(f[1], prev[0]) {
				states[id] = [2]string{f[1], f[2]}
			}
		}
	}
	for _, j := range jobs {
		if a := j.Shards; a != nil {
			a.State, a.Reason = "UNKNOWN", ""
			if s, ok := states[a.ID]; ok {
				a.State, a.Reason = s[0], strings.TrimPrefix(s[1], "None")
			}
		}
	}
	for i, j := range jobs {
		if b, err := os.ReadFile(filepath.Join(out, "slurm", stages[i]+"."+j.ID+".exit")); err == nil {
			if c, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				j.ExitCode = &c
			}
		}
		if s, ok := states[j.ID]; ok {
			j.State, j.Reason = s[0], s[1]
			if j.Reason == "None" {
				j.Reason = ""
			}
			continue
		}
		switch {
		case j.ExitCode == nil:
			j.State = "UNKNOWN"
		case *j.ExitCode == 0:
			j.State = "COMPLETED"
		default:
			j.State = "FAILED"
		}
	}
	return nil
}
