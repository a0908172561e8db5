package pipelines

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/ingest/synth"
	"github.com/mirage-hpc/mirage/internal/atomicfile"
	"github.com/mirage-hpc/mirage/internal/digest"
	"github.com/mirage-hpc/mirage/reports"
	"github.com/mirage-hpc/mirage/trace"
	"github.com/mirage-hpc/mirage/train"
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

// modelStage is the training stage of model m: a DQN reads the training
// period of the trace, the other models the training samples (feats).
func modelStage(s *Study, m ModelSpec, trainP features.Protocol, feats StageResult, samplesPath, traceKey string, o RunOptions) stage {
	if m.Kind == "dqn" {
		budget := BudgetSpec{Overlap: s.Budget.Overlap} // the CV folds are not the DQN's
		return stage{name: "train-" + modelName(m), config: struct {
			Model    ModelSpec
			Budget   BudgetSpec
			Protocol features.Protocol
		}{m, budget, trainP}, inputs: []string{traceKey},
			run: func(ctx context.Context, dir string) error {
				return trainDQN(ctx, m, s.Budget, trainP, o.Trace, dir, o.Logger)
			}}
	}
	device := "" // keys of studies without a device stay as they were
	if m.Kind == "xgboost" && s.Device != "cpu" {
		device = s.Device
	}
	return stage{name: "train-" + modelName(m), config: struct {
		Model  ModelSpec
		Budget BudgetSpec
		Device string `json:",omitempty"`
	}{m, s.Budget, device}, inputs: []string{feats.Key},
		run: func(ctx context.Context, dir string) error {
			return trainModel(ctx, m, s.Budget, device, samplesPath, dir, o.Logger)
		}}
}

// predictStages runs, when the study asks for predictions and has models
// of r, the features of the validation period (features-validation) and
// a predict-NAME stage of each such model on them, appending their
// results to *results. It returns the predictions files and the predict
// stages' results.
func predictStages(ctx context.Context, ex Executor, env *runEnv, o RunOptions, valP features.Protocol, traceKey string, rt *runtimeModel,
	ingested, trained []StageResult, results *[]StageResult) (files []string, predicted []StageResult, err error) {
	s := env.study
	if !s.Predictions || !slices.ContainsFunc(s.Models, predictsR) {
		return nil, nil, nil
	}
	vf, err := ex.run(ctx, env, []stage{featuresStage("features-validation", valP, traceKey, rt, o)}, ingested)
	*results = append(*results, vf...)
	if err != nil {
		return nil, nil, err
	}
	valSamples := filepath.Join(vf[0].Dir, "samples.parquet")
	var stages []stage
	var after []StageResult
	for i, m := range s.Models {
		if !predictsR(m) {
			continue
		}
		modelDir := filepath.Join(trained[i].Dir, modelName(m))
		stages = append(stages, stage{name: "predict-" + modelName(m), inputs: []string{vf[0].Key, trained[i].Key},
			run: func(ctx context.Context, dir string) error { return predictModel(ctx, modelDir, valSamples, dir) }})
		after = append(after, trained[i])
	}
	predicted, err = ex.run(ctx, env, stages, append(after, vf[0]))
	*results = append(*results, predicted...)
	if err != nil {
		return nil, nil, err
	}
	for _, r := range predicted {
		files = append(files, filepath.Join(r.Dir, "predictions.parquet"))
	}
	return files, predicted, nil
}

// featuresStage is a features stage (features-train, features-validation)
// of protocol p: its labelled samples, with the run-time column of rt
// when not nil (which it then reads: an input), sharded over windows on
// Slurm.
func featuresStage(name string, p features.Protocol, traceKey string, rt *runtimeModel, o RunOptions) stage {
	inputs := []string{traceKey}
	if rt != nil { // keys of studies without one stay as they were
		inputs = append(inputs, rt.input())
	}
	return stage{name: name, config: p, inputs: inputs,
		run:     func(ctx context.Context, dir string) error { return buildFeatures(ctx, o, p, rt, traceKey, dir) },
		windows: p.Windows,
		shard: func(ctx context.Context, i, n int, dir string) error {
			return featureShard(ctx, o, p, rt, i, n, dir)
		},
		merge: func(ctx context.Context, shards []string, dir string) error {
			return mergeFeatures(ctx, o, p, rt, traceKey, shards, dir)
		}}
}

