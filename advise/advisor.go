package advise

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/train"
)

// DefaultDecisionSec is the decision interval: the simulator's decision
// grid (P's submission plus multiples of 10 minutes), seconds.
const DefaultDecisionSec = 600

// Advisor decides, for a running or pending predecessor P, whether to
// submit its successor Q now. Set the exported fields before the first
// Decide. It is not safe for concurrent use.
type Advisor struct {
	model  Model
	source Source
	// Live configures how the live queue becomes the features' input;
	// New sets it from the model (Model.Info().Live).
	Live LiveOptions
	// DecisionSec is the decision interval in seconds (default
	// DefaultDecisionSec): NextAsk is the next point of P.submit + k ×
	// DecisionSec.
	DecisionSec int64
	// Audit, when not nil, receives every decision as one JSON line.
	Audit io.Writer
	// Logger receives a line per decision; nil discards.
	Logger *slog.Logger

	x []float64
}

// New returns an Advisor that scores the live state read from source
// with model.
func New(model Model, source Source) *Advisor {
	return &Advisor{model: model, source: source, Live: model.Info().Live, DecisionSec: DefaultDecisionSec}
}

// Decision is one decision about Q, as printed and audited.
type Decision struct {
	// Time is the decision time (the observation's), Unix seconds, and
	// TimeUTC the same in RFC 3339.
	Time    int64  `json:"time"`
	TimeUTC string `json:"time_utc"`
	// Job is P's job ID.
	Job string `json:"job"`
	// Submit says to submit Q now; Action is "submit" or "wait".
	Submit bool   `json:"submit"`
	Action string `json:"action"`
	// Reason is "model" (the model's rule decided) or "p-ended" (P has
	// left the queue: submit at once, the reactive fallback).
	Reason string `json:"reason"`
	// Score is the model's score and its operating point (zero for
	// p-ended).
	Score Score `json:"score"`
	// Model is the model's kind, target, rule and digest.
	Model ModelInfo `json:"model"`
	// PStarted, PExpectedEndUnix and PRemainingSec describe P (its
	// start, or now while pending, plus its limit).
	PStarted         bool  `json:"p_started"`
	PExpectedEndUnix int64 `json:"p_expected_end"`
	PRemainingSec    int64 `json:"p_remaining_sec"`
	// NextAsk is when to ask again (Unix seconds): the next decision
	// time, 0 after a submit decision.
	NextAsk int64 `json:"next_ask"`
	// FeaturesSHA256 is the SHA-256 of the feature vector (float64s,
	// little-endian, Names' order, then features.WideNames for a model
	// with the wide columns and features.ModelEstimateName for a model
	// with a run-time model), so an audit can match a replay.
	FeaturesSHA256 string `json:"features_sha256,omitempty"`
	// Features is the feature vector by name (--json only).
	Features map[string]float64 `json:"features,omitempty"`
	// Pending and Running are the jobs in the rebuilt queue.
	Pending int `json:"pending_jobs"`
	Running int `json:"running_jobs"`
}

// Decide observes the cluster and decides for P (squeue's job pJobID).
// When P has left the queue (it ended, or squeue shows it ended) the
// decision is to submit with reason "p-ended"; a P that is in neither the
// queue nor the history is an error wrapping ErrNoJob.
func (a *Advisor) Decide(ctx context.Context, pJobID string) (Decision, error) {
	obs, err := a.source.Observe(ctx)
	if err != nil {
		return Decision{}, err
	}
	return a.DecideAt(ctx, obs, pJobID)
}

