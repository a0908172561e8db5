package pipelines

import (
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
	// Executor runs the stale stages: nil runs them in this process (the
	// local executor); a *SlurmExecutor submits each as an sbatch job.
	Executor Executor
	// Only, when set, runs that stage alone (when stale or forced) and
	// none of the others: what a Slurm job of the stage runs. The stages
	// it reads must be finished.
	Only string
	// Shards > 0 runs Only sharded (features-train, evaluate): its shard
	// Shard (0-based) of Shards, or with Merge the stage itself from its
	// Shards finished shards. What the Slurm executor's job arrays run.
	Shards, Shard int
	Merge         bool
	// Logger receives progress; nil discards it.
	Logger *slog.Logger
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
	// Job is the Slurm job of a stage submitted by the Slurm executor
	// (or found by Jobs); nil otherwise.
	Job *SlurmJob `json:"slurm,omitempty"`
}

// stageMeta is a finished stage's meta.json, written last: a stage
// directory without it is unfinished and is redone.
type stageMeta struct {
	Stage   string            `json:"stage"`
	Key     string            `json:"key"`
	Inputs  []string          `json:"inputs"`
	Outputs map[string]string `json:"outputs_sha256"`
	Seconds float64           `json:"seconds"`
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
}

// Run runs the study's stages in order, each only when its key has no
// finished directory (or it is in Force): features of the training
// period, each model of study.models trained on them (forest and xgboost
// with a target, estimate, estimate-rt), the evaluation of study.policies
// and the models on the validation period, and the report. It returns
// every stage's result; a failed stage leaves no meta.json, so a rerun
// redoes it. With o.Executor a *SlurmExecutor the stale stages are
// submitted as Slurm jobs instead, and Run returns once they are.
func Run(ctx context.Context, s *Study, o RunOptions) ([]StageResult, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if (o.Trace == "" && len(s.Trace.Inputs) == 0) || o.Out == "" {
		return nil, fmt.Errorf("%w: pipeline: a trace (or the study's trace.inputs) and an output directory are required", ErrStudy)
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
	seen := map[string]bool{}
	for _, m := range s.Models {
		if err := checkModel(m); err != nil {
			return nil, err
		}
		if seen[modelName(m)] {
			return nil, fmt.Errorf("%w: models: %s given twice", ErrStudy, modelName(m))
		}
		seen[modelName(m)] = true
	}
	if len(s.Policies) > 0 { // checked before any work
		if _, err := evaluate.ParsePolicies(strings.Join(s.Policies, ","), nil, 0); err != nil {
			return nil, fmt.Errorf("%w: policies: %w", ErrStudy, err)
		}
	}
	trainP, valP, err := s.Protocols()
	if err != nil {
		return nil, err
	}
	if slices.ContainsFunc(s.Models, func(m ModelSpec) bool { return m.Kind == "forest" || m.Kind == "xgboost" }) {
		if err := checkFolds(trainP); err != nil { // the tree models' cross-validation
			return nil, err
		}
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

	feats, err := do(stage{name: "features-train", config: trainP, inputs: []string{traceKey},
		run:     func(ctx context.Context, dir string) error { return buildFeatures(ctx, o, trainP, traceKey, dir) },
		windows: trainP.Windows,
		shard: func(ctx context.Context, i, n int, dir string) error {
			return featureShard(ctx, o, trainP, i, n, dir)
		},
		merge: func(ctx context.Context, shards []string, dir string) error {
			return mergeFeatures(o, trainP, traceKey, shards, dir)
		}}, ingested...)
	if err != nil {
		return results, err
	}
	samplesPath := filepath.Join(feats.Dir, "samples.parquet")
	modelStages := make([]stage, len(s.Models))
	for i, m := range s.Models {
		device := "" // keys of studies without a device stay as they were
		if m.Kind == "xgboost" && s.Device != "cpu" {
			device = s.Device
		}
		modelStages[i] = stage{name: "train-" + modelName(m), config: struct {
			Model  ModelSpec
			Budget BudgetSpec
			Device string `json:",omitempty"`
		}{m, s.Budget, device}, inputs: []string{feats.Key},
			run: func(ctx context.Context, dir string) error {
				return trainModel(ctx, m, s.Budget, device, samplesPath, dir, o.Logger)
			}}
	}
	trained, err := ex.run(ctx, env, modelStages, []StageResult{feats})
	results = append(results, trained...)
	if err != nil {
		return results, err
	}
	var models []string // policies of the trained models
	for i, m := range s.Models {
		models = append(models, modelPolicy(m, filepath.Join(trained[i].Dir, modelName(m))))
	}
	policies := slices.Clone(s.Policies)
	if len(policies) == 0 {
		policies = []string{"reactive", "avg", "slurm-estimate", "oracle", "oracle-cost"}
	}
	policies = append(policies, models...)
	inputs := []string{traceKey}
	for _, r := range results {
		if r.Name != "ingest" && r.Name != "features-train" {
			inputs = append(inputs, r.Key)
		}
	}
	ev, err := do(stage{name: "evaluate", config: struct {
		Protocol features.Protocol
		Policies []string
		Decision Duration
	}{valP, s.Policies, s.Grid.Decision}, inputs: inputs,
		run: func(ctx context.Context, dir string) error {
			return runEvaluate(ctx, o, valP, policies, time.Duration(s.Grid.Decision), dir)
		},
		windows: valP.Windows,
		shard: func(ctx context.Context, i, n int, dir string) error {
			return evaluateShard(ctx, o, valP, policies, time.Duration(s.Grid.Decision), i, n, dir)
		},
		merge: func(ctx context.Context, shards []string, dir string) error {
			return mergeEvaluate(o, valP, shards, dir)
		}}, append(slices.Clone(ingested), trained...)...)
	if err != nil {
		return results, err
	}
	_, err = do(stage{name: "report", config: nil, inputs: []string{ev.Key},
		run: func(ctx context.Context, dir string) error { return renderReport(ctx, ev.Dir, dir, o.Logger) }}, ev)
	if err == nil && o.Only != "" && !slices.ContainsFunc(results, func(r StageResult) bool { return r.Name == o.Only }) {
		err = fmt.Errorf("%w: pipeline: no stage %s in study %s", ErrStudy, o.Only, s.Name)
	}
	return results, err
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

// finished says whether dir holds a finished stage of key (its meta.json).
func finished(dir, key string) bool {
	m, err := readMeta(dir)
	return err == nil && m.Key == key
}

// runStage runs st unless a finished directory of its key exists.
func runStage(ctx context.Context, st stage, o RunOptions) (StageResult, error) {
	key, dir, err := stageKey(st, o)
	if err != nil {
		return StageResult{}, err
	}
	res := StageResult{Name: st.name, Key: key, Dir: dir}
	if finished(dir, key) && !slices.Contains(o.Force, st.name) {
		res.Cached = true
		o.Logger.Info("stage cached", "stage", st.name, "dir", dir)
		return res, nil
	}
	if o.DryRun {
		return res, nil
	}
	if err := os.RemoveAll(dir); err != nil { // an unfinished or forced run
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
	outs, err := hashOutputs(dir)
	if err != nil {
		return res, err
	}
	b, err := json.MarshalIndent(stageMeta{Stage: st.name, Key: key, Inputs: st.inputs, Outputs: outs, Seconds: res.Seconds}, "", "  ")
	if err != nil {
		return res, err
	}
	return res, atomicfile.WriteFile(filepath.Join(dir, "meta.json"), append(b, '\n'))
}

func readMeta(dir string) (stageMeta, error) {
	var m stageMeta
	b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return m, err
	}
	return m, json.Unmarshal(b, &m)
}

// hashOutputs returns the sha256 of every file under dir (paths relative
// to it, slash-separated).
func hashOutputs(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		h, err := digest.File(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = h
		return nil
	})
	return out, err
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
	_, err = ingest.Run(ctx, s.InputPaths(), filepath.Join(dir, "trace.parquet"), o)
	return err
}

func buildFeatures(ctx context.Context, o RunOptions, p features.Protocol, traceKey, dir string) error {
	tjobs, err := trace.ReadAll(o.Trace)
	if err != nil {
		return err
	}
	jobs, opts, err := p.Prepare(tjobs)
	if err != nil {
		return err
	}
	opts.Workers, opts.Logger = o.Workers, o.Logger
	samples, _, err := features.Build(ctx, jobs, opts)
	if err != nil {
		return err
	}
	return features.WriteParquet(filepath.Join(dir, "samples.parquet"), &samples,
		features.FileMeta{Protocol: p.Name, TraceDigest: traceKey, SimConfig: opts.Config, Options: p})
}

// cvFolds is the number of time-blocked CV folds the model stages use.
const cvFolds = 5

// checkFolds checks, before any work, that the training period's windows
// make cvFolds time-blocked folds with a gap of one window span (what
// the tree models' cross-validation needs; the estimates use time blocks
// without a gap).
func checkFolds(p features.Protocol) error {
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
	if _, err := train.BlockedFolds(ids, starts, cvFolds, int64((p.Warmup+p.Workload)/time.Second)); err != nil {
		return fmt.Errorf("%w: periods.train: %d windows every %s cannot make %d cross-validation folds %s apart: %w (use more windows or a longer stride)",
			ErrStudy, p.Windows, p.Interval, cvFolds, p.Warmup+p.Workload, err)
	}
	return nil
}

// checkModel checks a study's model spec.
func checkModel(m ModelSpec) error {
	switch m.Kind {
	case "forest", "xgboost":
		if _, err := train.ParseTarget(cmpOr(m.Target, "r")); err != nil {
			return fmt.Errorf("%w: models: %s: %w", ErrStudy, m.Kind, err)
		}
	case "estimate", "estimate-rt":
		if m.Target != "" {
			return fmt.Errorf("%w: models: %s takes no target", ErrStudy, m.Kind)
		}
	default:
		return fmt.Errorf("%w: models: kind %q: want forest, xgboost, estimate or estimate-rt (dqn is not a pipeline stage yet)", ErrStudy, m.Kind)
	}
	return nil
}

func cmpOr(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func modelName(m ModelSpec) string {
	if m.Target == "" {
		return m.Kind
	}
	return m.Kind + "-" + m.Target
}

// modelPolicy is the evaluate policy of a trained model directory.
func modelPolicy(m ModelSpec, dir string) string {
	if strings.HasPrefix(m.Kind, "estimate") {
		return "slurm-estimate:" + dir
	}
	return m.Kind + ":" + dir
}

// trainModel trains m on samples into dir/NAME; device (xgboost only) is
// the study's: "" is the CPU.
func trainModel(ctx context.Context, m ModelSpec, b BudgetSpec, device, samples, dir string, log *slog.Logger) error {
	s, meta, err := train.ReadSamples(ctx, samples)
	if err != nil {
		return err
	}
	budget := time.Duration(b.Overlap).Hours()
	if budget == 0 {
		budget = train.DefaultOverlapBudgetH
	}
	out := filepath.Join(dir, modelName(m))
	if strings.HasPrefix(m.Kind, "estimate") {
		_, err := train.RunEstimate(s, meta, out, train.Options{Target: train.Target(m.Kind), OverlapBudgetH: budget, K: cvFolds})
		return err
	}
	kind, err := train.ParseKind(m.Kind)
	if err != nil {
		return err
	}
	target, err := train.ParseTarget(cmpOr(m.Target, "r"))
	if err != nil {
		return err
	}
	params := train.DefaultParams(kind)
	if device != "" {
		if params.Device, err = resolveDevice(device, log); err != nil {
			return err
		}
	}
	_, err = train.Run(ctx, s, meta, out, train.Options{Params: params, Target: target, OverlapBudgetH: budget, K: cvFolds})
	return err
}

// resolveDevice parses the study's device and checks it against the
// linked libxgboost: cuda without CUDA fails; auto without CUDA trains on
// the CPU after one log line.
func resolveDevice(s string, log *slog.Logger) (train.Device, error) {
	d, err := train.ParseDevice(s)
	if err != nil {
		return 0, fmt.Errorf("%w: device: %w", ErrStudy, err)
	}
	if d == train.DeviceCPU {
		return d, nil
	}
	lib, cuda, err := train.LibraryCUDA()
	if err != nil {
		return 0, fmt.Errorf("device %s: %w", s, err)
	}
	r, fallback, err := train.ResolveDevice(d, lib, cuda)
	if err != nil {
		return 0, fmt.Errorf("device %s: %w", s, err)
	}
	if fallback {
		log.Info("device auto: libxgboost has no CUDA, training on the CPU", "libxgboost", lib.String())
	}
	return r, nil
}

func runEvaluate(ctx context.Context, o RunOptions, p features.Protocol, policyList []string, decision time.Duration, dir string) error {
	policies, err := evaluate.ParsePolicies(strings.Join(policyList, ","), nil, 0)
	if err != nil {
		return fmt.Errorf("%w: policies: %w", ErrStudy, err)
	}
	tjobs, err := trace.ReadAll(o.Trace)
	if err != nil {
		return err
	}
	jobs, fo, err := p.Prepare(tjobs)
	if err != nil {
		return err
	}
	opts := evaluate.Options{Features: fo, DecisionSec: int64(decision / time.Second), Workers: o.Workers, Lambda: evaluate.DefaultLambda}
	res, err := evaluate.Replay(ctx, jobs, policies, opts)
	if err != nil {
		return err
	}
	m := evaluate.Compute(res.Rows, opts.Lambda)
	m.Protocol, m.SimConfig = &p, &fo.Config
	return evaluate.WriteDir(dir, m, res.Rows)
}

func renderReport(ctx context.Context, evalDir, dir string, log *slog.Logger) error {
	for _, f := range []string{"metrics.json", "windows.csv"} {
		b, err := os.ReadFile(filepath.Join(evalDir, f))
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, f), b); err != nil {
			return err
		}
	}
	opts := reports.DefaultOptions()
	opts.Logger = log
	_, err := reports.Render(ctx, dir, opts)
	return err
}