// evaluateStage replays the policies on the validation period p.
func evaluateStage(s *Study, p features.Protocol, policies, inputs []string, o RunOptions) stage {
	decision := time.Duration(s.Grid.Decision)
	return stage{name: "evaluate", config: struct {
		Protocol features.Protocol
		Policies []string
		Decision Duration
		Sweep    bool `json:",omitempty"`
		// Output is metrics.json's layout: 2 records model_dirs (a
		// cached evaluation without them is rerun), 3 names the trained
		// models relative to the output directory (modelNames).
		Output int
	}{p, s.Policies, s.Grid.Decision, s.Sweep, 3}, inputs: inputs,
		run: func(ctx context.Context, dir string) error {
			return runEvaluate(ctx, o, p, policies, s.Sweep, decision, dir)
		},
		windows: p.Windows,
		shard: func(ctx context.Context, i, n int, dir string) error {
			return evaluateShard(ctx, o, p, policies, s.Sweep, decision, i, n, dir)
		},
		merge: func(ctx context.Context, shards []string, dir string) error {
			return mergeEvaluate(o, p, shards, dir)
		}}
}

// runParallel runs independent stages, at most o.Jobs at once, and
// returns their results in the stages' order; on failure, the results
// before the first failed stage and its error.
func runParallel(ctx context.Context, stages []stage, o RunOptions) ([]StageResult, error) {
	res := make([]StageResult, len(stages))
	errs := make([]error, len(stages))
	sem := make(chan struct{}, max(o.Jobs, 1))
	var wg sync.WaitGroup
	for i, st := range stages {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			res[i], errs[i] = runStage(ctx, st, o)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return res[:i], fmt.Errorf("pipeline: stage %s: %w", stages[i].name, err)
		}
	}
	return res, nil
}

// stageKey returns st's key and directory under o.Out.
func stageKey(st stage, o RunOptions) (key, dir string, err error) {
	cfg, err := json.Marshal(struct {
		Stage, Version string
		Config         any
		Inputs         []string
	}{st.name, o.Version, st.config, st.inputs})
	if err != nil {
		return "", "", fmt.Errorf("stage %s: key: %w", st.name, err)
	}
	sum := sha256.Sum256(cfg)
	key = hex.EncodeToString(sum[:])
	return key, filepath.Join(o.Out, "stages", st.name+"-"+key[:16]), nil
}

// runStage runs st unless a finished directory of its key, whose
// outputs match its meta.json (checkStage), exists; it holds the stage's
// lock meanwhile. A damaged stage is logged and redone.
func runStage(ctx context.Context, st stage, o RunOptions) (StageResult, error) {
	key, dir, err := stageKey(st, o)
	if err != nil {
		return StageResult{}, err
	}
	res := StageResult{Name: st.name, Key: key, Dir: dir}
	forced := slices.Contains(o.Force, st.name)
	if o.DryRun {
		if !forced {
			c := checkStage(dir, key, o.Verify)
			res.Cached, res.Damaged = c.fresh, c.damaged
		}
		return res, nil
	}
	lock, err := lockStage(dir)
	if err != nil {
		return res, err
	}
	defer lock.Unlock()
	if !forced {
		c := checkStage(dir, key, o.Verify)
		if c.fresh {
			res.Cached = true
			if c.refresh != nil { // best effort: the next check hashes again
				if err := writeFingerprints(dir, *c.refresh); err != nil {
					o.Logger.Warn("stage fingerprints not written", "stage", st.name, "err", err)
				}
			}
			o.Logger.Info("stage cached", "stage", st.name, "dir", dir)
			return res, nil
		}
		if res.Damaged = c.damaged; c.damaged != "" {
			o.Logger.Warn(st.name+": "+c.damaged+": redoing", "stage", st.name, "dir", dir)
		}
	}
	if _, err := atomicfile.RemoveStale(dir); err != nil { // killed runs' temporaries beside dir
		return res, err
	}
	if err := os.RemoveAll(dir); err != nil { // an unfinished, damaged or forced run
		return res, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, err
	}
	o.Logger.Info("stage", "stage", st.name, "dir", dir)
	began := time.Now()
	if err := st.run(ctx, dir); err != nil {
		return res, err
	}
	res.Seconds = time.Since(began).Seconds()
	return res, recordStage(dir, stageMeta{Stage: st.name, Key: key, Inputs: st.inputs, Seconds: res.Seconds})
}

