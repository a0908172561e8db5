package evaluate

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/internal/atomicfile"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/jobruntime"
)

// DefaultRollouts is the forecast's default number of rollouts K per
// decision.
const DefaultRollouts = 32

// DefaultCorrelation is the forecast's default copula correlation ρ
// between the draws of one rollout (see Forecaster.Correlation).
const DefaultCorrelation = 0.5

// DefaultForecastTau is the forecast's τ without a trained operating
// point.
const DefaultForecastTau = 0.5

// Forecaster estimates P(r > 0) at a decision time by Monte Carlo
// rollouts of the live queue (sim.Sim.Rollout): K clones that know only
// the jobs submitted so far (future trace arrivals and unannounced
// capacity steps dropped), in which every running, pending and held job's
// run time is a draw from the run-time model conditioned on the time it
// has already run, and P runs to its limit (a service job). Q is
// submitted at the decision time in each; P(r > 0) is the share of
// rollouts in which Q starts after P's end (P's expected end, or its
// start in the rollout plus its limit when it starts there later). The
// draws are seeded by Seed, P's submission, Q's size and the decision
// time only, so a decision never depends on another decision or on the
// replay's order. It is read-only and safe for concurrent use.
type Forecaster struct {
	RT *RunTimes
	// K is the number of rollouts (0: DefaultRollouts).
	K    int
	Seed uint64
	// ResampleDays, when > 0, adds arrivals to every rollout: the trace
	// jobs submitted during the rollout's horizon o days earlier, shifted
	// o days ahead, with o drawn per rollout from the whole days in
	// [ceil(horizon), ResampleDays] that the simulation holds every
	// submission of (DecisionContext.WindowStart on; all submitted before
	// the decision: known live), each with a run time drawn from the
	// model. Without, a rollout knows no future arrival.
	ResampleDays int
	// Correlation is ρ in [0, 1] of a Gaussian copula between the draws of
	// one rollout: job j's uniform is Φ(√ρ·z + √(1−ρ)·z_j), z shared by
	// the rollout's jobs, z_j its own (ρ = 0: independent draws; ρ = 1:
	// every job at the same quantile). Independent draws make the earliest
	// of many jobs' ends nearly certain and the forecast overconfident.
	Correlation float64
}

// seedFor returns the rollouts' seed at one decision: FNV-1a of Seed, P's
// submission (the window), Q's nodes and the decision time (Unix s).
func (f *Forecaster) seedFor(pSubmit int64, nodes int32, now int64) (uint64, uint64) {
	h := fnv.New64a()
	var b [8]byte
	for _, v := range []uint64{f.Seed, uint64(pSubmit), uint64(nodes), uint64(now)} {
		binary.LittleEndian.PutUint64(b[:], v)
		h.Write(b[:])
	}
	s := h.Sum64()
	return s, s ^ 0x9e3779b97f4a7c15
}

// ProbLate returns P(r > 0) if Q (c.Q, submitted at c.Now) were submitted
// now, as the share of f.K rollouts of c.Sim. It reads c.Sim only.
func (f *Forecaster) ProbLate(ctx context.Context, c *DecisionContext) (float64, error) {
	k := f.K
	if k <= 0 {
		k = DefaultRollouts
	}
	s := c.Sim
	now := c.Now
	live := s.Live(nil)
	rng := rand.New(rand.NewPCG(f.seedFor(c.P.Submit, c.Q.Nodes, now)))
	pEnd := c.ExpectedPEnd()
	late := 0
	rho := min(max(f.Correlation, 0), 1)
	rt := c.runTimes(f.RT)
	for range k {
		zc := rng.NormFloat64() // the rollout's common factor
		over := make([]sim.RunOverride, len(live))
		for i, l := range live {
			j := s.Job(l.ID)
			run := j.LimitSec
			if l.ID != c.PID {
				el := int64(0)
				if l.Running {
					el = now - l.Start
				}
				z := math.Sqrt(rho)*zc + math.Sqrt(1-rho)*rng.NormFloat64()
				run = rt.At(0.5*math.Erfc(-z/math.Sqrt2), l.ID, el, j.LimitSec)
			}
			over[i] = sim.RunOverride{ID: l.ID, RunSec: run}
		}
		r := s.Rollout(nil, over)
		q := c.Q
		q.Submit = now
		add := append(f.resample(r, rt, rng, now, pEnd, c.WindowStart), q)
		first, err := r.SubmitBatch(add)
		if err != nil {
			return 0, err
		}
		qid := first + sim.JobID(len(add)-1)
		isLate, err := rolloutLate(ctx, r, qid, c.PID, c.P.LimitSec, pEnd)
		if err != nil {
			return 0, err
		}
		if isLate {
			late++
		}
	}
	return float64(late) / float64(k), nil
}

