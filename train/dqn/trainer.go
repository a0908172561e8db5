package dqn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/mirage-hpc/mirage/features"
)

// trainer is the state of one Train call: the agent and its replay buffer,
// the windows episodes are drawn from, and the result so far.
type trainer struct {
	env *Env
	cfg Config
	// stopping is the stopping target (Config.Target): an episode's
	// transitions are held until its trajectory is complete.
	stopping bool
	agent    *Agent
	rng      *rand.Rand
	// starts are the training window starts (outside the held-out
	// segments and their workload margins) and nodes the chain sizes: an
	// episode draws one of each.
	starts []int64
	nodes  []int
	res    *Result
	st     Stats   // the standardisation (res.Stats), set by seed
	buf    *Replay // the replay buffer, set by seed
	sched  Epsilon
	// episodeNo is the episode in progress (ε with EpsShare).
	episodeNo int
	// avg is the averaged policy net (Config.Average), nil without.
	avg *MLP
	// best is the best validated policy net so far (nil: none yet) and
	// bad the validations since it.
	best *MLP
	bad  int
	// Scratch space: the environment's raw features, the online net's Q
	// values and a gradient step's sample.
	raw   []float64
	q     []float64
	batch []Transition
}

// newTrainer checks cfg, sets env's decision interval and reward weight,
// makes the agent, the training windows and the held-out ones, and
// replays the held-out windows' reactive and oracle bounds.
func newTrainer(ctx context.Context, env *Env, cfg Config) (*trainer, error) {
	stopping, err := targetStopping(cfg)
	if err != nil {
		return nil, err
	}
	env.DecisionSec, env.Lambda = cfg.DecisionSec, cfg.Lambda
	nf := features.NumFeatures()
	sizes := append(append([]int{nf}, cfg.Hidden...), NumActions)
	agent, err := NewAgent(sizes, cfg.Seed, cfg.LR)
	if err != nil {
		return nil, err
	}
	agent.Gamma, agent.HuberDelta, agent.ClipNorm, agent.TargetSync = cfg.Gamma, cfg.HuberDelta, cfg.ClipNorm, cfg.TargetSync
	agent.Stopping = stopping
	agent.Shaped = cfg.Shaping == "submit"
	agent.Opt.WeightDecay = cfg.WeightDecay
	first, last := env.Span()
	validStarts, excluded := envHeldOut(env, cfg)
	starts := trainStarts(first, last, cfg.StartStep, excluded)
	if len(starts) == 0 {
		return nil, fmt.Errorf("dqn: no training windows left outside the held-out segments and their workload margins (valid_share %g, valid_blocks %d): use more windows, or valid_blocks 1 or valid_share 0 (no early stopping)", cfg.ValidShare, cfg.ValidBlocks)
	}
	t := &trainer{
		env: env, cfg: cfg, stopping: stopping, agent: agent,
		rng:    rand.New(rand.NewPCG(cfg.Seed, 0x64716e)),
		starts: starts, nodes: env.ChainNodes(),
		res:   &Result{ValidStart: validStarts, BestValid: math.Inf(-1), TrainWindows: len(starts)},
		sched: Epsilon{Start: cfg.EpsStart, End: cfg.EpsEnd, Steps: cfg.EpsSteps},
		raw:   make([]float64, nf), q: make([]float64, NumActions),
	}
	if len(validStarts) > 0 {
		if t.res.ValidReactive, t.res.ValidOracle, err = Bounds(ctx, env, validStarts); err != nil {
			return nil, err
		}
	}
	// With Average, the validated and written network is an exponential
	// moving average of the online weights (Polyak averaging), which
	// smooths the step-to-step changes of the greedy policy.
	if cfg.Average > 0 {
		t.avg = agent.Online.Clone()
	}
	return t, nil
}

// targetStopping checks cfg's sizes and target, and reports whether the
// target is the stopping one.
func targetStopping(cfg Config) (bool, error) {
	if cfg.BatchSize < 1 || cfg.TrainEvery < 1 || cfg.DecisionSec < 1 || cfg.StartStep < 1 {
		return false, fmt.Errorf("dqn: invalid config %+v", cfg)
	}
	switch cfg.Shaping {
	case "":
	case "submit":
		if cfg.Target != "stopping" {
			return false, fmt.Errorf("dqn: shaping %q needs the stopping target (the submit reward of every visited decision)", cfg.Shaping)
		}
	default:
		return false, fmt.Errorf("dqn: shaping %q: want \"\" or submit", cfg.Shaping)
	}
	if cfg.EpsShare < 0 || cfg.EpsShare > 1 {
		return false, fmt.Errorf("dqn: eps_share %g: want 0 to 1", cfg.EpsShare)
	}
	switch cfg.Target {
	case "", "double":
		return false, nil
	case "stopping":
		if !cfg.AllActions {
			return false, fmt.Errorf("dqn: target %q needs all_actions (the submit outcome of every visited decision)", cfg.Target)
		}
		return true, nil
	default:
		return false, fmt.Errorf("dqn: target %q: want double or stopping", cfg.Target)
	}
}

// trainStarts returns the window starts from first to last (Unix
// seconds) every step seconds that lie in none of the excluded intervals
// (closed, as heldOut returns them).
func trainStarts(first, last, step int64, excluded [][2]int64) []int64 {
	var starts []int64
	for t := first; t <= last; t += step {
		if !slices.ContainsFunc(excluded, func(iv [2]int64) bool { return t >= iv[0] && t <= iv[1] }) {
			starts = append(starts, t)
		}
	}
	return starts
}

// epsilon returns ε at the current decision: over the first EpsShare of
// the Episodes budget by episode (EpsShare > 0), else over EpsSteps
// decisions.
func (t *trainer) epsilon() float64 {
	if n := t.epsEpisodes(); n > 0 {
		return Epsilon{Start: t.cfg.EpsStart, End: t.cfg.EpsEnd, Steps: n}.At(t.episodeNo)
	}
	return t.sched.At(t.res.Decisions)
}

// epsEpisodes returns the episodes over which ε decays with EpsShare (0:
// EpsSteps decisions instead).
func (t *trainer) epsEpisodes() int {
	if t.cfg.EpsShare <= 0 {
		return 0
	}
	return max(1, int(math.Ceil(t.cfg.EpsShare*float64(t.cfg.Episodes))))
}

// draw returns a random training window's start and chain size.
func (t *trainer) draw() (int64, int) {
	start := t.starts[t.rng.IntN(len(t.starts))]
	return start, t.nodes[t.rng.IntN(len(t.nodes))]
}

// policy returns the policy net: the averaged one with Average, else the
// online one.
func (t *trainer) policy() *MLP {
	if t.avg != nil {
		return t.avg
	}
	return t.agent.Online
}

// result returns Train's result with its net: the best validated one,
// else the policy net as training left it.
func (t *trainer) result() *Result {
	t.res.Net = t.policy()
	if t.best != nil {
		t.res.Net = t.best
	}
	return t.res
}
