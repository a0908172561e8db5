package evaluate

import (
	"errors"
	"fmt"
	"math"
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

	feats    []float64
	featsErr error
	compute  func(dst []float64) error
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

// Policy decides at each decision time whether to submit Q now.
type Policy interface {
	// Name is the policy's name in the metrics.
	Name() string
	// Decide reports whether to submit Q at c.Now.
	Decide(c *DecisionContext) (bool, error)
}

// Reactive submits Q when P ends (never earlier).
type Reactive struct{}

func (Reactive) Name() string                          { return "reactive" }
func (Reactive) Decide(*DecisionContext) (bool, error) { return false, nil }

// Immediate submits Q as soon as P has started.
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
type SlurmEstimate struct {
	MarginSec int64
}

func (p SlurmEstimate) Name() string { return "slurm-estimate" }
func (p SlurmEstimate) Decide(c *DecisionContext) (bool, error) {
	est, ok := c.Sim.EstimatedStart(c.Q)
	return !ok || est >= c.ExpectedPEnd()-p.MarginSec, nil
}

// Oracle marks the oracle: Replay labels every grid time and keeps the
// submission with zero interruption and the least overlap, or else the
// least interruption. Its Decide is never called.
type Oracle struct{}

func (Oracle) Name() string                          { return "oracle" }
func (Oracle) Decide(*DecisionContext) (bool, error) { return false, nil }

// Model submits Q when the model's predicted r (hours) is >= -ThetaHours
// (train.ThresholdPolicy).
type Model struct {
	Label      string
	Artifact   *train.Artifact
	ThetaHours float64
}

// NewModel opens a model directory and checks its features against the
// features package's.
func NewModel(label, dir string, thetaHours float64) (*Model, error) {
	a, err := train.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := a.Check(features.Names(), features.FeatureSchemaVersion); err != nil {
		return nil, fmt.Errorf("model %s: %w", dir, err)
	}
	return &Model{Label: label, Artifact: a, ThetaHours: thetaHours}, nil
}

func (m *Model) Name() string { return m.Label }

// Predict returns the predicted r in hours at c.Now.
func (m *Model) Predict(c *DecisionContext) (float64, error) {
	f, err := c.Features()
	if err != nil {
		return 0, err
	}
	row := make([]float32, len(f))
	for i, v := range f {
		if math.IsNaN(v) {
			row[i] = float32(math.NaN())
		} else {
			row[i] = float32(v)
		}
	}
	return float64(m.Artifact.Model.Predict(row)), nil
}

func (m *Model) Decide(c *DecisionContext) (bool, error) {
	r, err := m.Predict(c)
	if err != nil {
		return false, err
	}
	return train.ThresholdPolicy{ThetaHours: m.ThetaHours}.Submit(r), nil
}

// ParsePolicies parses a comma-separated policy list: reactive,
// immediate, avg, slurm-estimate, oracle, forest:DIR, xgboost:DIR. Model
// policies get one policy per θ in thetas (hours; nil: 0.5); with more
// than one θ their names end in "@θ=VALUE". A model directory is opened
// once.
func ParsePolicies(list string, thetas []float64, marginSec int64) ([]Policy, error) {
	if len(thetas) == 0 {
		thetas = []float64{train.DefaultThetaHours}
	}
	var out []Policy
	seen := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if seen[s] {
			return nil, fmt.Errorf("%w: %q given twice", ErrPolicy, s)
		}
		seen[s] = true
		switch s {
		case "reactive":
			out = append(out, Reactive{})
		case "immediate":
			out = append(out, Immediate{})
		case "avg":
			out = append(out, Avg{})
		case "slurm-estimate":
			out = append(out, SlurmEstimate{MarginSec: marginSec})
		case "oracle":
			out = append(out, Oracle{})
		default:
			kind, dir, ok := strings.Cut(s, ":")
			if ok && kind == "dqn" && dir != "" {
				d, err := NewDQN(s, dir)
				if err != nil {
					return nil, err
				}
				out = append(out, d)
				continue
			}
			if !ok || (kind != "forest" && kind != "xgboost") || dir == "" {
				return nil, fmt.Errorf("%w %q: want reactive, immediate, avg, slurm-estimate, oracle, forest:DIR, xgboost:DIR or dqn:DIR", ErrPolicy, s)
			}
			m, err := NewModel(s, dir, thetas[0])
			if err != nil {
				return nil, err
			}
			if len(thetas) == 1 {
				out = append(out, m)
				continue
			}
			for _, th := range thetas {
				mm := &Model{Label: s + "@θ=" + strconv.FormatFloat(th, 'g', -1, 64), Artifact: m.Artifact, ThetaHours: th}
				out = append(out, mm)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no policy", ErrPolicy)
	}
	return out, nil
}