// resample returns ResampleDays' arrivals for rollout r (see
// Forecaster.ResampleDays) over the horizon [now, pEnd + 1 day), their
// run times drawn from rt: the run-time predictions indexed by r's job
// IDs (DecisionContext.runTimes), not the trace's. The arrivals of a
// whole number of days o ago are replayed o days later, o drawn among the
// offsets whose source interval [now - o, now - o + horizon) lies in
// [windowStart, now), where r holds every submission (windowStart 0: r
// holds the whole trace); none when no offset does. (Offsets reaching
// before the window's start would replay a nearly empty interval: the
// forecast would see a quiet future.)
func (f *Forecaster) resample(r *sim.Sim, rt *RunTimes, rng *rand.Rand, now, pEnd, windowStart int64) []sim.Job {
	if f.ResampleDays <= 0 {
		return nil
	}
	const day = 86400
	horizon := max(pEnd-now, 0) + day
	lo, hi := int((horizon+day-1)/day), f.ResampleDays
	if windowStart > 0 {
		hi = min(hi, int(max(now-windowStart, 0)/day))
	}
	if lo > hi {
		return nil
	}
	o := int64(lo+rng.IntN(hi-lo+1)) * day
	n := min(len(rt.ok), r.NumJobs()) // the trace jobs, by Submit
	from, to := now-o, now-o+horizon
	var add []sim.Job
	for i := sort.Search(n, func(k int) bool { return r.Job(sim.JobID(k)).Submit >= from }); i < n; i++ {
		j := r.Job(sim.JobID(i))
		if j.Submit >= to {
			break
		}
		if j.Cancel > 0 {
			continue // a job that never ran in the trace
		}
		a := sim.Job{Name: j.Name + "+", User: j.User, Nodes: j.Nodes, Submit: j.Submit + o, After: sim.NoJob, LimitSec: j.LimitSec,
			RunSec: rt.Draw(rng, sim.JobID(i), 0, j.LimitSec)}
		if j.Eligible > j.Submit {
			a.Eligible = j.Eligible + o
		}
		add = append(add, a)
	}
	return add
}

// rolloutLate runs rollout r until Q (qid) starts or cannot start before
// P's end, and reports whether it starts after P's end: pEnd, or P's
// start in r plus limitSec when that is later.
func rolloutLate(ctx context.Context, r *sim.Sim, qid, pid sim.JobID, limitSec, pEnd int64) (bool, error) {
	deadline := pEnd
	for {
		_, ok, err := r.RunUntilStartedBy(ctx, qid, deadline)
		if errors.Is(err, sim.ErrNeverStarts) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if ok {
			return false, nil
		}
		ps, started := r.Started(pid)
		if !started { // P still pending: Q's start is compared with P's once known
			qs, err := r.RunUntilStarted(ctx, qid)
			if errors.Is(err, sim.ErrNeverStarts) {
				return true, nil
			}
			if err != nil {
				return false, err
			}
			ps, started = r.Started(pid)
			return started && qs > ps+limitSec, nil
		}
		if ps+limitSec <= deadline {
			return true, nil
		}
		deadline = ps + limitSec
	}
}

// onForecastGrid reports whether the forecast decides at c.Now: on the
// decision grid's labelled times (features.ProbeGrid with the default
// GridOptions: every decision in the last 24 h before P's expected end,
// hourly since P's submission before that, and P's start). Elsewhere it
// waits; the decision at P's end is forced by Replay.
func onForecastGrid(c *DecisionContext) bool {
	g := features.GridOptions{}.WithDefaults()
	return c.PStarted && c.Now == c.PStart || c.Now >= c.ExpectedPEnd()-g.DenseSec || (c.Now-c.P.Submit)%g.SparseSec == 0
}

// Forecast submits Q when the forecast P(r > 0) ≥ τ (train.TargetInterrupt's
// rule), deciding only on the decision grid's labelled times
// (onForecastGrid). τ is Tau when set, else the operating point's for
// the chain's size (chosen on training windows by TrainForecast), else
// DefaultForecastTau. Policies sharing a Forecaster share its rollouts
// at a decision time.
type Forecast struct {
	Label string
	F     *Forecaster
	OP    *train.OperatingPoint
	Tau   *float64
	dir   string
}

func (p *Forecast) Name() string { return p.Label }

// TauFor returns τ for a chain of nodes nodes.
func (p *Forecast) TauFor(nodes int) float64 {
	return paramFor(p.Tau, p.OP, train.TargetInterrupt, nodes)
}

func (p *Forecast) Decide(c *DecisionContext) (bool, error) {
	if !onForecastGrid(c) {
		return false, nil
	}
	prob, err := c.memo(p.F, func() (float64, error) { return p.F.ProbLate(context.Background(), c) })
	if err != nil {
		return false, err
	}
	return prob >= p.TauFor(int(c.Q.Nodes)), nil
}

