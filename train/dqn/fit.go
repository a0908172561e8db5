package dqn

import (
	"bytes"
	"context"
	"io"
	"log/slog"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/internal/digest"
	"github.com/mirage-hpc/mirage/trace"
	"github.com/mirage-hpc/mirage/train"
)

// FitOptions says what Fit trains on and where it writes.
type FitOptions struct {
	// Trace is the trace file (its sha256 goes into the manifest).
	Trace string
	// Protocol names the features preset whose training windows are the
	// episodes (features.LookupProtocol).
	Protocol string
	// Spec, when not nil, is the protocol to use instead of the preset
	// (the preset with its windows, chain sizes or partition changed);
	// Protocol still names it in the manifest.
	Spec *features.Protocol
	// Dir is the model directory to write.
	Dir string
	// Version is the mirage version recorded in the manifest.
	Version string
	// OverlapBudgetH is the overlap budget of the bias on the advantage
	// of submitting (ChooseBias; hours of mean overlap per window); 0
	// means train.DefaultOverlapBudgetH. Negative: no bias chosen.
	OverlapBudgetH float64
	// CheckFit makes Fit judge, before any episode, how the trace's jobs
	// fit the protocol's partition (features.Protocol.Fit, sim.Fit.Check
	// with AllowSkip; PartitionFlag names the setting that sizes the
	// partition in the message), logging the warnings. A caller that has
	// judged it already (a study, before any stage) leaves it false.
	CheckFit      bool
	AllowSkip     bool
	PartitionFlag string
	// Logger receives the warnings of the fit and, every 50 episodes, the
	// episode's return, loss and epsilon (nil: discard).
	Logger *slog.Logger
}

// Fit trains a DQN on the protocol's training period of a trace and writes
// the model directory (model.safetensors, curve.csv, manifest.json). It is
// the Go API behind `mirage train --model dqn` and a study's dqn stage.
// progress (nil: none) is called after every episode. An unfit trace is an
// error wrapping sim.ErrUnfit (with CheckFit).
func Fit(ctx context.Context, opts FitOptions, cfg Config, progress func(CurvePoint)) (*Result, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	var proto features.Protocol
	if opts.Spec != nil {
		proto = *opts.Spec
	} else {
		var err error
		if proto, err = features.LookupProtocol(opts.Protocol); err != nil {
			return nil, err
		}
	}
	tjobs, err := trace.ReadAllContext(ctx, opts.Trace)
	if err != nil {
		return nil, err
	}
	if opts.CheckFit {
		if err := checkFit(proto, tjobs, opts.AllowSkip, opts.PartitionFlag, log); err != nil {
			return nil, err
		}
	}
	traceDigest, err := digest.File(opts.Trace)
	if err != nil {
		return nil, err
	}
	jobs, fopts, err := proto.Prepare(tjobs)
	if err != nil {
		return nil, err
	}
	env, err := NewEnv(jobs, fopts)
	if err != nil {
		return nil, err
	}
	res, err := Train(ctx, env, cfg, func(p CurvePoint) {
		if p.Episode%50 == 0 {
			log.Info("dqn", "episode", p.Episode, "return", p.Return, "loss", p.Loss, "epsilon", p.Epsilon)
		}
		if progress != nil {
			progress(p)
		}
	})
	if err != nil {
		return nil, err
	}
	var op *train.OperatingPoint
	if b := opts.OverlapBudgetH; b >= 0 && len(res.ValidStart) > 0 {
		if b == 0 {
			b = train.DefaultOverlapBudgetH
		}
		if op, err = ChooseBias(ctx, env, res.Net, res.Stats, BiasStarts(env, cfg), b); err != nil {
			return nil, err
		}
	}
	var curve bytes.Buffer
	if err := WriteCurveCSV(&curve, res.Curve); err != nil {
		return nil, err
	}
	m := &Manifest{
		Kind: "dqn", Features: features.Schema(), FeatureSchemaVersion: features.FeatureSchemaVersion,
		Standardisation: res.Stats, Config: cfg, Seed: cfg.Seed, Protocol: opts.Protocol, ProtocolSpec: &proto,
		TraceDigest: traceDigest, Training: Summarise(res), OperatingPoint: op,
		Versions: map[string]string{"mirage": opts.Version},
	}
	if err := WriteArtifact(opts.Dir, res.Net, curve.Bytes(), m); err != nil {
		return nil, err
	}
	return res, nil
}

// checkFit judges how tjobs fit p's partition (sim.Fit.Check), logging
// the warnings.
func checkFit(p features.Protocol, tjobs []trace.Job, allowSkip bool, flag string, log *slog.Logger) error {
	f, err := p.Fit(tjobs)
	if err != nil {
		return err
	}
	warnings, err := f.Check(allowSkip, flag)
	for _, w := range warnings {
		log.Warn(w)
	}
	return err
}
