package features

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// In is what Run, RunShard and MergeShards build samples from.
type In struct {
	// Trace is the trace file (Parquet, from mirage ingest), read unless
	// Jobs is set.
	Trace string
	// Jobs are the trace's jobs already read; nil reads Trace.
	Jobs []trace.Job
	// Protocol is the sample-generation protocol (Protocol.Prepare).
	Protocol Protocol
	// TraceDigest is the trace's digest recorded in the samples' metadata
	// (FileMeta.TraceDigest; "" for none).
	TraceDigest string
	// RunTimes, when not nil, adds the ModelEstimateName column.
	RunTimes *RunTimeModel
}

// RunTimeModel is a learned run-time model as Run takes it: the stage
// cannot load one itself (evaluate does), so the caller injects it.
type RunTimeModel struct {
	// Dir is the model's directory and SHA256 its model file's digest
	// (hex), recorded in the samples' metadata (FileMeta.RuntimeModel and
	// RuntimeSHA256).
	Dir, SHA256 string
	// Predict returns the model's predicted median run times of jobs,
	// Protocol.Prepare's simulator jobs of the trace jobs tjobs (one value
	// per job; Options.RunTimes).
	Predict func(tjobs []trace.Job, jobs []sim.Job) (*RunTimes, error)
}

// FeatureNames returns the feature columns of the samples built from in:
// Names, then WideNames when in.Protocol.Wide is set, then
// ModelEstimateName when in.RunTimes is set.
func (in In) FeatureNames() []string { return ColumnNames(in.Protocol.Wide, in.RunTimes != nil) }

// RunOptions are how Run builds and where it writes.
type RunOptions struct {
	// Workers is the number of windows simulated at once; <= 0 means
	// GOMAXPROCS. The output does not depend on it.
	Workers int
	// Logger receives the fit warnings and a line per Build; nil discards.
	Logger *slog.Logger
	// Progress, when not nil, is called after each window with the number
	// of windows done and the total (Options.Progress).
	Progress func(done, total int)
	// FitChecked skips the check of how the trace fits the protocol's
	// partition, for a caller that judged it already. Otherwise AllowSkip
	// and PartitionFlag are sim.Fit.Check's: AllowSkip builds even when the
	// jobs wider than the partition are too many, and PartitionFlag names
	// the setting that sizes the partition in the message.
	FitChecked    bool
	AllowSkip     bool
	PartitionFlag string
	// Seed is recorded in the samples' metadata (the build is
	// deterministic).
	Seed uint64
	// Output is the Parquet file Run and MergeShards write
	// (WriteParquet); required there.
	Output string
}

// RunSummary reports what Run or MergeShards did.
type RunSummary struct {
	Summary
	// Protocol is the protocol's name, Output the file written and
	// TraceDigest In's.
	Protocol, Output, TraceDigest string
	// Features is the number of feature columns.
	Features int
	// Warnings are the fit check's findings (jobs wider than the
	// partition, demand far above the trace's usage), as logged.
	Warnings []string
}

// Run builds the samples of in.Protocol on the trace and writes them to
// opts.Output with their metadata: it reads the trace (unless in.Jobs),
// checks its fit (unless opts.FitChecked), prepares it
// (Protocol.Prepare), predicts the run-time column (in.RunTimes) and
// runs Build. A trace that does not fit is an error wrapping
// sim.ErrUnfit, bad options one wrapping ErrOptions; the fit's and the
// run-time model's errors begin with "features build: ".
func Run(ctx context.Context, in In, opts RunOptions) (RunSummary, error) {
	if opts.Output == "" {
		return RunSummary{}, fmt.Errorf("%w: no output file", ErrOptions)
	}
	pr, err := in.prepare(ctx, opts, true)
	if err != nil {
		return RunSummary{}, err
	}
	samples, s, err := Build(ctx, pr.jobs, pr.fo)
	if err != nil {
		return RunSummary{}, err
	}
	if err := WriteParquet(opts.Output, &samples, in.meta(pr.fo.Config, opts.Seed)); err != nil {
		return RunSummary{}, err
	}
	return in.summary(s, opts, len(samples.Names), pr.warnings), nil
}

// prepared is a trace prepared for Build.
type prepared struct {
	jobs     []sim.Job
	fo       Options
	warnings []string
}

// prepare reads the trace, checks its fit (unless opts.FitChecked) and
// prepares it under in.Protocol with opts' workers, logger and progress,
// and the run-time column when predict and in.RunTimes are set.
func (in In) prepare(ctx context.Context, opts RunOptions, predict bool) (prepared, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	tjobs := in.Jobs
	if tjobs == nil {
		var err error
		if tjobs, err = trace.ReadAllContext(ctx, in.Trace); err != nil {
			return prepared{}, err
		}
	}
	var pr prepared
	if !opts.FitChecked {
		f, err := in.Protocol.Fit(tjobs)
		if err == nil {
			pr.warnings, err = f.Check(opts.AllowSkip, opts.PartitionFlag)
		}
		for _, w := range pr.warnings {
			log.Warn(w)
		}
		if err != nil {
			return prepared{}, fmt.Errorf("features build: %w", err)
		}
	}
	var err error
	if pr.jobs, pr.fo, err = in.Protocol.Prepare(tjobs); err != nil {
		return prepared{}, err
	}
	pr.fo.Workers, pr.fo.Logger, pr.fo.Progress = opts.Workers, opts.Logger, opts.Progress
	pr.fo.Wide = in.Protocol.Wide
	if pr.fo.Workers <= 0 {
		pr.fo.Workers = runtime.GOMAXPROCS(0)
	}
	if predict && in.RunTimes != nil {
		if pr.fo.RunTimes, err = in.RunTimes.Predict(tjobs, pr.jobs); err != nil {
			return prepared{}, fmt.Errorf("features build: %w", err)
		}
	}
	return pr, nil
}

// meta returns the samples' metadata of in, simulated with cfg.
func (in In) meta(cfg sim.Config, seed uint64) FileMeta {
	m := FileMeta{Protocol: in.Protocol.Name, TraceDigest: in.TraceDigest, Seed: seed, SimConfig: cfg, Options: in.Protocol}
	if in.RunTimes != nil {
		m.RuntimeModel, m.RuntimeSHA256 = in.RunTimes.Dir, in.RunTimes.SHA256
	}
	return m
}

func (in In) summary(s Summary, opts RunOptions, features int, warnings []string) RunSummary {
	return RunSummary{Summary: s, Protocol: in.Protocol.Name, Output: opts.Output, TraceDigest: in.TraceDigest,
		Features: features, Warnings: warnings}
}