// RuntimeEstimate is the scheduler's estimate planned with the run-time
// model's medians for running and pending jobs (sim.EstimatedStartWith;
// Q with its limit), with the slurm-estimate margin rule: submit when the
// estimate (the backfill window's end when Q fits nowhere in it) ≥ P's
// expected end − the margin. The margin is MarginH when set, else the
// operating point's (TrainForecast), else 0.
type RuntimeEstimate struct {
	Label   string
	RT      *RunTimes
	OP      *train.OperatingPoint
	MarginH *float64
	dir     string
}

func (p *RuntimeEstimate) Name() string { return p.Label }

// Score returns the estimate of Q's start minus P's expected end, hours.
func (p *RuntimeEstimate) Score(c *DecisionContext) float64 {
	est, ok := c.Sim.EstimatedStartWith(c.Q, c.runTimes(p.RT).MedianSec)
	if !ok {
		est = c.Now + c.Sim.Config().Backfill.WindowSec
	}
	return train.RuleScore(train.TargetEstimateRT, 0, 0, float64(est-c.ExpectedPEnd()))
}

func (p *RuntimeEstimate) Decide(c *DecisionContext) (bool, error) {
	return p.Score(c) >= train.ThresholdOf(train.TargetEstimateRT, paramFor(p.MarginH, p.OP, train.TargetEstimateRT, int(c.Q.Nodes))), nil
}

// ForecastKind is the kind of a forecast directory's forecast.json.
const ForecastKind = train.KindForecast

// ForecastFile is the file TrainForecast writes.
const ForecastFile = train.ForecastFile

// MaxRollouts bounds a forecast's rollouts per decision (forecast.json's
// rollouts) that ReadForecastManifest accepts.
const MaxRollouts = 1 << 16

// ForecastManifest is forecast.json: the run-time model the forecast and
// runtime-estimate policies use, the rollouts' settings, and their
// operating points chosen on training windows.
type ForecastManifest struct {
	Kind string `json:"kind"`
	// Runtime is the run-time model directory and RuntimeSHA256 its
	// model file's digest (checked when opened).
	Runtime       string  `json:"runtime_model"`
	RuntimeSHA256 string  `json:"runtime_model_sha256"`
	K             int     `json:"rollouts"`
	Seed          uint64  `json:"seed"`
	ResampleDays  int     `json:"resample_days"`
	Correlation   float64 `json:"correlation"`
	// Forecast is τ's operating point (rule: P(r > 0) ≥ τ), and
	// RuntimeEstimate the margin's (hours).
	Forecast        *train.OperatingPoint `json:"forecast"`
	RuntimeEstimate *train.OperatingPoint `json:"runtime_estimate"`
	Protocol        string                `json:"protocol"`
	Windows         int                   `json:"windows"`
	Stride          int                   `json:"window_stride"`
	Version         string                `json:"version"`
	// Seal covers forecast.json itself (train.Seal; the directory has no
	// other file of its own).
	train.Seal
}

// ReadForecastManifest reads dir's forecast.json, checking its seal
// (train.ErrDigest; train.ErrUnsealed for one from before seals), its
// kind and its settings (train.ErrBadModel: rollouts in [0, MaxRollouts],
// resample days >= 0, correlation in [0, 1]).
func ReadForecastManifest(dir string) (*ForecastManifest, error) {
	b, err := train.ReadManifestFile(dir, ForecastFile)
	if err != nil {
		return nil, fmt.Errorf("open forecast: %w", err)
	}
	var m ForecastManifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("open forecast %s: %w: %w", dir, train.ErrBadModel, err)
	}
	if m.Kind != ForecastKind {
		return nil, &train.KindError{Dir: dir, Kind: m.Kind, Want: "a forecast (kind forecast)"}
	}
	if m.K < 0 || m.K > MaxRollouts || m.ResampleDays < 0 || !(m.Correlation >= 0 && m.Correlation <= 1) {
		return nil, fmt.Errorf("open forecast %s: %w: rollouts %d (want 0 to %d), resample_days %d (want >= 0), correlation %v (want 0 to 1)",
			dir, train.ErrBadModel, m.K, MaxRollouts, m.ResampleDays, m.Correlation)
	}
	if err := m.Seal.Verify(dir); err != nil {
		return nil, fmt.Errorf("open forecast: %w", err)
	}
	return &m, nil
}

// WriteForecastManifest writes m, sealed, as dir/forecast.json, creating
// dir.
func WriteForecastManifest(dir string, m *ForecastManifest) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write forecast: %w", err)
	}
	m.Seal = train.Seal{}
	b, err := train.MarshalManifest(m, &m.Seal)
	if err != nil {
		return fmt.Errorf("write forecast: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, ForecastFile), b); err != nil {
		return fmt.Errorf("write forecast: %w", err)
	}
	return nil
}

