package dqn

import (
	"context"
	"math"
	"time"
)

// episodeRun is one training episode in progress.
type episodeRun struct {
	cp CurvePoint
	// traj is the episode's trajectory (stopping target; nil otherwise)
	// and held its transitions, added to the replay buffer at its end.
	traj *Trajectory
	held []Transition
	// lossSum and lossN are the losses of the episode's gradient steps,
	// learn the time they took.
	lossSum float64
	lossN   int
	learn   time.Duration
}

// episode is Train's episode step: episode ep on a random training
// window, one decision after another to its end, then its trajectory
// (stopping target) to the agent. It returns its curve point, not yet
// validated (ValidReturn NaN).
func (t *trainer) episode(ctx context.Context, ep int) (CurvePoint, error) {
	start, nodes := t.draw()
	te := time.Now()
	if err := t.env.Reset(ctx, start, nodes, t.raw); err != nil {
		return CurvePoint{}, err
	}
	e := &episodeRun{cp: CurvePoint{Episode: ep, Start: start, ChainNodes: nodes, ValidReturn: math.NaN()}}
	if t.stopping {
		e.traj = &Trajectory{}
	}
	s := t.st.Apply(nil, t.raw)
	for done := false; !done; {
		var err error
		if s, done, err = t.decision(ctx, e, s); err != nil {
			return CurvePoint{}, err
		}
	}
	if e.traj != nil {
		t.agent.AddTrajectory(e.traj, t.cfg.ReplaySize)
		for _, tr := range e.held {
			t.buf.Add(tr)
		}
	}
	t.res.LearnSec += e.learn.Seconds()
	t.res.EnvSec += (time.Since(te) - e.learn).Seconds()
	e.cp.Loss = math.NaN()
	if e.lossN > 0 {
		e.cp.Loss = e.lossSum / float64(e.lossN)
	}
	return e.cp, nil
}

// decision takes episode e's decision in state s (standardised): the
// ε-greedy action, its transitions (with the submit outcome where it
// waits, AllActions, and both actions at P's end), and a gradient step
// (update) when one is due. It returns the next state and whether the
// episode ended.
func (t *trainer) decision(ctx context.Context, e *episodeRun, s []float64) ([]float64, bool, error) {
	env := t.env
	eps := t.epsilon()
	e.cp.Epsilon = eps
	a := t.act(s, eps)
	forced := env.Last()
	if t.cfg.AllActions && !forced && a == ActionWait {
		if err := t.submitOutcome(ctx, e, s); err != nil {
			return nil, false, err
		}
	}
	r, done, err := env.Step(ctx, a, t.raw)
	if err != nil {
		return nil, false, err
	}
	t.res.Decisions++
	e.cp.Decisions++
	s2 := t.record(e, s, a, r, done, forced)
	if t.buf.Len() >= max(t.cfg.LearnStart, t.cfg.BatchSize) && t.res.Decisions%t.cfg.TrainEvery == 0 {
		t.update(e)
	}
	if done {
		e.cp.Return, e.cp.RSec = r, env.RSec()
	}
	return s2, done, nil
}

// record stores the transition of episode e's action a in state s, of
// reward r, ending the episode when done (forced: at P's end, where both
// actions end it), and returns the next state (standardised; nil when
// done).
func (t *trainer) record(e *episodeRun, s []float64, a int, r float64, done, forced bool) []float64 {
	tr := Transition{S: s, A: a, R: r, Done: done}
	if !done {
		tr.S2 = t.st.Apply(nil, t.raw)
		if e.traj != nil {
			tr.Traj, tr.K = e.traj, len(e.traj.S)-1
		}
	} else if e.traj != nil {
		e.traj.S, e.traj.R, e.traj.Final = append(e.traj.S, s), append(e.traj.R, r), forced
	}
	t.add(e, tr)
	if forced {
		// Both actions end the episode at P's end.
		t.add(e, Transition{S: s, A: 1 - a, R: r, Done: true})
	}
	return tr.S2
}

// act returns the ε-greedy action in state s: with probability eps an
// exploratory one, else the online net's greedy action.
func (t *trainer) act(s []float64, eps float64) int {
	if t.rng.Float64() < eps {
		// Explore as an optimal-stopping problem: submit with
		// probability 1/(decisions left), so exploratory submissions
		// fall uniformly over the episode instead of after ~2
		// decisions, as a fair coin would make them.
		if t.rng.Float64()*float64(max(1, len(t.env.grid)-t.env.k)) < 1 {
			return ActionSubmit
		}
		return ActionWait
	}
	t.q = t.agent.Online.Forward(t.q, s)
	return ArgMax(t.q)
}

// submitOutcome stores the transition of submitting in state s, where
// the agent waits (AllActions): the simulator is forked and Q run until
// it starts, and the outcome joins episode e's trajectory (stopping
// target).
func (t *trainer) submitOutcome(ctx context.Context, e *episodeRun, s []float64) error {
	rs, _, err := t.env.SubmitOutcome(ctx)
	if err != nil {
		return err
	}
	t.add(e, Transition{S: s, A: ActionSubmit, R: rs, Done: true})
	if e.traj != nil {
		e.traj.S, e.traj.R = append(e.traj.S, s), append(e.traj.R, rs)
	}
	return nil
}

// add stores a transition of episode e: in the replay buffer, or held to
// the episode's end for the stopping target (its trajectory is complete
// then).
func (t *trainer) add(e *episodeRun, tr Transition) {
	if e.traj != nil {
		e.held = append(e.held, tr)
		return
	}
	t.buf.Add(tr)
}

// update is Train's update step: one gradient step on a batch sampled
// from the replay buffer, then the averaged net's blend (Average); its
// loss and time go to episode e.
func (t *trainer) update(e *episodeRun) {
	tl := time.Now()
	t.batch = t.buf.Sample(t.batch[:0], t.cfg.BatchSize, t.rng)
	l, _ := t.agent.Update(t.batch)
	if t.avg != nil {
		t.avg.blend(t.agent.Online, t.cfg.Average)
	}
	e.learn += time.Since(tl)
	e.lossSum += l
	e.lossN++
	t.res.GradSteps++
}
