package dqn

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/mirage-hpc/mirage/features"
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
// each episode.
func Train(ctx context.Context, env *Env, cfg Config, progress func(CurvePoint)) (*Result, error) {
	if cfg.BatchSize < 1 || cfg.TrainEvery < 1 || cfg.DecisionSec < 1 || cfg.StartStep < 1 {
		return nil, fmt.Errorf("dqn: invalid config %+v", cfg)
	}
	stopping := false
	switch cfg.Target {
	case "", "double":
	case "stopping":
		if !cfg.AllActions {
			return nil, fmt.Errorf("dqn: target %q needs all_actions (the submit outcome of every visited decision)", cfg.Target)
		}
		stopping = true
	default:
		return nil, fmt.Errorf("dqn: target %q: want double or stopping", cfg.Target)
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
	agent.Opt.WeightDecay = cfg.WeightDecay
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x64716e))
	first, last := env.Span()
	validStarts, excluded := heldOut(first, last, cfg, env.opts.WorkloadSec)
	nodesList := env.ChainNodes()
	var trainStarts []int64 // window starts outside the held-out segments and their margins
	for t := first; t <= last; t += cfg.StartStep {
		if !slices.ContainsFunc(excluded, func(iv [2]int64) bool { return t >= iv[0] && t <= iv[1] }) {
			trainStarts = append(trainStarts, t)
		}
	}
	if len(trainStarts) == 0 {
		return nil, fmt.Errorf("dqn: no training windows left outside the held-out segments and their workload margins (valid_share %g, valid_blocks %d): use more windows, or valid_blocks 1 or valid_share 0 (no early stopping)", cfg.ValidShare, cfg.ValidBlocks)
	}
	draw := func() (int64, int) {
		t := trainStarts[rng.IntN(len(trainStarts))]
		return t, nodesList[rng.IntN(len(nodesList))]
	}
	res := &Result{ValidStart: validStarts, BestValid: math.Inf(-1), TrainWindows: len(trainStarts)}
	if len(validStarts) > 0 {
		if res.ValidReactive, res.ValidOracle, err = Bounds(ctx, env, validStarts); err != nil {
			return nil, err
		}
	}
	raw := make([]float64, nf)

	// Standardisation statistics from wait-only episodes; their
	// transitions seed the replay buffer.
	type rawTr struct {
		s, s2 []float64
		a     int
		r     float64
		done  bool
		ep, k int
	}
	var rows [][]float64
	var pending []rawTr
	t0 := time.Now()
	nStats := cfg.StatsEps
	for i := range nStats {
		// Evenly spaced over the training windows (a few random windows
		// can all be idle, and a busy one then standardises to |z| ~ 1000).
		start := trainStarts[(len(trainStarts)-1)*i/max(nStats-1, 1)]
		nodes := nodesList[i%len(nodesList)]
		if err := env.Reset(ctx, start, nodes, raw); err != nil {
			return nil, err
		}
		for k := 0; ; k++ {
			s := append([]float64(nil), raw...)
			rows = append(rows, s)
			if cfg.AllActions && !env.Last() {
				rs, _, err := env.SubmitOutcome(ctx)
				if err != nil {
					return nil, err
				}
				pending = append(pending, rawTr{s: s, a: ActionSubmit, r: rs, done: true, ep: i, k: k})
			}
			r, done, err := env.Step(ctx, ActionWait, raw)
			if err != nil {
				return nil, err
			}
			tr := rawTr{s: s, a: ActionWait, r: r, done: done, ep: i, k: k}
			if done {
				// At P's end Q is submitted whatever the action: both
				// actions end the episode with this reward.
				pending = append(pending, tr, rawTr{s: s, a: ActionSubmit, r: r, done: true, ep: i, k: k})
				break
			}
			tr.s2 = append([]float64(nil), raw...)
			pending = append(pending, tr)
		}
	}
	if len(rows) == 0 {
		res.Stats = Stats{Mean: make([]float64, nf), Std: make([]float64, nf)}
		for i := range res.Stats.Std {
			res.Stats.Std[i] = 1
		}
	} else {
		res.Stats = NewStats(rows, nf)
	}
	res.Stats.Clip = cfg.Clip
	st := res.Stats
	buf := NewReplay(cfg.ReplaySize)
	var seed []Transition
	var trajs []*Trajectory
	for _, p := range pending {
		t := Transition{S: st.Apply(nil, p.s), A: p.a, R: p.r, Done: p.done}
		if !p.done {
			t.S2 = st.Apply(nil, p.s2)
		}
		if stopping {
			// Wait-only episodes: every state is visited once, with its
			// submit transition (or the forced end) carrying its reward.
			for len(trajs) <= p.ep {
				trajs = append(trajs, &Trajectory{Final: true})
			}
			tj := trajs[p.ep]
			if p.a == ActionSubmit {
				tj.S, tj.R = append(tj.S, t.S), append(tj.R, p.r)
			} else if !p.done {
				t.Traj, t.K = tj, p.k
			}
		}
		seed = append(seed, t)
	}
	for _, tj := range trajs {
		agent.AddTrajectory(tj, cfg.ReplaySize)
	}
	for _, t := range seed {
		buf.Add(t)
	}
	res.EnvSec += time.Since(t0).Seconds()
	sched := Epsilon{Start: cfg.EpsStart, End: cfg.EpsEnd, Steps: cfg.EpsSteps}
	var best *MLP
	bad := 0
	// With Average, the validated and written network is an exponential
	// moving average of the online weights (Polyak averaging), which
	// smooths the step-to-step changes of the greedy policy.
	var avg *MLP
	if cfg.Average > 0 {
		avg = agent.Online.Clone()
	}
	policy := func() *MLP {
		if avg != nil {
			return avg
		}
		return agent.Online
	}
	var batch []Transition
	q := make([]float64, NumActions)
	for ep := range cfg.Episodes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		start, nodes := draw()
		te := time.Now()
		if err := env.Reset(ctx, start, nodes, raw); err != nil {
			return nil, err
		}
		var learn time.Duration
		s := st.Apply(nil, raw)
		cp := CurvePoint{Episode: ep, Start: start, ChainNodes: nodes, ValidReturn: math.NaN()}
		lossSum, lossN := 0.0, 0
		var traj *Trajectory
		var held []Transition // the episode's transitions, added at its end (stopping)
		add := buf.Add
		if stopping {
			traj = &Trajectory{}
			add = func(t Transition) { held = append(held, t) }
		}
		for {
			eps := sched.At(res.Decisions)
			cp.Epsilon = eps
			var a int
			if rng.Float64() < eps {
				// Explore as an optimal-stopping problem: submit with
				// probability 1/(decisions left), so exploratory submissions
				// fall uniformly over the episode instead of after ~2
				// decisions, as a fair coin would make them.
				a = ActionWait
				if rng.Float64()*float64(max(1, len(env.grid)-env.k)) < 1 {
					a = ActionSubmit
				}
			} else {
				q = agent.Online.Forward(q, s)
				a = ArgMax(q)
			}
			forced := env.Last()
			if cfg.AllActions && !forced && a == ActionWait {
				rs, _, err := env.SubmitOutcome(ctx)
				if err != nil {
					return nil, err
				}
				add(Transition{S: s, A: ActionSubmit, R: rs, Done: true})
				if traj != nil {
					traj.S, traj.R = append(traj.S, s), append(traj.R, rs)
				}
			}
			r, done, err := env.Step(ctx, a, raw)
			if err != nil {
				return nil, err
			}
			res.Decisions++
			cp.Decisions++
			tr := Transition{S: s, A: a, R: r, Done: done}
			if !done {
				tr.S2 = st.Apply(nil, raw)
				if traj != nil {
					tr.Traj, tr.K = traj, len(traj.S)-1
				}
			} else if traj != nil {
				traj.S, traj.R, traj.Final = append(traj.S, s), append(traj.R, r), forced
			}
			add(tr)
			if forced {
				// Both actions end the episode at P's end.
				add(Transition{S: s, A: 1 - a, R: r, Done: true})
			}
			if buf.Len() >= max(cfg.LearnStart, cfg.BatchSize) && res.Decisions%cfg.TrainEvery == 0 {
				tl := time.Now()
				batch = buf.Sample(batch[:0], cfg.BatchSize, rng)
				l, _ := agent.Update(batch)
				if avg != nil {
					avg.blend(agent.Online, cfg.Average)
				}
				learn += time.Since(tl)
				lossSum += l
				lossN++
				res.GradSteps++
			}
			if done {
				cp.Return, cp.RSec = r, env.RSec()
				break
			}
			s = tr.S2
		}
		if traj != nil {
			agent.AddTrajectory(traj, cfg.ReplaySize)
			for _, t := range held {
				buf.Add(t)
			}
		}
		res.LearnSec += learn.Seconds()
		res.EnvSec += (time.Since(te) - learn).Seconds()
		cp.Loss = math.NaN()
		if lossN > 0 {
			cp.Loss = lossSum / float64(lossN)
		}
		if len(validStarts) > 0 && cfg.ValidEvery > 0 && (ep+1)%cfg.ValidEvery == 0 {
			v, err := Validate(ctx, env, policy(), st, validStarts)
			if err != nil {
				return nil, err
			}
			cp.ValidReturn = v
			if v > res.BestValid {
				res.BestValid, best, bad = v, policy().Clone(), 0
			} else {
				bad++
			}
		}
		res.Curve = append(res.Curve, cp)
		if progress != nil {
			progress(cp)
		}
		if cfg.Patience > 0 && bad >= cfg.Patience {
			res.Stopped = true
			break
		}
	}
	res.Net = policy()
	if best != nil {
		res.Net = best
	}
	return res, nil
}