// openForecastDir resolves a forecast:DIR or runtime-estimate:DIR
// argument: a directory written by TrainForecast (forecast.json), or a
// run-time model directory (no operating points: τ = 0.5, margin 0).
// Another kind of directory is a *train.KindError.
func openForecastDir(dir string) (rtDir string, m *ForecastManifest, err error) {
	if _, err := os.Stat(filepath.Join(dir, ForecastFile)); err == nil {
		m, err := ReadForecastManifest(dir)
		if err != nil {
			return "", nil, err
		}
		got, err := jobruntime.ModelDigest(m.Runtime)
		if err != nil {
			return "", nil, err
		}
		if got != m.RuntimeSHA256 {
			return "", nil, fmt.Errorf("%w: %s: run-time model %s has model sha256 %s, forecast.json says %s", ErrPolicy, dir, m.Runtime, got, m.RuntimeSHA256)
		}
		return m.Runtime, m, nil
	}
	kind, target, err := train.ReadKind(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, fmt.Errorf("%w: %s is neither a forecast (train --model forecast) nor a run-time model (train --model runtime): %w", ErrPolicy, dir, err)
	}
	if err != nil {
		return "", nil, err
	}
	if kind != train.KindRuntime {
		return "", nil, &train.KindError{Dir: dir, Kind: kind, Target: target, Want: "a forecast (train --model forecast) or a run-time model (train --model runtime)"}
	}
	if _, err := jobruntime.ReadManifest(dir); err != nil {
		return "", nil, err
	}
	return dir, nil, nil
}

// newForecastPolicy builds forecast:DIR or runtime-estimate:DIR; the
// run-time model is bound to the jobs by BindTrace.
func newForecastPolicy(label, kind, dir string) (Policy, error) {
	rtDir, m, err := openForecastDir(dir)
	if err != nil {
		return nil, err
	}
	if kind == "runtime-estimate" {
		p := &RuntimeEstimate{Label: label, dir: rtDir}
		if m != nil {
			p.OP = m.RuntimeEstimate
		}
		return p, nil
	}
	p := &Forecast{Label: label, F: &Forecaster{K: DefaultRollouts}, dir: rtDir}
	if m != nil {
		p.OP, p.F.K, p.F.Seed, p.F.ResampleDays, p.F.Correlation = m.Forecast, m.K, m.Seed, m.ResampleDays, m.Correlation
	}
	return p, nil
}

// BindTrace gives the forecast and runtime-estimate policies of ps the
// run-time model's predictions of the simulator jobs sjobs (from the
// trace jobs tjobs, features.Protocol.Prepare), and the model policies
// whose features need a run-time model (train.Manifest.RuntimeModel)
// its predictions as FeatureRunTimes makes them (out of fold for the
// model's training period), each model directory predicted once per kind.
// Replay needs it before those policies decide.
func BindTrace(ps []Policy, tjobs []trace.Job, sjobs []sim.Job) error {
	type key struct {
		dir string
		oof bool
	}
	rts := map[key]*RunTimes{}
	get := func(dir string, oof bool) (*RunTimes, error) {
		if rt, ok := rts[key{dir, oof}]; ok {
			return rt, nil
		}
		rt, err := NewRunTimes(dir, tjobs, sjobs, oof)
		if err != nil {
			return nil, err
		}
		rts[key{dir, oof}] = rt
		return rt, nil
	}
	for _, p := range ps {
		var err error
		switch p := unwrapPolicy(p).(type) {
		case *Forecast:
			if p.F.RT == nil {
				p.F.RT, err = get(p.dir, false)
			}
		case *RuntimeEstimate:
			if p.RT == nil {
				p.RT, err = get(p.dir, false)
			}
		case *Model:
			if dir := p.runtimeDir(); dir != "" && p.RT == nil {
				if err = checkRuntimeModel(dir, p.Artifact.Manifest.RuntimeModelSHA256); err == nil {
					p.RT, err = get(dir, true)
				}
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkBound returns an error for a forecast, runtime-estimate or
// run-time-feature model policy without predictions (BindTrace not
// called).
func checkBound(ps []Policy) error {
	for _, p := range ps {
		switch p := unwrapPolicy(p).(type) {
		case *Forecast:
			if p.F.RT == nil {
				return fmt.Errorf("%w: %s: no run-time predictions (evaluate.BindTrace)", ErrPolicy, p.Label)
			}
		case *RuntimeEstimate:
			if p.RT == nil {
				return fmt.Errorf("%w: %s: no run-time predictions (evaluate.BindTrace)", ErrPolicy, p.Label)
			}
		case *Model:
			if p.runtimeDir() != "" && p.RT == nil {
				return fmt.Errorf("%w: %s: no run-time predictions for its features (evaluate.BindTrace)", ErrPolicy, p.Label)
			}
		}
	}
	return nil
}
