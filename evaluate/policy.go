package evaluate

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/train"
)

// ErrPolicy is wrapped by ParsePolicy's errors.
var ErrPolicy = errors.New("invalid policy")

// DecisionContext is what a policy may know at a decision time. Sim is the
// main timeline: policies only read it (Snapshot, EstimatedStart, Started).
type DecisionContext struct {
	// Now is the decision time, Unix seconds.
	Now int64
	// Sim is the main timeline at Now (read-only).
	Sim *sim.Sim
	// P is the predecessor and PID its job ID in Sim.
	P   sim.Job
	PID sim.JobID
	// Q is the successor as it would be submitted now (Submit = Now).
	Q sim.Job
	// PStarted reports whether P has started, at PStart.
	PStarted bool
	PStart   int64
	// RecentMeanWaitSec is the mean wait of the last 100 started jobs.
	RecentMeanWaitSec float64
	// WindowStart is when the window Sim replays starts (Unix seconds;
	// features.Timeline.Start): Sim holds every job submitted from then
	// on, so the forecast resamples arrivals only from [WindowStart, Now).
	// 0: Sim holds the whole trace.
	WindowStart int64
	// JobIndex maps Sim's job IDs to the indices of the jobs run-time
	// predictions (RunTimes) are made for (features.Timeline.JobIndex);
	// nil means the identity (Sim holds those jobs under their indices).
	JobIndex []int
	// local caches RunTimes.Local per run-time model; shared by the
	// contexts of one window (nil: not cached).
	local map[*RunTimes]*RunTimes

	feats    []float64
	featsErr error
	compute  func(dst []float64) error
	memos    map[any]memoEntry
	wide     []float64 // the wide columns at Now, computed on first use
}

type memoEntry struct {
	v   float64
	err error
}

// memo returns f's value at Now, computed on first use under key and
// shared by the policies asked at Now (a forecast's rollouts).
func (c *DecisionContext) memo(key any, f func() (float64, error)) (float64, error) {
	if e, ok := c.memos[key]; ok {
		return e.v, e.err
	}
	v, err := f()
	if c.memos == nil {
		c.memos = map[any]memoEntry{}
	}
	c.memos[key] = memoEntry{v, err}
	return v, err
}

// runTimes returns rt indexed by Sim's job IDs (RunTimes.Local with
// JobIndex; rt itself when JobIndex is nil).
func (c *DecisionContext) runTimes(rt *RunTimes) *RunTimes {
	if c.JobIndex == nil {
		return rt
	}
	if l, ok := c.local[rt]; ok {
		return l
	}
	l := rt.Local(c.JobIndex)
	if c.local != nil {
		c.local[rt] = l
	}
	return l
}

// ExpectedPEnd is P's end as a live provisioner knows it: its start plus
// its limit, or, before it starts, Now plus its limit.
func (c *DecisionContext) ExpectedPEnd() int64 {
	if c.PStarted {
		return c.PStart + c.P.LimitSec
	}
	return c.Now + c.P.LimitSec
}

// Features returns the feature vector at Now (features.Names' order),
// computed on first use and shared by the policies asked at Now.
func (c *DecisionContext) Features() ([]float64, error) {
	if c.feats == nil && c.featsErr == nil {
		c.feats = make([]float64, features.NumFeatures())
		c.featsErr = c.compute(c.feats)
	}
	return c.feats, c.featsErr
}

// Wide returns the wide columns at Now (features.Wide: computed from the
// queue at Now only, as Features), computed on first use and shared by
// the policies asked at Now.
func (c *DecisionContext) Wide() []float64 {
	if c.wide == nil {
		c.wide = make([]float64, features.NumWide)
		features.Wide(c.wide, c.Sim, c.PID, c.P, c.Q)
	}
	return c.wide
}

// Policy decides at each decision time whether to submit Q now.
type Policy interface {
	// Name is the policy's name in the metrics.
	Name() string
}

// Causal is a policy that decides at each grid time from what is known
// then: Replay asks it at every grid time until it submits (at P's end
// at the latest).
type Causal interface {
	Policy
	// Decide reports whether to submit Q at c.Now.
	Decide(c *DecisionContext) (bool, error)
}