// policyInputs returns, for each policy that names a model directory
// (KIND:DIR), the policy and the sha256 of hashOutputs(DIR): the
// evaluation's cache key then follows what its policies load, so a model
// trained again into the same directory reruns it. A model that refers to
// another (a forecast's or a features column's run-time model) records
// that one's digest in its own manifest, so it is covered too.
func policyInputs(policies []string) ([]string, error) {
	var out []string
	for _, p := range policies {
		_, dir, ok := strings.Cut(p, ":")
		if !ok || dir == "" {
			continue
		}
		files, err := hashOutputs(dir)
		if err != nil {
			return nil, fmt.Errorf("%w: policy %s: %w", ErrStudy, p, err)
		}
		b, err := json.Marshal(files) // keys sorted
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w", p, err)
		}
		sum := sha256.Sum256(b)
		out = append(out, p+" sha256:"+hex.EncodeToString(sum[:]))
	}
	return out, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// ingestTrace ingests the study's trace.inputs into dir/trace.parquet.
func ingestTrace(ctx context.Context, s *Study, dir string) error {
	loc, err := time.LoadLocation(s.Trace.Zone)
	if err != nil {
		return err
	}
	o := ingest.Options{Location: loc, Cluster: s.Trace.Cluster, CoresPerNode: s.Trace.CoresPerNode}
	if s.Trace.Format != "" {
		if o.Format, err = ingest.ParseFormat(s.Trace.Format); err != nil {
			return fmt.Errorf("%w: trace.format: %w", ErrStudy, err)
		}
	}
	if s.Trace.StartTime != "" {
		if o.StartTime, err = time.Parse(time.RFC3339, s.Trace.StartTime); err != nil {
			return err
		}
	}
	inputs := s.InputPaths()
	if s.Trace.Synth != nil {
		in := filepath.Join(dir, "synth.sacct")
		if err := writeSynth(s, loc, in); err != nil {
			return err
		}
		inputs = []string{in}
	}
	_, err = ingest.Run(ctx, inputs, filepath.Join(dir, "trace.parquet"), o)
	return err
}

// writeSynth writes the study's synthetic trace (trace.synth) as sacct
// text to path, its times in loc.
func writeSynth(s *Study, loc *time.Location, path string) error {
	sp := s.Trace.Synth
	opts := synth.DefaultOptions()
	opts.Location, opts.Cluster = loc, cmpOr(s.Trace.Cluster, synth.DefaultCluster)
	if sp.Jobs > 0 {
		opts.Jobs = sp.Jobs
	}
	if sp.Seed > 0 {
		opts.Seed = sp.Seed
	}
	if sp.Nodes > 0 {
		opts.Nodes = sp.Nodes
	}
	if sp.Utilisation > 0 {
		opts.Utilisation = sp.Utilisation
	}
	opts.Start = time.Date(2022, 11, 1, 0, 0, 0, 0, loc)
	if sp.Start != "" {
		t, err := time.ParseInLocation("2006-01-02T15:04:05", sp.Start, loc)
		if err != nil {
			return fmt.Errorf("%w: trace.synth.start: %w", ErrStudy, err)
		}
		opts.Start = t
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		if _, err := synth.WriteSacct(bw, opts); err != nil {
			return fmt.Errorf("trace.synth: %w", err)
		}
		return bw.Flush()
	})
}

// buildFeatures writes dir/samples.parquet: the samples of p, with the
// run-time column of rt when not nil.
func buildFeatures(ctx context.Context, o RunOptions, p features.Protocol, rt *runtimeModel, traceKey, dir string) error {
	jobs, opts, err := prepareFeatures(o, p, rt)
	if err != nil {
		return err
	}
	opts.Workers, opts.Logger = o.Workers, o.Logger
	samples, _, err := features.Build(ctx, jobs, opts)
	if err != nil {
		return err
	}
	return features.WriteParquet(filepath.Join(dir, "samples.parquet"), &samples, rt.meta(p, traceKey, opts.Config))
}

// defaultCVFolds is the number of time-blocked CV folds the model
// stages use when the study's budget.cv_folds is 0.
const defaultCVFolds = 5

// cvFolds is the study's budget.cv_folds, or defaultCVFolds.
func cvFolds(b BudgetSpec) int {
	if b.CVFolds > 0 {
		return b.CVFolds
	}
	return defaultCVFolds
}

