package pipelines

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/mirage-hpc/mirage/reports"
)

// RunOptions configure Run.
type RunOptions struct {
	// Trace is the Parquet trace (from mirage ingest); its zone must be
	// the study's. "" runs an ingest stage of the study's trace.inputs.
	Trace string
	// Out is the output directory: stages go to Out/stages/NAME-KEY/.
	Out string
	// Version is mirage's version: part of every stage's key.
	Version string
	// Workers bounds the windows simulated at once; 0 means 1.
	Workers int
	// Jobs bounds the independent stages (the models) run at once; 0
	// means 1. The outputs do not depend on it.
	Jobs int
	// Force names stages to run even when cached.
	Force []string
	// DryRun runs nothing: the results say which stages are cached
	// (fresh) and which would run (stale).
	DryRun bool
	// Verify hashes every output of a stage before taking it from the
	// cache; without it an output is hashed only when its size, mtime
	// (or, on Linux, ctime or inode) differ from those recorded when it
	// was last found to match its meta.json (cache.go). Sizes and the
	// set of files are always checked.
	Verify bool
	// Executor runs the stale stages: nil runs them in this process (the
	// local executor); a *SlurmExecutor submits each as an sbatch job.
	Executor Executor
	// Only, when set, runs that stage alone (when stale or forced) and
	// none of the others: what a Slurm job of the stage runs. The stages
	// it reads must be finished.
	Only string
	// Shards > 0 runs Only sharded (features-train, features-validation, evaluate): its shard
	// Shard (0-based) of Shards, or with Merge the stage itself from its
	// Shards finished shards. What the Slurm executor's job arrays run.
	Shards, Shard int
	Merge         bool
	// Logger receives progress; nil discards it.
	Logger *slog.Logger
	// Progress, when not nil, is called as a long stage advances: its
	// name (features-train, train-forest, evaluate), the unit counted
	// ("windows", "CV folds"), how many are done and the total. Stages
	// run at once (Jobs > 1) call it concurrently. It does not change
	// any output.
	Progress func(stage, unit string, done, total int)
	// stage is the name of the stage these options run (set per stage
	// for progress).
	stage string
	// models are the trained models' policy names (Run sets them).
	models modelNames
}

// StageResult is what one stage did.
type StageResult struct {
	Name string `json:"stage"`
	// Key is the sha256 of the stage's name, mirage's version, its part of
	// the study and its inputs' keys: the same key means the same output.
	Key string `json:"key"`
	// Dir holds the stage's outputs and its meta.json.
	Dir     string  `json:"dir"`
	Cached  bool    `json:"cached"`
	Seconds float64 `json:"seconds"`
	// Damaged says why a finished stage's directory was not a cache hit
	// (an output missing, extra, of another size or sha256 than its
	// meta.json lists), so that the stage is (or, in a dry run, would
	// be) redone; "" otherwise.
	Damaged string `json:"damaged,omitempty"`
	// Job is the Slurm job of a stage submitted by the Slurm executor
	// (or found by Jobs); nil otherwise.
	Job *SlurmJob `json:"slurm,omitempty"`
	// Grounds, for a finished report stage, is its verdict: the
	// simulator's fidelity and, per chain size, the recommended policy or
	// why there is none (reports.GroundsFile).
	// Summary carries it at its head.
	Grounds *reports.GroundsSummary `json:"-"`
}

// Summary is what a run did, as `pipeline run --json` writes it: the
// report's verdict first (the simulator's fidelity on the study's months
// and, per chain size, the recommended policy or why there is none; null
// when no report stage finished), then every stage.
type Summary struct {
	Grounds *reports.GroundsSummary `json:"grounds"`
	Stages  []StageResult           `json:"stages"`
}

// Summarise returns res's Summary: the last finished report stage's
// grounds, and res.
func Summarise(res []StageResult) Summary {
	s := Summary{Stages: res}
	if s.Stages == nil {
		s.Stages = []StageResult{}
	}
	for i := range res {
		if res[i].Grounds != nil {
			s.Grounds = res[i].Grounds
		}
	}
	return s
}

// stage is one node of the DAG: its part of the study (config), the keys
// of the stages or files it reads (inputs) and its work, writing into
// dir.
type stage struct {
	name   string
	config any
	inputs []string
	run    func(ctx context.Context, dir string) error
	// windows > 0 marks a stage that can run sharded over its windows
	// (per chain size): shard runs shard i of n into its own directory,
	// merge writes the stage's outputs into dir from the shards'.
	windows int
	shard   func(ctx context.Context, i, n int, dir string) error
	merge   func(ctx context.Context, shards []string, dir string) error
	// after, when not nil, are the stages this one reads, in place of
	// those its batch reads (the Slurm executor's dependencies): a DQN
	// trained beside the tree models reads the trace, not the samples.
	after *[]StageResult
}

// Run runs the study's stages in order, each only when its key has no
// finished directory (or it is in Force): the ingest of trace.inputs or
// trace.synth (without o.Trace), features of the training period (with
// features.runtime_model, its run-time column: every features stage), each
// model of study.models (forest and xgboost with a target, estimate,
// estimate-rt trained on those features; dqn in the simulator on the
// period's windows), with study.predictions the validation period's
// features and each model of r's predictions on them, the evaluation of
// study.policies and the models on the validation period (with
// study.sweep, each model's sweep too), and the report. It returns
// every stage's result; a failed stage leaves no meta.json, so a rerun
// redoes it. With o.Executor a *SlurmExecutor the stale stages are
// submitted as Slurm jobs instead, and Run returns once they are.
func Run(ctx context.Context, s *Study, o RunOptions) ([]StageResult, error) {
	pf, err := preflight(s, &o)
	if err != nil {
		return nil, err
	}
	if !o.DryRun && o.Only == "" { // one pipeline run of an output at a time (lock.go)
		lock, err := lockOutput(o.Out)
		if err != nil {
			return nil, err
		}
		defer lock.Unlock()
	}
	r := newPipelineRun(s, o)
	if err := r.ingest(ctx, pf.inputKeys); err != nil {
		return r.results, err
	}
	if err := r.checkTrace(); err != nil {
		return r.results, err
	}
	if err := r.calibrate(ctx, &pf); err != nil {
		return r.results, err
	}
	analysis, err := r.analyze(ctx)
	if err != nil {
		return r.results, err
	}
	trained, err := r.train(ctx, pf)
	if err != nil {
		return r.results, err
	}
	predictions, predicted, err := predictStages(ctx, r.ex, r.env, r.o, pf.valP, r.traceKey, pf.rt, r.ingested, trained, &r.results)
	if err != nil {
		return r.results, err
	}
	ev, err := r.evaluate(ctx, pf, trained)
	if err != nil {
		return r.results, err
	}
	err = r.report(ctx, pf, ev, trained, predictions, predicted, analysis)
	if err == nil && o.Only != "" && !slices.ContainsFunc(r.results, func(res StageResult) bool { return res.Name == o.Only }) {
		err = fmt.Errorf("%w: pipeline: no stage %s in study %s", ErrStudy, o.Only, s.Name)
	}
	return r.results, err
}

// progress is o.Progress for the stage's units as a stage API's callback
// (nil when o.Progress is).
func (o RunOptions) progress(stage, unit string) func(done, total int) {
	if o.Progress == nil {
		return nil
	}
	return func(done, total int) { o.Progress(stage, unit, done, total) }
}
