package advise

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/dqn"
	"github.com/mirage-hpc/mirage/train/jobruntime"
)

// Model turns a feature vector into a decision. Open loads the project's
// artifacts; a deployment tool may supply its own.
type Model interface {
	// Score scores the feature vector x (features.Names' order, then
	// features.WideNames when Info().Live.Wide is set, then
	// features.ModelEstimateName when Info().Live.RuntimeModel is set) of
	// a chain of nodes nodes; pRemainingSec is P's time to its expected
	// end (seconds, ≥ 0), which some rules use.
	Score(x []float64, nodes int, pRemainingSec float64) Score
	// Info describes the model.
	Info() ModelInfo
}

// Score is one scored decision: submit when Value ≥ Threshold.
type Score struct {
	// Prediction is the model's raw output: r or a wait in hours, P(r >
	// 0), or the DQN's advantage Q(submit) − Q(wait).
	Prediction float64 `json:"prediction"`
	// Value is the rule's score (train.RuleScore) and Threshold the
	// operating point's threshold on it.
	Value     float64 `json:"score"`
	Threshold float64 `json:"threshold"`
	Submit    bool    `json:"submit"`
	// Param is the rule parameter (θ h, τ, margin h or bias h) for the
	// chain's size, and ParamName its name.
	Param     float64 `json:"param"`
	ParamName string  `json:"param_name"`
}

// ModelInfo describes a loaded model.
type ModelInfo struct {
	Dir    string `json:"dir"`
	Kind   string `json:"kind"`   // forest, xgboost, dqn or estimate
	Target string `json:"target"` // r, interrupt, ..., advantage
	Rule   string `json:"rule"`
	// Digest is the SHA-256 of the model file (checked when loaded).
	Digest string `json:"sha256"`
	// Protocol is the features protocol trained on.
	Protocol string `json:"protocol"`
	// RuntimeModel and RuntimeModelSHA256 are the run-time model of the
	// features.ModelEstimateName column and its model file's SHA-256
	// (checked when loaded); empty for a model without that column.
	RuntimeModel       string `json:"runtime_model,omitempty"`
	RuntimeModelSHA256 string `json:"runtime_model_sha256,omitempty"`
	// OperatingPoint is the manifest's (nil: the target's default); not
	// in JSON (its frontier is long): OverlapBudgetH says what it was
	// chosen for.
	OperatingPoint *train.OperatingPoint `json:"-"`
	// OverlapBudgetH is the operating point's overlap budget, hours of
	// mean overlap per window; 0 without an operating point.
	OverlapBudgetH float64 `json:"overlap_budget_h,omitempty"`
	// Live is the protocol's reading of a live queue: simulator
	// configuration and calendar zone.
	Live LiveOptions `json:"-"`
}

// Open loads a model directory of `mirage train` (forest, xgboost, dqn or
// estimate), checking its seal (train.ErrDigest: the manifest and every
// file; train.ErrUnsealed for a directory from before seals), its kind (a
// *train.KindError, naming the commands that take it, for a run-time
// model, a forecast or another directory) and its
// feature names and schema version against the features package
// (train.ErrFeatures), and derives the live options from its manifest:
// the simulator configuration it was trained in (the manifest's, else its
// protocol's profile, else sim.DefaultConfig) and its protocol's zone.
// A model whose features end with features.ModelEstimateName (its
// manifest names a run-time model) gets that run-time model in
// LiveOptions.RuntimeModel; one that is missing, or whose model file no
// longer has the manifest's SHA-256, is an error wrapping ErrRuntimeModel
// and train.ErrDigest that names its directory and both digests.
func Open(dir string) (Model, error) {
	kind, target, err := train.ReadKind(dir)
	if err != nil {
		return nil, err
	}
	switch kind {
	case train.KindDQN:
		return openDQN(dir)
	case "forest", "xgboost", train.KindEstimate:
	default:
		return nil, &train.KindError{Dir: dir, Kind: kind, Target: target, Want: "a model advise takes (forest, xgboost, estimate or dqn)"}
	}
	a, err := train.Open(dir)
	if err != nil {
		return nil, err
	}
	m := &treeModel{a: a}
	m.info = ModelInfo{Dir: dir, Kind: a.Manifest.Kind, Target: a.Manifest.Target, Digest: a.Manifest.ModelSHA256,
		Protocol: a.Manifest.Protocol, OperatingPoint: a.Manifest.OperatingPoint}
	if a.Manifest.Kind == train.KindEstimate {
		m.target = train.Target(a.Manifest.Target) // train.Open checked it is an estimate
	} else if m.target, err = train.ParseTarget(a.Manifest.Target); err != nil {
		return nil, fmt.Errorf("model %s: %w: %w", dir, train.ErrBadModel, err)
	}
	var rt *jobruntime.Model
	wide := false
	if a.Manifest.Kind != train.KindEstimate {
		wide = features.HasWide(a.Manifest.Features)
		names := features.ColumnNames(wide, false)
		if a.Manifest.RuntimeModel != "" {
			if rt, err = openRuntimeModel(dir, a.Manifest.RuntimeModel, a.Manifest.RuntimeModelSHA256); err != nil {
				return nil, err
			}
			names = append(names, features.ModelEstimateName)
			m.info.RuntimeModel, m.info.RuntimeModelSHA256 = a.Manifest.RuntimeModel, a.Manifest.RuntimeModelSHA256
		}
		if err := a.Check(names, features.FeatureSchemaVersion); err != nil {
			return nil, fmt.Errorf("model %s: %w", dir, err)
		}
	}
	m.info.Rule = train.RuleText(m.target)
	if op := m.info.OperatingPoint; op != nil {
		m.info.OverlapBudgetH = op.BudgetH
	}
	if m.info.Live, err = liveOptions(a.Manifest.SimConfig, a.Manifest.Protocol, nil); err != nil {
		return nil, fmt.Errorf("model %s: %w", dir, err)
	}
	m.info.Live.RuntimeModel, m.info.Live.Wide = rt, wide
	return m, nil
}

