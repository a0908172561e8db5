// The plan: the stage values Run builds for a study (training,
// prediction, features and evaluation stages), each with its inputs, key
// parts and body.

package pipelines

import (
	"context"
	"path/filepath"
	"slices"
	"time"

	"github.com/mirage-hpc/mirage/features"
)

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
			return trainModel(ctx, m, s.Budget, device, samplesPath, dir, o.Logger, o.progress("train-"+modelName(m), "CV folds"))
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
	o.stage = name
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
		Output     int
		RealChains bool          `json:",omitempty"`
		Lifetime   *LifetimeSpec `json:",omitempty"`
	}{p, s.Policies, s.Grid.Decision, s.Sweep, 3, s.RealChains, s.Lifetime}, inputs: inputs,
		run: func(ctx context.Context, dir string) error {
			return runEvaluate(ctx, o, p, policies, s.Sweep, decision, s.RealChains, s.Lifetime, dir)
		},
		windows: p.Windows,
		shard: func(ctx context.Context, i, n int, dir string) error {
			return evaluateShard(ctx, o, p, policies, s.Sweep, decision, i, n, dir)
		},
		merge: func(ctx context.Context, shards []string, dir string) error {
			return mergeEvaluate(ctx, o, p, policies, s.Sweep, decision, s.RealChains, s.Lifetime, shards, dir)
		}}
}