// DecideAt decides for P from an observation already read.
func (a *Advisor) DecideAt(ctx context.Context, obs *Observation, pJobID string) (Decision, error) {
	info := a.model.Info()
	info.Live = LiveOptions{}
	d := Decision{Time: obs.Now, TimeUTC: time.Unix(obs.Now, 0).UTC().Format(time.RFC3339), Job: pJobID, Model: info}
	st, ch, err := BuildState(obs, pJobID, a.Live)
	if errors.Is(err, ErrNoJob) {
		if !pEnded(obs, pJobID) {
			return Decision{}, err
		}
		d.Submit, d.Action, d.Reason = true, "submit", "p-ended"
		return d, a.audit(&d)
	}
	if err != nil {
		return Decision{}, err
	}
	names := features.ColumnNames(st.Wide, st.MedianRunSec != nil)
	if len(a.x) != len(names) {
		a.x = make([]float64, len(names))
	}
	if err := features.Vector(ctx, a.x, st); err != nil {
		return Decision{}, fmt.Errorf("features: %w", err)
	}
	d.PStarted, d.PExpectedEndUnix = ch.Started, ch.ExpectedEnd
	d.PRemainingSec = max(ch.ExpectedEnd-obs.Now, 0)
	d.Score = a.model.Score(a.x, int(st.P.Nodes), float64(d.PRemainingSec))
	if err := d.Score.check(); err != nil {
		return Decision{}, fmt.Errorf("model %s (kind %s): %w", info.Dir, info.Kind, err)
	}
	d.Submit, d.Reason = d.Score.Submit, "model"
	d.Action = "wait"
	if d.Submit {
		d.Action = "submit"
	} else {
		d.NextAsk = nextAsk(obs.Now, st.P.Submit, ch.ExpectedEnd, a.DecisionSec)
	}
	d.FeaturesSHA256 = VectorDigest(a.x)
	d.Features = make(map[string]float64, len(a.x))
	for i, n := range names {
		d.Features[n] = a.x[i]
	}
	snap := st.Sim.Snapshot()
	d.Pending, d.Running = len(snap.Pending), len(snap.Running)
	return d, a.audit(&d)
}

// check returns an error wrapping train.ErrBadModel when a number of s
// is NaN or infinite: such a score decides nothing (every comparison with
// NaN is false) and cannot be written as JSON.
func (s Score) check() error {
	for _, v := range []struct {
		name string
		x    float64
	}{{"prediction", s.Prediction}, {"score", s.Value}, {"threshold", s.Threshold}, {s.ParamName, s.Param}} {
		if math.IsNaN(v.x) || math.IsInf(v.x, 0) {
			return fmt.Errorf("%w: its %s is %v (score %v, prediction %v, threshold %v): a model that scores NaN or infinity cannot decide",
				train.ErrBadModel, v.name, v.x, s.Value, s.Prediction, s.Threshold)
		}
	}
	return nil
}

// pEnded reports whether P shows as ended in the queue or the history.
func pEnded(obs *Observation, id string) bool {
	for _, l := range [][]Job{obs.Queue, obs.History} {
		if i := slices.IndexFunc(l, func(j Job) bool { return j.matches(id) }); i >= 0 && l[i].State == JobEnded {
			return true
		}
	}
	return false
}

// nextAsk returns the first decision time after now: pSubmit + k·step,
// or P's expected end when that comes first.
func nextAsk(now, pSubmit, pEnd, step int64) int64 {
	if step <= 0 {
		step = DefaultDecisionSec
	}
	k := (now-pSubmit)/step + 1
	t := pSubmit + max(k, 1)*step
	if pEnd > now && pEnd < t {
		t = pEnd
	}
	return t
}

// VectorDigest returns the hex SHA-256 of x as little-endian float64s.
func VectorDigest(x []float64) string {
	b := make([]byte, 8*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// audit writes d without its feature map as one JSON line to Audit and
// logs it.
func (a *Advisor) audit(d *Decision) error {
	if a.Logger != nil {
		a.Logger.Info("decision", "job", d.Job, "action", d.Action, "reason", d.Reason, "score", d.Score.Value,
			"threshold", d.Score.Threshold, "next_ask", d.NextAsk)
	}
	if a.Audit == nil {
		return nil
	}
	line := *d
	line.Features = nil
	b, err := json.Marshal(line)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if _, err := a.Audit.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// Watch decides for P at every decision time until a decision is to
// submit, and returns that decision. It calls each (which may be nil)
// after every decision, and waits with sleep (nil means a timer on ctx)
// until the decision's NextAsk, or every interval seconds when interval
// > 0. It returns ctx's error when ctx ends first.
func (a *Advisor) Watch(ctx context.Context, pJobID string, interval time.Duration, each func(Decision), sleep func(context.Context, time.Duration) error) (Decision, error) {
	if sleep == nil {
		sleep = sleepCtx
	}
	for {
		d, err := a.Decide(ctx, pJobID)
		if err != nil {
			return d, err
		}
		if each != nil {
			each(d)
		}
		if d.Submit {
			return d, nil
		}
		wait := time.Duration(d.NextAsk-d.Time) * time.Second
		if interval > 0 {
			wait = interval
		}
		if err := sleep(ctx, max(wait, time.Second)); err != nil {
			return d, err
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