func openDQN(dir string) (Model, error) {
	d, err := dqn.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := d.Check(features.Names(), features.FeatureSchemaVersion); err != nil {
		return nil, fmt.Errorf("model %s: %w: %w", dir, train.ErrFeatures, err)
	}
	m := &dqnModel{m: d}
	m.info = ModelInfo{Dir: dir, Kind: "dqn", Target: string(train.TargetAdvantage), Rule: train.RuleText(train.TargetAdvantage),
		Digest: d.Manifest.Files[dqn.WeightsFile].SHA256, Protocol: d.Manifest.Protocol, OperatingPoint: d.Manifest.OperatingPoint}
	if op := m.info.OperatingPoint; op != nil {
		m.info.OverlapBudgetH = op.BudgetH
	}
	if m.info.Live, err = liveOptions(nil, d.Manifest.Protocol, d.Manifest.ProtocolSpec); err != nil {
		return nil, fmt.Errorf("model %s: %w", dir, err)
	}
	return m, nil
}

// liveOptions derives the simulator configuration and zone of a model.
func liveOptions(simConfig json.RawMessage, protocol string, spec *features.Protocol) (LiveOptions, error) {
	// Every protocol predicts run times from the trace's ended jobs
	// (features.Protocol.Prepare): live, from sacct's.
	o := LiveOptions{Config: sim.DefaultConfig(), Location: time.UTC, PredictRunTimes: true}
	if spec == nil && protocol != "" {
		if p, err := features.LookupProtocol(protocol); err == nil {
			spec = &p
		}
	}
	if spec != nil {
		prof, err := spec.SimProfile()
		if err != nil {
			return o, err
		}
		cfg := prof.Config
		if spec.Nodes > 0 {
			cfg.Nodes = spec.Nodes
		}
		o.Config = cfg
		if spec.TZ != "" {
			loc, err := time.LoadLocation(spec.TZ)
			if err != nil {
				return o, fmt.Errorf("protocol zone: %w", err)
			}
			o.Location = loc
		}
	}
	if len(simConfig) > 0 {
		var cfg sim.Config
		if err := json.Unmarshal(simConfig, &cfg); err != nil {
			return o, fmt.Errorf("sim config: %w", err)
		}
		o.Config = cfg
	}
	return o, nil
}

// treeModel is a forest, xgboost or estimate artifact.
type treeModel struct {
	a      *train.Artifact
	target train.Target
	info   ModelInfo
	row    []float32
}

func (m *treeModel) Info() ModelInfo { return m.info }

// estimate feature indices (q_est_start_minus_p_end_sec and the
// predicted run-time variant).
var estIdx, estRTIdx = featureIndex("q_est_start_minus_p_end_sec"), featureIndex("q_est_rt_start_minus_p_end_sec")

func featureIndex(name string) int {
	for i, n := range features.Names() {
		if n == name {
			return i
		}
	}
	panic("advise: no feature " + name)
}

func (m *treeModel) Score(x []float64, nodes int, pRemainingSec float64) Score {
	var pred, est float64
	switch m.target {
	case train.TargetEstimate:
		est = x[estIdx]
	case train.TargetEstimateRT:
		est = x[estRTIdx]
	case train.TargetFixedLead: // the rule reads P's remaining time only
	default:
		m.row = m.row[:0]
		for _, v := range x {
			m.row = append(m.row, float32(v))
		}
		pred = float64(m.a.Model.Predict(m.row))
	}
	param := paramFor(m.info.OperatingPoint, m.target, nodes)
	s := Score{Prediction: pred, Value: train.RuleScore(m.target, pred, pRemainingSec, est),
		Threshold: train.ThresholdOf(m.target, param), Param: param, ParamName: train.ParamName(m.target)}
	s.Submit = s.Value >= s.Threshold
	return s
}

// paramFor is evaluate.Model's rule parameter: the operating point's for
// the chain's size, else the target's default (θ = 0.5 h, τ = 0.5, λ = 1,
// margin = 0).
func paramFor(op *train.OperatingPoint, t train.Target, nodes int) float64 {
	switch {
	case op != nil:
		return op.For(nodes).Value
	case t == train.TargetR:
		return train.DefaultThetaHours
	case t.Classification():
		return 0.5
	case t == train.TargetStop:
		return train.DefaultStopLambda
	}
	return 0
}

// dqnModel is a DQN artifact.
type dqnModel struct {
	m    *dqn.Model
	info ModelInfo
}

func (m *dqnModel) Info() ModelInfo { return m.info }

func (m *dqnModel) Score(x []float64, nodes int, _ float64) Score {
	q := m.m.Q(nil, x)
	adv := q[dqn.ActionSubmit] - q[dqn.ActionWait]
	s := Score{Prediction: adv, Value: adv, ParamName: train.ParamName(train.TargetAdvantage)}
	if op := m.m.Manifest.OperatingPoint; op != nil {
		cp := op.For(nodes)
		s.Threshold, s.Param = cp.Threshold, cp.Value
		s.Submit = adv >= cp.Threshold
	} else {
		s.Submit = m.m.Submit(x) // greedy: ties wait
		s.Threshold = math.SmallestNonzeroFloat64
	}
	return s
}
