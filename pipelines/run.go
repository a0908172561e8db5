package pipelines

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/internal/digest"
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
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if (o.Trace == "" && len(s.Trace.Inputs) == 0 && s.Trace.Synth == nil) || o.Out == "" {
		return nil, fmt.Errorf("%w: pipeline: a trace (or the study's trace.inputs or trace.synth) and an output directory are required", ErrStudy)
	}
	if o.Trace != "" {
		if err := s.CheckTrace(o.Trace); err != nil {
			return nil, err
		}
	}
	var inputKeys []string
	if o.Trace == "" {
		for _, in := range s.InputPaths() { // checked before any work
			h, err := digest.File(in)
			if err != nil {
				return nil, fmt.Errorf("%w: trace.inputs: %w", ErrStudy, err)
			}
			inputKeys = append(inputKeys, h)
		}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Workers <= 0 {
		o.Workers = 1
	}
	var dirInputs []string   // the evaluation's inputs from the study's policies
	if len(s.Policies) > 0 { // their directories checked before any work (their names: Validate)
		if _, err := evaluate.ParsePolicies(strings.Join(s.Policies, ","), nil, 0); err != nil {
			return nil, fmt.Errorf("%w: policies: %w", ErrStudy, err)
		}
		var err error
		if dirInputs, err = policyInputs(s.Policies); err != nil {
			return nil, err
		}
	}
	rt, err := s.resolveRuntimeModel() // checked before any work
	if err != nil {
		return nil, err
	}
	trainP, valP, err := s.Protocols()
	if err != nil {
		return nil, err
	}
	if slices.ContainsFunc(s.Models, func(m ModelSpec) bool { return m.Kind == "forest" || m.Kind == "xgboost" }) {
		if err := checkFolds(trainP, cvFolds(s.Budget)); err != nil { // the tree models' cross-validation
			return nil, err
		}
	}
	if !o.DryRun && o.Only == "" { // one pipeline run of an output at a time (lock.go)
		lock, err := lockOutput(o.Out)
		if err != nil {
			return nil, err
		}
		defer lock.Unlock()
	}
	ex := o.Executor
	if ex == nil {
		ex = localExecutor{}
	}
	env := &runEnv{study: s, trace: o.Trace, o: o}
	var results []StageResult
	var ingested []StageResult // the ingest stage, when there is one: what reads the trace comes after it
	do := func(st stage, after ...StageResult) (StageResult, error) {
		res, err := ex.run(ctx, env, []stage{st}, after)
		if err != nil {
			return StageResult{}, err
		}
		results = append(results, res[0])
		return res[0], nil
	}
	if o.Trace == "" {
		spec := s.Trace
		spec.Inputs = nil // their contents are the inputs: a moved file is the same input
		res, err := do(stage{name: "ingest", config: spec, inputs: inputKeys,
			run: func(ctx context.Context, dir string) error { return ingestTrace(ctx, s, dir) }})
		if err != nil {
			return results, err
		}
		o.Trace = filepath.Join(res.Dir, "trace.parquet")
		ingested = []StageResult{res}
	}
	traceKey := "" // the trace's content: the same trace gives the same keys however it was made
	// "" when unknown: a status before ingest ran, or an ingest submitted
	// to Slurm (the stages after it are then submitted with unknown keys).
	if (!o.DryRun && ex.runsHere()) || fileExists(o.Trace) {
		if traceKey, err = digest.File(o.Trace); err != nil {
			return results, err
		}
	}
	if !o.DryRun && fileExists(o.Trace) { // before any stage simulates it
		if err := checkTraceFit(s, o.Trace); err != nil {
			return results, err
		}
	}
	var analysis *StageResult // the trace analysis (analyze/), linked from the report
	if s.Analyze {
		res, err := do(analyzeStage(s, traceKey, o), ingested...)
		if err != nil {
			return results, err
		}
		analysis = &res
	}

	feats, err := do(featuresStage("features-train", trainP, traceKey, rt, o), ingested...)
	if err != nil {
		return results, err
	}
	samplesPath := filepath.Join(feats.Dir, "samples.parquet")
	modelStages := make([]stage, len(s.Models))
	for i, m := range s.Models {
		modelStages[i] = modelStage(s, m, trainP, feats, samplesPath, traceKey, o)
		if m.Kind == "dqn" {
			modelStages[i].after = &ingested
		}
	}
	trained, err := ex.run(ctx, env, modelStages, []StageResult{feats})
	results = append(results, trained...)
	if err != nil {
		return results, err
	}
	var models []string // policies of the trained models
	o.models = modelNames{}
	for i, m := range s.Models {
		models = append(models, modelPolicy(m, o.models.add(o.Out, filepath.Join(trained[i].Dir, modelName(m)))))
	}
	predictions, predicted, err := predictStages(ctx, ex, env, o, valP, traceKey, rt, ingested, trained, &results)
	if err != nil {
		return results, err
	}
	policies := slices.Clone(s.Policies)
	if len(policies) == 0 {
		policies = []string{"reactive", "avg", "slurm-estimate", "oracle", "oracle-cost"}
	}
	policies = append(policies, models...)
	inputs := []string{traceKey}
	for _, r := range trained {
		inputs = append(inputs, r.Key)
	}
	inputs = append(inputs, dirInputs...)
	ev, err := do(evaluateStage(s, valP, policies, inputs, o), append(slices.Clone(ingested), trained...)...)
	if err != nil {
		return results, err
	}
	var dqns []string // the report draws their training curves
	for i, m := range s.Models {
		if m.Kind == "dqn" {
			dqns = append(dqns, filepath.Join(trained[i].Dir, modelName(m)))
		}
	}
	repInputs := []string{ev.Key, traceKey} // the trace: its wait-time CDF
	for _, r := range predicted {
		repInputs = append(repInputs, r.Key)
	}
	analysisPage := ""
	if analysis != nil {
		repInputs = append(repInputs, analysis.Key)
		analysisPage = filepath.Join(analysis.Dir, AnalysisPage)
	}
	_, err = do(stage{name: "report", config: nil, inputs: repInputs,
		run: func(ctx context.Context, dir string) error {
			return renderReport(ctx, ev.Dir, dir, reportOptions{trace: o.Trace, predictions: predictions, dqn: dqns, analysis: analysisPage,
				study: s.Name, budgetH: time.Duration(s.Budget.Overlap).Hours(), decision: time.Duration(s.Grid.Decision)}, o.Logger)
		}}, append([]StageResult{ev}, predicted...)...)
	if err == nil && o.Only != "" && !slices.ContainsFunc(results, func(r StageResult) bool { return r.Name == o.Only }) {
		err = fmt.Errorf("%w: pipeline: no stage %s in study %s", ErrStudy, o.Only, s.Name)
	}
	return results, err
}
