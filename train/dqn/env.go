package dqn

import (
	"context"
	"fmt"
	"slices"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
)

// Env is the provisioning environment over one trace and protocol. An
// episode is one window starting at a chosen time; Reset starts it and
// Step advances it. It is not safe for concurrent use.
type Env struct {
	jobs []sim.Job
	opts features.Options // normalised; Start/Windows replaced per episode
	user int32
	// DecisionSec is the decision interval (600 by default).
	DecisionSec int64
	// Lambda weighs overlap hours against interruption hours.
	Lambda float64

	ep      features.Options
	tl      *features.Timeline
	grid    []int64
	k       int
	pEnd    int64
	raw     []float64
	nodes   int
	lastR   int64
	started bool
}

// NewEnv returns an environment over jobs under opts (features.Protocol's
// Prepare); opts is normalised and copied.
func NewEnv(jobs []sim.Job, opts features.Options) (*Env, error) {
	o := opts
	o.Probes = max(o.Probes, 1)
	o.ChainNodes = slices.Clone(o.ChainNodes)
	if err := features.Normalise(&o); err != nil {
		return nil, err
	}
	return &Env{jobs: jobs, opts: o, user: features.ChainUser(jobs), DecisionSec: 600, Lambda: 0.5,
		raw: make([]float64, features.NumFeatures())}, nil
}

// Span returns the first and last window start of the protocol's period.
func (e *Env) Span() (first, last int64) {
	return e.opts.Start, e.opts.Start + int64(max(e.opts.Windows-1, 0))*e.opts.IntervalSec
}

// ChainNodes returns the protocol's chain sizes.
func (e *Env) ChainNodes() []int { return e.opts.ChainNodes }

// Reset starts an episode: the window starting at start with a chain of
// nodes nodes, at P's submission. It writes the raw feature vector into
// state (NumFeatures values).
func (e *Env) Reset(ctx context.Context, start int64, nodes int, state []float64) error {
	e.ep = e.opts
	e.ep.Start, e.ep.Windows = start, 1
	tl, err := features.NewTimeline(ctx, e.jobs, &e.ep, 0, nodes, e.user)
	if err != nil {
		return err
	}
	pre := tl.Sim().Clone(nil)
	pStart, err := pre.RunUntilStarted(ctx, tl.PID())
	if err != nil {
		return fmt.Errorf("pre-simulate P: %w", err)
	}
	p := tl.P()
	e.tl, e.nodes, e.started = tl, nodes, true
	e.pEnd = pStart + p.RunSec
	e.grid = features.DecisionGrid(e.grid[:0], p.Submit, pStart, e.pEnd, e.DecisionSec)
	e.k = 0
	return e.observe(ctx, state)
}

func (e *Env) observe(ctx context.Context, state []float64) error {
	if err := e.tl.Advance(ctx, e.grid[e.k]); err != nil {
		return err
	}
	return e.tl.Features(ctx, state)
}

// Now returns the current decision time.
func (e *Env) Now() int64 { return e.grid[e.k] }

// Last reports whether the current decision time is P's end, where Q is
// submitted whatever the action.
func (e *Env) Last() bool { return e.k == len(e.grid)-1 }

// Step applies action at the current decision time. On wait it moves to the
// next decision time and writes its raw features into state; on submit (or
// at the last time) it forks, runs Q until it starts and returns the
// terminal reward and done. The reward is −(interruption h + λ·overlap h).
func (e *Env) Step(ctx context.Context, action int, state []float64) (reward float64, done bool, err error) {
	if !e.started {
		return 0, true, fmt.Errorf("dqn: Step before Reset")
	}
	if action == ActionSubmit || e.Last() {
		_, rSec, err := e.tl.QOutcome(ctx, e.grid[e.k], e.pEnd)
		if err != nil {
			return 0, true, err
		}
		e.started, e.lastR = false, rSec
		return Reward(rSec, e.Lambda), true, nil
	}
	e.k++
	return 0, false, e.observe(ctx, state)
}

// SubmitOutcome returns the reward and r that submitting Q at the current
// decision time would give, without ending the episode: the simulator is
// forked there, so the main timeline is untouched.
func (e *Env) SubmitOutcome(ctx context.Context) (reward float64, rSec int64, err error) {
	if !e.started {
		return 0, 0, fmt.Errorf("dqn: SubmitOutcome before Reset")
	}
	_, rSec, err = e.tl.QOutcome(ctx, e.grid[e.k], e.pEnd)
	if err != nil {
		return 0, 0, err
	}
	return Reward(rSec, e.Lambda), rSec, nil
}

// RSec returns r (Q.start − P.end, seconds) of the episode that just ended.
func (e *Env) RSec() int64 { return e.lastR }

// Reward returns −(max(r, 0) + λ·max(−r, 0)) in hours.
func Reward(rSec int64, lambda float64) float64 {
	return -(float64(max(rSec, 0)) + lambda*float64(max(-rSec, 0))) / 3600
}
