package dqn

import (
	"context"
	"encoding/csv"
	"io"
	"strconv"
)

// Config holds the hyper-parameters of Train; start from DefaultConfig.
type Config struct {
	Seed        uint64  `json:"seed"`
	Hidden      []int   `json:"hidden"`
	LR          float64 `json:"lr"`
	WeightDecay float64 `json:"weight_decay"` // AdamW decay of the weights per step, relative to LR (0: Adam)
	Average     float64 `json:"average"`      // weight of the online net in the averaged policy net per gradient step (0: none)
	Gamma       float64 `json:"gamma"`
	HuberDelta  float64 `json:"huber_delta"`
	ClipNorm    float64 `json:"clip_norm"`
	BatchSize   int     `json:"batch_size"`
	ReplaySize  int     `json:"replay_size"`
	LearnStart  int     `json:"learn_start"`    // transitions before the first gradient step
	TrainEvery  int     `json:"train_every"`    // decisions per gradient step
	TargetSync  int     `json:"target_sync"`    // gradient steps between target syncs
	Episodes    int     `json:"episodes"`       // training episodes (at most)
	EpsStart    float64 `json:"eps_start"`      // ε at the first decision
	EpsEnd      float64 `json:"eps_end"`        // final ε
	EpsSteps    int     `json:"eps_steps"`      // decisions over which ε decays linearly
	StatsEps    int     `json:"stats_episodes"` // wait-only windows, evenly spaced over the training period, for the standardisation statistics
	Clip        float64 `json:"clip"`           // standardised features are clipped to ±Clip (0: no clipping)
	Lambda      float64 `json:"lambda"`         // overlap weight in the reward
	DecisionSec int64   `json:"decision_sec"`   // decision interval
	StartStep   int64   `json:"start_step_sec"`
	// AllActions also stores, at every decision where the agent waits, the
	// transition of submitting there: the simulator is forked and Q run
	// until it starts (one fork per decision). Waiting has no effect on the
	// cluster, so this counterfactual is exact experience, and the submit
	// action's values are learnt from every visited state rather than
	// from the one where the episode ends.
	AllActions bool `json:"all_actions"`
	// Target is the target of wait transitions: "double" (Double DQN:
	// R + γ·Q_target(S2, argmax_a Q_online(S2, a))) or "stopping" (the
	// realised reward where the target network's greedy rule would submit
	// later in the same episode; see Trajectory; needs AllActions).
	Target string `json:"target"`
	// ValidShare is the share of the training period's window starts held
	// out for early stopping; ValidEpisodes windows evenly spaced in it are
	// replayed greedily every ValidEvery episodes; training stops after
	// Patience validations without improvement and keeps the best weights.
	ValidShare    float64 `json:"valid_share"`
	ValidBlocks   int     `json:"valid_blocks"` // held-out segments, evenly spread, the last at the period's end
	ValidEpisodes int     `json:"valid_episodes"`
	ValidEvery    int     `json:"valid_every"`
	Patience      int     `json:"patience"`
	// BiasEpisodes is how many windows of the same held-out segments
	// ChooseBias replays to choose the bias for the overlap budget (more
	// than ValidEpisodes: the choice needs more windows than early
	// stopping); 0 means ValidEpisodes.
	BiasEpisodes int `json:"bias_episodes,omitempty"`
	// ValidOnGrid draws the held-out windows (early stopping and the
	// bias) as the protocol draws its windows: starts on its grid of
	// window starts (first start + k·interval) that fall in the held-out
	// segments, not every StartStep, so they are sampled like the
	// validation months' windows. Off (the default): evenly spaced on
	// the StartStep grid, as before.
	ValidOnGrid bool `json:"valid_on_grid,omitempty"`
	// EpsShare, when > 0, makes ε decay with training progress instead
	// of over EpsSteps decisions: linearly from EpsStart to EpsEnd over
	// the first EpsShare of the Episodes budget (by episode), and early
	// stopping counts only the validations after ε has reached EpsEnd,
	// so it judges the plateau of the greedy policy, not an exploring
	// one's. The best validated weights are kept either way.
	EpsShare float64 `json:"eps_share,omitempty"`
	// Shaping is the reward shaping of the stopping target: "" (none) or
	// "submit", the potential-based shaping with potential Φ(s) = the
	// reward of submitting at s (exact: every visited decision's submit
	// outcome is known, AllActions). Waiting one more decision is then
	// rewarded with Φ(s') − Φ(s), the change of the outcome that one
	// more decision of waiting brings (an extra interruption is
	// negative), and the network learns Q − Φ: the submit head 0, the
	// wait head the advantage of waiting in hours, whatever the window's
	// absolute cost. The shaping telescopes along an episode, so the
	// greedy policy and the advantage Q(s, submit) − Q(s, wait) (the bias's
	// score) are those of the unshaped problem; only what the loss
	// weighs changes: decisions by how much they change r, not windows
	// by how costly they are.
	Shaping string `json:"shaping,omitempty"`
}