// BiasStarts returns the window starts ChooseBias replays: BiasEpisodes
// (or ValidEpisodes) starts spread over the held-out segments of env's
// training period, the segments early stopping validates on.
func BiasStarts(env *Env, cfg Config) []int64 {
	c := cfg
	if c.BiasEpisodes > 0 {
		c.ValidEpisodes = c.BiasEpisodes
	}
	first, last := env.Span()
	starts, _ := heldOut(first, last, c, env.opts.WorkloadSec)
	return slices.Compact(starts)
}

// heldOut returns the window starts of the held-out validation windows and
// the intervals of window starts training must avoid: the training period
// [first, last] is cut into ValidBlocks blocks; the last ValidShare/blocks
// of each block is held out, and training windows keep workload (the span
// of trace submissions a window takes part in) away from it on both sides,
// so no held-out job is in a training window. ValidEpisodes starts are
// spread evenly over the held-out segments.
func heldOut(first, last int64, cfg Config, workload int64) (starts []int64, excluded [][2]int64) {
	if cfg.ValidEpisodes <= 0 || cfg.ValidShare <= 0 || last <= first {
		return nil, nil
	}
	blocks := max(cfg.ValidBlocks, 1)
	span := last - first
	segLen := int64(float64(span) * cfg.ValidShare / float64(blocks))
	type seg struct{ lo, hi int64 }
	var segs []seg
	for b := range blocks {
		hi := first + span*int64(b+1)/int64(blocks)
		segs = append(segs, seg{hi - segLen, hi})
		excluded = append(excluded, [2]int64{hi - segLen - workload, hi + workload})
	}
	for i := range cfg.ValidEpisodes {
		s := segs[i%blocks]
		k := int64(i / blocks)
		n := int64((cfg.ValidEpisodes - i%blocks + blocks - 1) / blocks) // starts in this segment
		t := s.lo + (s.hi-s.lo)*(k+1)/(n+1)
		starts = append(starts, t-(t-first)%cfg.StartStep)
	}
	slices.Sort(starts)
	return starts, excluded
}