// checkFolds checks, before any work, that the training period's windows
// make folds time-blocked folds with a gap of one window span (what
// the tree models' cross-validation needs; the estimates use time blocks
// without a gap).
func checkFolds(p features.Protocol, folds int) error {
	loc, err := time.LoadLocation(p.TZ)
	if err != nil {
		return err
	}
	start, err := time.ParseInLocation("2006-01-02T15:04:05", p.Start, loc)
	if err != nil {
		return err
	}
	ids := make([]int32, p.Windows)
	starts := make([]int64, p.Windows)
	for i := range ids {
		ids[i], starts[i] = int32(i), start.Add(time.Duration(i)*p.Interval).Unix()
	}
	if _, err := train.BlockedFolds(ids, starts, folds, int64((p.Warmup+p.Workload)/time.Second)); err != nil {
		return fmt.Errorf("%w: periods.train: %d windows every %s cannot make %d cross-validation folds %s apart: %w (use more windows or a longer stride)",
			ErrStudy, p.Windows, p.Interval, folds, p.Warmup+p.Workload, err)
	}
	return nil
}

// parsePolicies parses the evaluated policies, with the models' sweeps
// when sweep is set; the trained models' directories are o.models'.
func parsePolicies(o RunOptions, policyList []string, sweep bool) ([]evaluate.Policy, error) {
	policies, err := evaluate.ParsePoliciesIn(strings.Join(policyList, ","), nil, 0, o.models.dirOf)
	if err != nil {
		return nil, fmt.Errorf("%w: policies: %w", ErrStudy, err)
	}
	if sweep {
		policies = evaluate.SweepModels(policies)
	}
	return policies, nil
}

func runEvaluate(ctx context.Context, o RunOptions, p features.Protocol, policyList []string, sweep bool, decision time.Duration, dir string) error {
	policies, err := parsePolicies(o, policyList, sweep)
	if err != nil {
		return err
	}
	tjobs, err := trace.ReadAll(o.Trace)
	if err != nil {
		return err
	}
	jobs, fo, err := p.Prepare(tjobs)
	if err != nil {
		return err
	}
	if err := evaluate.BindTrace(policies, tjobs, jobs); err != nil {
		return err
	}
	opts := evaluate.Options{Features: fo, DecisionSec: int64(decision / time.Second), Workers: o.Workers, Lambda: evaluate.DefaultLambda}
	res, err := evaluate.Replay(ctx, jobs, policies, opts)
	if err != nil {
		return err
	}
	m := evaluate.Compute(res.Rows, opts.Lambda)
	m.Protocol, m.SimConfig = &p, &fo.Config
	m.ModelDirs = evaluate.ModelDirsIn(dir, m, o.models.dirOf)
	return evaluate.WriteDir(dir, m, res.Rows)
}

// reportOptions are what the report draws beside the evaluation: the
// trace's wait-time CDF (trace), predicted vs actual r
// (predictions files) and the DQNs' training curves (model
// directories).
type reportOptions struct {
	trace       string
	predictions []string
	dqn         []string
	// study, budgetH (hours) and decision are the study's name, overlap
	// budget and decision interval, stated in the report's summary.
	study    string
	budgetH  float64
	decision time.Duration
	// analysis is the analyze stage's page ("" when none), linked from
	// the report's header by a path relative to the report's directory.
	analysis string
}

// predictionsNote is the caption note of the predicted-vs-actual figure.
const predictionsNote = "Predictions are on the validation windows' samples (out of sample)."

func renderReport(ctx context.Context, evalDir, dir string, ro reportOptions, log *slog.Logger) error {
	opts := reports.DefaultOptions()
	opts.Logger, opts.Trace, opts.Predictions, opts.DQN = log, ro.trace, ro.predictions, ro.dqn
	opts.Study, opts.OverlapBudgetH, opts.Decision = ro.study, ro.budgetH, ro.decision
	if ro.analysis != "" {
		rel, err := filepath.Rel(dir, ro.analysis)
		if err != nil {
			return err
		}
		opts.AnalysisHref = filepath.ToSlash(rel)
	}
	if len(ro.predictions) > 0 {
		opts.PredictionsNote = predictionsNote
	}
	// The report replaces dir as a whole; the evaluation's files are
	// copied in after it.
	if _, err := reports.Render(ctx, evalDir, dir, opts); err != nil {
		return err
	}
	for _, f := range []string{"metrics.json", "windows.csv"} {
		b, err := os.ReadFile(filepath.Join(evalDir, f))
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, f), b); err != nil {
			return err
		}
	}
	return nil
}