// DefaultConfig returns the defaults: 128-128 ReLU, Adam 1e-3, λ = 0.5, a
// decision every 10 minutes, all-action transitions and the stopping
// target (on LS6 it learns where Double DQN barely does: see the package
// README; {"target": "double", "target_sync": 250} selects Double DQN as
// it was tuned).
func DefaultConfig() Config {
	return Config{
		Seed: 1, Hidden: []int{128, 128}, LR: 1e-3, Gamma: 1, HuberDelta: 1, ClipNorm: 10,
		BatchSize: 64, ReplaySize: 100000, LearnStart: 1000, TrainEvery: 2, TargetSync: 1000,
		Episodes: 400, EpsStart: 1, EpsEnd: 0.05, EpsSteps: 30000, StatsEps: 64, Clip: 10,
		Lambda: 0.5, DecisionSec: 600, StartStep: 600, AllActions: true, Target: "stopping",
		ValidShare: 0.1, ValidBlocks: 2, ValidEpisodes: 24, ValidEvery: 25, Patience: 6, BiasEpisodes: 96,
	}
}

// CurvePoint is one training episode.
type CurvePoint struct {
	Episode     int
	Start       int64
	ChainNodes  int
	Decisions   int
	Return      float64 // the terminal reward
	RSec        int64
	Loss        float64 // mean loss of the episode's gradient steps (NaN: none)
	Epsilon     float64 // ε at the episode's last decision
	ValidReturn float64 // mean greedy return on the held-out windows (NaN: not validated)
}

// Result is Train's output.
type Result struct {
	Net        *MLP // the best validated weights, else the last
	Stats      Stats
	Curve      []CurvePoint
	Decisions  int
	GradSteps  int
	BestValid  float64
	Stopped    bool // early stopping fired
	EnvSec     float64
	LearnSec   float64
	ValidStart []int64
	// TrainWindows is the number of window starts episodes are drawn from.
	TrainWindows int
	// ValidReactive and ValidOracle are the mean returns on the held-out
	// windows of submitting at P's end and at the best decision time
	// (hindsight): the floor and the ceiling of ValidReturn.
	ValidReactive, ValidOracle float64
}

// Train trains a Double DQN on env. progress, when not nil, is called after
// each episode. An episode (trainer.episode) is a random training window
// played ε-greedily with gradient steps (trainer.update) along the way;
// every ValidEvery episodes the policy net is validated on the held-out
// windows (trainer.validate), and training stops after Patience
// validations without improvement.
func Train(ctx context.Context, env *Env, cfg Config, progress func(CurvePoint)) (*Result, error) {
	t, err := newTrainer(ctx, env, cfg)
	if err != nil {
		return nil, err
	}
	if err := t.seed(ctx); err != nil {
		return nil, err
	}
	for ep := range cfg.Episodes {
		t.episodeNo = ep
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cp, err := t.episode(ctx, ep)
		if err != nil {
			return nil, err
		}
		if err := t.validate(ctx, ep, &cp); err != nil {
			return nil, err
		}
		t.res.Curve = append(t.res.Curve, cp)
		if progress != nil {
			progress(cp)
		}
		if t.outOfPatience() {
			t.res.Stopped = true
			break
		}
	}
	return t.result(), nil
}

// WriteCurveCSV writes the training curve with a header.
func WriteCurveCSV(w io.Writer, curve []CurvePoint) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"episode", "window_start", "chain_nodes", "decisions", "return", "r_sec", "loss", "epsilon", "valid_return"})
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, c := range curve {
		cw.Write([]string{strconv.Itoa(c.Episode), strconv.FormatInt(c.Start, 10), strconv.Itoa(c.ChainNodes),
			strconv.Itoa(c.Decisions), g(c.Return), strconv.FormatInt(c.RSec, 10), g(c.Loss), g(c.Epsilon), g(c.ValidReturn)})
	}
	cw.Flush()
	return cw.Error()
}
