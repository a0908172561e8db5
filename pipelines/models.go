package pipelines

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/dqn"
)

// studyModelKinds are the model kinds a study trains: train's tree
// models, the scheduler's estimate (with limits, with predicted run
// times) and the DQN.
var studyModelKinds = []string{train.KindForest.String(), train.KindXGBoost.String(),
	string(train.TargetEstimate), string(train.TargetEstimateRT), train.KindDQN}

// checkModel checks a study's model spec, models[i], naming the field.
func checkModel(i int, m ModelSpec) error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("%w: models[%d].%s: %s", ErrStudy, i, field, fmt.Sprintf(format, args...))
	}
	if !slices.Contains(studyModelKinds, m.Kind) {
		return bad("kind", "%q: want %s or %s", m.Kind, strings.Join(studyModelKinds[:len(studyModelKinds)-1], ", "), studyModelKinds[len(studyModelKinds)-1])
	}
	switch {
	case m.Episodes != 0 && m.Kind != train.KindDQN:
		return bad("episodes", "%d: for kind dqn only, not %s", m.Episodes, m.Kind)
	case m.DQN != nil && m.Kind != train.KindDQN:
		return bad("dqn", "for kind dqn only, not %s", m.Kind)
	}
	if _, err := train.ParseKind(m.Kind); err == nil { // a tree model
		if _, err := train.ParseTarget(cmpOr(m.Target, string(train.TargetR))); err != nil {
			return bad("target", "%s: %v", m.Kind, err)
		}
		return nil
	}
	if m.Target != "" {
		return bad("target", "%q: %s takes no target", m.Target, m.Kind)
	}
	if m.Episodes < 0 {
		return bad("episodes", "%d: want >= 0 (0 = the default)", m.Episodes)
	}
	if _, err := dqnConfig(m); err != nil {
		return bad("dqn", "%v", err)
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

// predictsR says whether m is a regressor of r (forest or xgboost of
// target r), whose predictions the report draws against the labels.
func predictsR(m ModelSpec) bool {
	return (m.Kind == "forest" || m.Kind == "xgboost") && cmpOr(m.Target, "r") == "r"
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
	budget := overlapBudgetH(b)
	out := filepath.Join(dir, modelName(m))
	if strings.HasPrefix(m.Kind, "estimate") {
		_, err := train.RunEstimate(s, meta, out, train.Options{Target: train.Target(m.Kind), OverlapBudgetH: budget, K: cvFolds(b)})
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
	_, err = train.Run(ctx, s, meta, out, train.Options{Params: params, Target: target, OverlapBudgetH: budget, K: cvFolds(b)})
	return err
}

// overlapBudgetH is the study's overlap budget in hours (the default
// when unset).
func overlapBudgetH(b BudgetSpec) float64 {
	if h := time.Duration(b.Overlap).Hours(); h > 0 {
		return h
	}
	return train.DefaultOverlapBudgetH
}

// trainDQN trains the DQN of m (mirage train --model dqn) on the
// training period p of the trace into dir/dqn: model.safetensors,
// model.onnx, manifest.json and curve.csv. The mirage version is not
// written into the manifest, so that the model's bytes depend only on
// the stage's key.
func trainDQN(ctx context.Context, m ModelSpec, b BudgetSpec, p features.Protocol, tracePath, dir string, log *slog.Logger) error {
	cfg, err := dqnConfig(m)
	if err != nil {
		return err
	}
	_, err = dqn.Fit(ctx, dqn.FitOptions{Trace: tracePath, Protocol: p.Name, Spec: &p, Dir: filepath.Join(dir, modelName(m)),
		OverlapBudgetH: overlapBudgetH(b)}, cfg, func(c dqn.CurvePoint) {
		if c.Episode%50 == 0 {
			log.Info("dqn", "episode", c.Episode, "return", c.Return, "loss", c.Loss, "epsilon", c.Epsilon)
		}
	})
	return err
}

// dqnConfig is dqn.DefaultConfig with m's dqn fields and episodes (an
// unknown field is an error).
func dqnConfig(m ModelSpec) (dqn.Config, error) {
	cfg := dqn.DefaultConfig()
	if m.DQN != nil {
		b, err := json.Marshal(m.DQN)
		if err != nil {
			return cfg, err
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			return cfg, fmt.Errorf("%w (want the fields of a DQN manifest's hyper_parameters)", err)
		}
	}
	if m.Episodes > 0 {
		cfg.Episodes = m.Episodes
	}
	return cfg, nil
}

// predictModel predicts r (hours) for the samples with the model in
// modelDir (pure Go, as mirage predict) and writes
// dir/predictions.parquet.
func predictModel(ctx context.Context, modelDir, samples, dir string) error {
	a, err := train.Open(modelDir)
	if err != nil {
		return err
	}
	s, meta, err := train.ReadSamples(ctx, samples)
	if err != nil {
		return err
	}
	if err := a.CheckRuntime(meta); err != nil {
		return fmt.Errorf("predict %s with %s: %w", samples, modelDir, err)
	}
	pred, err := a.Predict(s, meta.SchemaVersion)
	if err != nil {
		return fmt.Errorf("predict %s with %s: %w", samples, modelDir, err)
	}
	return train.WritePredictions(filepath.Join(dir, "predictions.parquet"), s, pred,
		filepath.Base(modelDir)+" sha256:"+a.Manifest.ModelSHA256)
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
