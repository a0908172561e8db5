package pipelines

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/internal/suggest"
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
		return bad("kind", "%q: want %s or %s%s", m.Kind, strings.Join(studyModelKinds[:len(studyModelKinds)-1], ", "), studyModelKinds[len(studyModelKinds)-1], suggest.Hint(m.Kind, studyModelKinds))
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

// trainModel trains m on samples into dir/NAME (train.FitSamples, as
// mirage train); device (xgboost only) is the study's: "" is the CPU.
func trainModel(ctx context.Context, m ModelSpec, b BudgetSpec, device, samples, dir string, log *slog.Logger, progress func(fold, k int)) error {
	opts := train.Options{OverlapBudgetH: overlapBudgetH(b), K: cvFolds(b), BudgetRule: train.BudgetRule(b.Rule), Progress: progress}
	if strings.HasPrefix(m.Kind, "estimate") {
		opts.Target = train.Target(m.Kind)
	} else {
		kind, err := train.ParseKind(m.Kind)
		if err != nil {
			return err
		}
		if opts.Target, err = train.ParseTarget(cmpOr(m.Target, "r")); err != nil {
			return err
		}
		opts.Params = train.DefaultParams(kind)
		if device != "" {
			if opts.Params.Device, err = selectDevice(device, log); err != nil {
				return err
			}
		}
	}
	_, err := train.FitSamples(ctx, samples, filepath.Join(dir, modelName(m)), opts)
	return err
}

// validBudgetRule reports whether r names a train.BudgetRule.
func validBudgetRule(r string) bool {
	_, err := train.ParseBudgetRule(r)
	return err == nil
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
		OverlapBudgetH: overlapBudgetH(b), Logger: log}, cfg, nil) // the study checked the fit before any stage (Study.CheckFit)
	return err
}

// dqnConfig is dqn.DecodeConfig of m's dqn fields and episodes (an
// unknown field is an error).
func dqnConfig(m ModelSpec) (dqn.Config, error) {
	var raw []byte
	if m.DQN != nil {
		var err error
		if raw, err = json.Marshal(m.DQN); err != nil {
			return dqn.Config{}, err
		}
	}
	cfg, err := dqn.DecodeConfig(raw, m.Episodes)
	if err != nil {
		return cfg, fmt.Errorf("%w (want the fields of a DQN manifest's hyper_parameters)", err)
	}
	return cfg, nil
}

// predictModel predicts r (hours) for the samples with the model in
// modelDir (train.PredictFile, as mirage predict) and writes
// dir/predictions.parquet.
func predictModel(ctx context.Context, modelDir, samples, dir string) error {
	a, err := train.OpenPredictor(modelDir)
	if err != nil {
		return err
	}
	_, err = train.PredictFile(ctx, a, modelDir, samples, filepath.Join(dir, "predictions.parquet"))
	return err
}

// selectDevice is train.SelectDevice for the study's device: a bad name
// is an error wrapping ErrStudy.
func selectDevice(s string, log *slog.Logger) (train.Device, error) {
	d, err := train.SelectDevice(s, log)
	if errors.Is(err, train.ErrDevice) {
		return 0, fmt.Errorf("%w: device: %w", ErrStudy, err)
	}
	if err != nil {
		return 0, fmt.Errorf("device %s: %w", s, err)
	}
	return d, nil
}
