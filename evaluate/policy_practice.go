package evaluate

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/train"
)

// The baselines of practice: what a user of Slurm does without a model.

// DependencyName is the dependency baseline's name.
const DependencyName = "dependency"

// Dependency is the dependency chain: Q is submitted as soon as P is seen
// running, held until P ends (sbatch --dependency=afterany:$SLURM_JOB_ID
// from P's own script), so it is eligible at P's end and accrues age
// only from then, as a reactive Q would (Slurm's default: a job waiting
// on a dependency accrues no age priority). Q never starts before P
// ends.
type Dependency struct{}

func (Dependency) Name() string { return DependencyName }

// Decide submits once P has started.
func (Dependency) Decide(c *DecisionContext) (bool, error) { return c.PStarted, nil }

// heldQ marks Dependency's Q as held until P ends.
func (Dependency) heldQ() {}

// HeldQ is a policy whose Q is submitted held until P ends (sim.Job.After
// = P): Replay and the lifetimes submit it so.
type HeldQ interface {
	Causal
	heldQ()
}

func isHeld(p Policy) bool {
	_, ok := unwrapPolicy(p).(HeldQ)
	return ok
}

// heldOutcome forks tl's simulation at t (where Advance left it), submits
// Q (template q) held until P ends, runs the fork until Q starts and returns Q's
// start and r against P's end in the fork (pEnd when P has not started).
func heldOutcome(ctx context.Context, tl *features.Timeline, t, pEnd int64, q sim.Job) (label, error) {
	f := tl.Sim().Clone(nil)
	q.Submit, q.After = t, tl.PID()
	qid, err := f.Submit(q)
	if err != nil {
		return label{}, err
	}
	qStart, err := f.RunUntilStarted(ctx, qid)
	if err != nil {
		return label{}, fmt.Errorf("held Q submitted at %d: %w", t, err)
	}
	end := pEnd
	if st, ok := f.Started(tl.PID()); ok {
		end = st + tl.P().RunSec
	}
	lim, _ := f.Limit(qid)
	return label{done: true, qStart: qStart, rSec: qStart - end, qLimit: lim}, nil
}

// FixedLeadName is the fixed-lead baseline's family name.
const FixedLeadName = "fixed-lead"

// DefaultFixedLeadH is the lead of a plain fixed-lead policy, hours.
const DefaultFixedLeadH = 1.0

// FixedLead submits Q a fixed lead before P's expected end (its start plus
// its limit): the first decision time with P's remaining time ≤ the lead.
// It is what sbatch --dependency=after:$SLURM_JOB_ID+N does, N the limit
// minus the lead in minutes, on the decision grid. The lead is LeadH
// when set, else the operating point's (train --model fixed-lead, chosen
// per chain size on training windows for the overlap budget), else
// DefaultFixedLeadH.
type FixedLead struct {
	Label string
	LeadH *float64
	OP    *train.OperatingPoint
}

func (p *FixedLead) Name() string { return p.Label }

// LeadFor returns the lead in hours for a chain of nodes nodes.
func (p *FixedLead) LeadFor(nodes int) float64 {
	switch {
	case p.LeadH != nil:
		return *p.LeadH
	case p.OP != nil:
		return p.OP.For(nodes).Value
	}
	return DefaultFixedLeadH
}

// Decide submits when P's remaining time to its expected end is at most
// the lead (train.RuleScore of train.TargetFixedLead ≥ −lead).
func (p *FixedLead) Decide(c *DecisionContext) (bool, error) {
	rem := float64(max(c.ExpectedPEnd()-c.Now, 0))
	score := train.RuleScore(train.TargetFixedLead, 0, rem, 0)
	return score >= train.ThresholdOf(train.TargetFixedLead, p.LeadFor(int(c.Q.Nodes))), nil
}

// NewFixedLead opens a `train --model fixed-lead` directory; another kind
// is a *train.KindError.
func NewFixedLead(label, dir string) (*FixedLead, error) {
	a, err := train.Open(dir)
	if err != nil {
		return nil, err
	}
	if a.Manifest.Kind != train.KindEstimate || train.Target(a.Manifest.Target) != train.TargetFixedLead {
		return nil, &train.KindError{Dir: dir, Kind: a.Manifest.Kind, Target: a.Manifest.Target, Want: "a fixed lead (train --model fixed-lead; policy fixed-lead:DIR)"}
	}
	return &FixedLead{Label: label, OP: a.Manifest.OperatingPoint}, nil
}

// parseFixedLead parses "fixed-lead" and "fixed-lead@lead=V" (V hours,
// finite, >= 0).
func parseFixedLead(s string) (*FixedLead, bool, error) {
	if s == FixedLeadName {
		return &FixedLead{Label: s}, true, nil
	}
	v, ok := strings.CutPrefix(s, FixedLeadName+"@lead=")
	if !ok {
		return nil, false, nil
	}
	l, err := strconv.ParseFloat(v, 64)
	if err != nil || !(l >= 0) || math.IsInf(l, 1) {
		return nil, true, fmt.Errorf("%w %q: the lead must be a finite number of hours >= 0", ErrPolicy, s)
	}
	return &FixedLead{Label: s, LeadH: &l}, true, nil
}