// Hindsight is a policy that chooses Q's submission after the window,
// knowing what every grid time's submission would have given: a bound no
// causal policy can reach (the oracles). Replay labels every grid time of
// a window that has one.
type Hindsight interface {
	Policy
	// Choose returns the index of the chosen grid time, given rSec, the
	// signed interruption (seconds; negative is overlap) of Q submitted
	// at each grid time, and lambda, the evaluation's cost of an hour of
	// overlap in hours of interruption (CostH).
	Choose(rSec []int64, lambda float64) int
}

// Reactive submits Q when P ends (never earlier).
type Reactive struct{}

func (Reactive) Name() string                          { return "reactive" }
func (Reactive) Decide(*DecisionContext) (bool, error) { return false, nil }

// Immediate submits Q as soon as it sees P started: at the first decision
// after P's start, since a decision at t sees the queue just before the
// scheduler's passes at t.
type Immediate struct{}

func (Immediate) Name() string { return "immediate" }
func (Immediate) Decide(c *DecisionContext) (bool, error) {
	return c.PStarted, nil
}

// Avg is the artifact's baseline: submit at P's expected end minus the
// mean wait of the last 100 started jobs.
type Avg struct{}

func (Avg) Name() string { return "avg" }
func (Avg) Decide(c *DecisionContext) (bool, error) {
	return float64(c.Now) >= float64(c.ExpectedPEnd())-c.RecentMeanWaitSec, nil
}

// SlurmEstimate submits Q when the backfill planner's estimate of Q's
// start if submitted now (squeue --start) reaches P's expected end minus
// MarginSec; a Q that fits nowhere in the backfill window is submitted.
// With RunTimes it plans with predicted run times instead of limits
// (sim.EstimatedStartPredicted), as "slurm-estimate-rt".
type SlurmEstimate struct {
	MarginSec int64
	RunTimes  bool
}

func (p SlurmEstimate) Name() string {
	if p.RunTimes {
		return "slurm-estimate-rt"
	}
	return "slurm-estimate"
}
func (p SlurmEstimate) Decide(c *DecisionContext) (bool, error) {
	est, ok := c.Sim.EstimatedStart(c.Q)
	if p.RunTimes {
		est, ok = c.Sim.EstimatedStartPredicted(c.Q)
	}
	return !ok || est >= c.ExpectedPEnd()-p.MarginSec, nil
}

// Oracle is the hindsight oracle: of every grid time's submission it
// keeps the one with zero interruption and the least overlap, or else
// the least interruption (Best).
type Oracle struct{}

func (Oracle) Name() string { return "oracle" }

// Choose is Best(rSec).
func (Oracle) Choose(rSec []int64, _ float64) int { return Best(rSec) }

// Model submits Q by its artifact's threshold rule (train.RuleText): the
// score (train.RuleScore: the prediction, or the predicted wait minus P's
// remaining time) ≥ the threshold of the rule parameter θ, τ, λ or margin.
// The parameter is Param when set, else the manifest's operating point
// for the chain's size (chosen on training data), else the target's
// default (θ = 0.5 h, τ = 0.5, λ = 1, margin = 0).
type Model struct {
	Label    string
	Artifact *train.Artifact
	Target   train.Target
	Param    *float64
	// RT are the predictions of the run-time model the artifact's
	// features.ModelEstimateName column needs (bound by BindTrace); nil
	// for a model without that column.
	RT *RunTimes
	// Wide is set when the artifact was trained with the wide columns
	// (features.WideNames after Names'; features build --wide): Predict
	// then appends them (DecisionContext.Wide).
	Wide bool
}

// NewModel opens a model directory and checks its features against the
// features package's (with features.ModelEstimateName last when the
// manifest names a run-time model, whose model file must still have the
// manifest's SHA-256: checkRuntimeModel). A directory of another kind
// (an estimate margin, a DQN, ...) is a *train.KindError. param, when not
// nil, overrides the operating point.
func NewModel(label, dir string, param *float64) (*Model, error) {
	a, err := train.Open(dir)
	if err != nil {
		return nil, err
	}
	if a.Model == nil {
		return nil, &train.KindError{Dir: dir, Kind: a.Manifest.Kind, Target: a.Manifest.Target, Want: "a forest or xgboost model (policy forest:DIR or xgboost:DIR)"}
	}
	wide := features.HasWide(a.Manifest.Features)
	names := features.ColumnNames(wide, false)
	if a.Manifest.RuntimeModel != "" {
		if err := checkRuntimeModel(a.Manifest.RuntimeModel, a.Manifest.RuntimeModelSHA256); err != nil {
			return nil, fmt.Errorf("model %s: %w", dir, err)
		}
		names = append(names, features.ModelEstimateName)
	}
	if err := a.Check(names, features.FeatureSchemaVersion); err != nil {
		return nil, fmt.Errorf("model %s: %w", dir, err)
	}
	t, err := train.ParseTarget(a.Manifest.Target)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", dir, err)
	}
	return &Model{Label: label, Artifact: a, Target: t, Param: param, Wide: wide}, nil
}