// Validate replays the greedy policy of net on each start, for every chain
// size, and returns the mean terminal reward.
func Validate(ctx context.Context, env *Env, net *MLP, st Stats, starts []int64) (float64, error) {
	raw := make([]float64, features.NumFeatures())
	var s, q []float64
	sum, n := 0.0, 0
	for _, start := range starts {
		for _, nodes := range env.ChainNodes() {
			if err := env.Reset(ctx, start, nodes, raw); err != nil {
				return 0, err
			}
			for {
				s = st.Apply(s, raw)
				q = net.Forward(q, s)
				r, done, err := env.Step(ctx, ArgMax(q), raw)
				if err != nil {
					return 0, err
				}
				if done {
					sum += r
					n++
					break
				}
			}
		}
	}
	return sum / float64(max(n, 1)), nil
}

// Bounds returns the mean returns of the reactive policy (submit at P's
// end) and of the hindsight oracle (the best decision time) over starts,
// for every chain size.
func Bounds(ctx context.Context, env *Env, starts []int64) (reactive, oracle float64, err error) {
	raw := make([]float64, features.NumFeatures())
	n := 0
	for _, start := range starts {
		for _, nodes := range env.ChainNodes() {
			if err := env.Reset(ctx, start, nodes, raw); err != nil {
				return 0, 0, err
			}
			best := math.Inf(-1)
			for {
				if !env.Last() {
					r, _, err := env.SubmitOutcome(ctx)
					if err != nil {
						return 0, 0, err
					}
					best = max(best, r)
				}
				r, done, err := env.Step(ctx, ActionWait, raw)
				if err != nil {
					return 0, 0, err
				}
				if done {
					reactive += r
					oracle += max(best, r)
					n++
					break
				}
			}
		}
	}
	n = max(n, 1)
	return reactive / float64(n), oracle / float64(n), nil
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