// runtimeDir returns the run-time model directory the model's features
// need, or "" when none.
func (m *Model) runtimeDir() string { return m.Artifact.Manifest.RuntimeModel }

// withParam returns a copy of m named label at rule parameter param.
func (m *Model) withParam(label string, param *float64) *Model {
	c := *m
	c.Label, c.Param = label, param
	return &c
}

func (m *Model) Name() string { return m.Label }

// ParamFor returns the rule parameter for a chain of nodes nodes.
func (m *Model) ParamFor(nodes int) float64 {
	return paramFor(m.Param, m.Artifact.Manifest.OperatingPoint, m.Target, nodes)
}

func paramFor(param *float64, op *train.OperatingPoint, t train.Target, nodes int) float64 {
	switch {
	case param != nil:
		return *param
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

// Predict returns the model's prediction at c.Now: r or the wait in
// hours, or the probability of interruption; a NaN or infinite one is an
// error wrapping train.ErrBadModel.
func (m *Model) Predict(c *DecisionContext) (float64, error) {
	f, err := c.Features()
	if err != nil {
		return 0, err
	}
	if m.Wide {
		f = append(f[:len(f):len(f)], c.Wide()...)
	}
	if m.runtimeDir() != "" {
		if m.RT == nil {
			return 0, fmt.Errorf("%w: %s: no run-time predictions (evaluate.BindTrace)", ErrPolicy, m.Label)
		}
		est, _ := c.memo(modelEstimateKey{m.RT}, func() (float64, error) {
			return features.ModelEstimateR(c.Sim, c.PID, c.P, c.Q, c.runTimes(m.RT).MedianSec), nil
		})
		f = append(f[:len(f):len(f)], est)
	}
	row := make([]float32, len(f))
	for i, v := range f {
		if math.IsNaN(v) {
			row[i] = float32(math.NaN())
		} else {
			row[i] = float32(v)
		}
	}
	p := float64(m.Artifact.Model.Predict(row))
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return 0, fmt.Errorf("%w: %s predicts %v", train.ErrBadModel, m.Artifact.Dir, p)
	}
	return p, nil
}

// modelEstimateKey memoizes features.ModelEstimateR per run-time model.
type modelEstimateKey struct{ rt *RunTimes }

func (m *Model) Decide(c *DecisionContext) (bool, error) {
	pred, err := m.Predict(c)
	if err != nil {
		return false, err
	}
	rem := float64(max(c.ExpectedPEnd()-c.Now, 0))
	score := train.RuleScore(m.Target, pred, rem, 0)
	return score >= train.ThresholdOf(m.Target, m.ParamFor(int(c.Q.Nodes))), nil
}

// TrainedEstimate is the scheduler's estimate rule at the margin chosen
// on training data (train --model estimate), per chain size. Unlike
// SlurmEstimate it does not submit at once when Q fits nowhere in the
// backfill window: it takes the window's end as the estimate.
type TrainedEstimate struct {
	Label string
	OP    *train.OperatingPoint
	// Target is train.TargetEstimate, or TargetEstimateRT for the
	// estimate with predicted run times.
	Target train.Target
}

// NewTrainedEstimate opens a `train --model estimate` (or estimate-rt)
// directory; another kind is a *train.KindError.
func NewTrainedEstimate(label, dir string) (*TrainedEstimate, error) {
	a, err := train.Open(dir)
	if err != nil {
		return nil, err
	}
	if a.Manifest.Kind != train.KindEstimate {
		return nil, &train.KindError{Dir: dir, Kind: a.Manifest.Kind, Target: a.Manifest.Target, Want: "an estimate margin (train --model estimate or estimate-rt; policy slurm-estimate:DIR)"}
	}
	t := train.Target(a.Manifest.Target) // train.Open checked it is an estimate
	return &TrainedEstimate{Label: label, OP: a.Manifest.OperatingPoint, Target: t}, nil
}

func (p *TrainedEstimate) Name() string { return p.Label }

// Decide applies train.RuleScore's estimate rule: the estimate, or the
// backfill window's end when Q fits nowhere in it, ≥ P's expected end −
// the margin (the operating point's threshold is −margin, in hours).
func (p *TrainedEstimate) Decide(c *DecisionContext) (bool, error) {
	est, ok := c.Sim.EstimatedStart(c.Q)
	if p.Target == train.TargetEstimateRT {
		est, ok = c.Sim.EstimatedStartPredicted(c.Q)
	}
	if !ok {
		est = c.Now + c.Sim.Config().Backfill.WindowSec
	}
	score := train.RuleScore(p.Target, 0, 0, float64(est-c.ExpectedPEnd()))
	return score >= p.OP.For(int(c.Q.Nodes)).Threshold, nil
}

// SweepParams are the rule parameters `evaluate --sweep` adds per model
// target: θ hours, τ, λ (stop; hours per hour), margin hours.
var SweepParams = map[train.Target][]float64{
	train.TargetR:         {0, 0.25, 0.5, 1, 2, 4},
	train.TargetInterrupt: {0.05, 0.1, 0.2, 0.3, 0.5, 0.7},
	train.TargetCliff:     {0.05, 0.1, 0.2, 0.3, 0.5, 0.7},
	train.TargetWait:      {-1, 0, 0.5, 1, 2, 4},
	train.TargetDeadline:  {-0.5, 0, 0.25, 0.5, 1, 2},
	train.TargetStop:      {0.1, 0.25, 0.5, 1, 2, 4},
}

// sweepSymbol names a target's parameter in a policy name.
func sweepSymbol(t train.Target) string {
	switch t {
	case train.TargetInterrupt, train.TargetCliff:
		return "τ"
	case train.TargetWait, train.TargetDeadline:
		return "margin"
	case train.TargetStop:
		return "λ"
	}
	return "θ"
}

// SweepModels returns ps with, after each model policy at its operating
// point, one variant per SweepParams value of its target, named
// "BASE@θ=V", "BASE@τ=V" or "BASE@margin=V" (hours), and after the
// cost-optimal oracle (oracle-cost) one per SweepLambdas value not
// already in ps, named "oracle-cost@λ=V": the hindsight frontier.
func SweepModels(ps []Policy) []Policy {
	var out []Policy
	for _, p := range ps {
		out = append(out, p)
		if o, ok := p.(OracleCost); ok && o.Lambda == nil {
			for _, v := range SweepLambdas {
				v := v
				name := OracleCost{Lambda: &v}.Name()
				if !slices.ContainsFunc(ps, func(q Policy) bool { return q.Name() == name }) {
					out = append(out, OracleCost{Lambda: &v})
				}
			}
			continue
		}
		if f, ok := p.(*Forecast); ok && !strings.Contains(f.Label, "@") {
			for _, v := range SweepParams[train.TargetInterrupt] {
				v := v
				out = append(out, &Forecast{Label: f.Label + "@τ=" + strconv.FormatFloat(v, 'g', -1, 64), F: f.F, OP: f.OP, Tau: &v, dir: f.dir})
			}
			continue
		}
		m, ok := p.(*Model)
		if !ok || strings.Contains(m.Label, "@") {
			continue
		}
		for _, v := range SweepParams[m.Target] {
			v := v
			out = append(out, m.withParam(m.Label+"@"+sweepSymbol(m.Target)+"="+strconv.FormatFloat(v, 'g', -1, 64), &v))
		}
	}
	return out
}

// ParsePolicies parses a comma-separated policy list: reactive,
// immediate, avg, dependency (Dependency), fixed-lead, fixed-lead@lead=H
// and fixed-lead:DIR (FixedLead; DIR from train --model fixed-lead),
// slurm-estimate, slurm-estimate-rt, slurm-estimate:DIR
// (the margin chosen by train --model estimate or estimate-rt),
// runtime-estimate:DIR and forecast:DIR (DIR from train --model forecast,
// or a run-time model; BindTrace must give them the jobs), oracle,
// oracle-cost, oracle-cost@λ=V (OracleCost with λ = V), forest:DIR,
// xgboost:DIR, dqn:DIR. A model policy runs at its manifest's operating
// point; one θ in thetas (hours) overrides it for models of r, and with
// more than one θ each model of r also gets one policy per θ, named
// "BASE@θ=VALUE". A model directory is opened once, as named (relative
// to the working directory).
func ParsePolicies(list string, thetas []float64, marginSec int64) ([]Policy, error) {
	return ParsePoliciesIn(list, thetas, marginSec, nil)
}

// ParsePoliciesIn is ParsePolicies with the model directories found by
// dirOf: a policy KIND:DIR keeps its name and opens dirOf(DIR) (nil:
// DIR). A caller can so name its models by a path that does not depend
// on where its outputs are (mirage pipeline names them relative to its
// output directory), since the name is in every output.
func ParsePoliciesIn(list string, thetas []float64, marginSec int64, dirOf func(string) string) ([]Policy, error) {
	if err := CheckPolicies(list); err != nil { // the names, before any directory is opened
		return nil, err
	}
	var out []Policy
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		base, tm, err := cutTimeMin(s)
		if err != nil {
			return nil, err
		}
		ps, err := parsePolicy(base, thetas, marginSec, dirOf)
		if err != nil {
			return nil, err
		}
		if tm.set {
			if ps, err = withTimeMins(ps, tm); err != nil {
				return nil, err
			}
		}
		out = append(out, ps...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no policy", ErrPolicy)
	}
	return out, nil
}

// parsePolicy parses one policy of a list (ParsePoliciesIn), without a
// time-min suffix: one policy, or a model's θ sweep.
func parsePolicy(s string, thetas []float64, marginSec int64, dirOf func(string) string) ([]Policy, error) {
	switch s {
	case "reactive":
		return []Policy{Reactive{}}, nil
	case "immediate":
		return []Policy{Immediate{}}, nil
	case "avg":
		return []Policy{Avg{}}, nil
	case "slurm-estimate":
		return []Policy{SlurmEstimate{MarginSec: marginSec}}, nil
	case "slurm-estimate-rt":
		return []Policy{SlurmEstimate{MarginSec: marginSec, RunTimes: true}}, nil
	case "oracle":
		return []Policy{Oracle{}}, nil
	case OracleCostName:
		return []Policy{OracleCost{}}, nil
	case DependencyName:
		return []Policy{Dependency{}}, nil
	default:
		if o, ok, err := parseOracleCost(s); ok {
			if err != nil {
				return nil, err
			}
			return []Policy{o}, nil
		}
		if f, ok, err := parseFixedLead(s); ok {
			if err != nil {
				return nil, err
			}
			return []Policy{f}, nil
		}
		kind, dir, ok := strings.Cut(s, ":")
		if ok && dir != "" && dirOf != nil {
			dir = dirOf(dir)
		}
		if ok && kind == "dqn" && dir != "" {
			d, err := NewDQN(s, dir)
			if err != nil {
				return nil, err
			}
			return []Policy{d}, nil
		}
		if ok && (kind == "forecast" || kind == "runtime-estimate") && dir != "" {
			f, err := newForecastPolicy(s, kind, dir)
			if err != nil {
				return nil, err
			}
			return []Policy{f}, nil
		}
		if ok && kind == FixedLeadName && dir != "" {
			f, err := NewFixedLead(s, dir)
			if err != nil {
				return nil, err
			}
			return []Policy{f}, nil
		}
		if ok && kind == "slurm-estimate" && dir != "" {
			e, err := NewTrainedEstimate(s, dir)
			if err != nil {
				return nil, err
			}
			return []Policy{e}, nil
		}
		if !ok || (kind != "forest" && kind != "xgboost") || dir == "" {
			return nil, fmt.Errorf("%w %q: %s%s", ErrPolicy, s, policyWant, policyHint(s))
		}
		var param *float64
		if len(thetas) == 1 {
			param = &thetas[0]
		}
		m, err := NewModel(s, dir, param)
		if err != nil {
			return nil, err
		}
		out := []Policy{m}
		if len(thetas) < 2 {
			return out, nil
		}
		if m.Target != train.TargetR {
			return nil, fmt.Errorf("%w: --theta sweeps models of r; %s predicts %s (use --sweep)", ErrPolicy, s, m.Target)
		}
		for _, th := range thetas {
			th := th
			out = append(out, m.withParam(s+"@θ="+strconv.FormatFloat(th, 'g', -1, 64), &th))
		}
		return out, nil
	}
}
