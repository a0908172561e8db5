package evaluate

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// In is what the evaluate stage replays: a trace and the protocol whose
// windows it cuts from it.
type In struct {
	// Trace is the trace file (Parquet, from mirage ingest), read when
	// Jobs is nil.
	Trace string
	// Jobs is the trace itself; when not nil Trace is not read.
	Jobs []trace.Job
	// Protocol gives the windows, chain sizes and simulator
	// (features.Protocol.Prepare).
	Protocol features.Protocol
}

// RunOptions controls Run, RunShard and Merge.
type RunOptions struct {
	// Policies is the policy list and its sweeps (PolicySpec.Parse).
	Policies PolicySpec
	// Lambda is λ (Options.Lambda; Compute): hours of interruption an
	// hour of overlap costs; 0 means 0 (DefaultLambda is the usual 0.5).
	Lambda float64
	// DecisionSec is the decision interval in seconds; 0 means 600.
	DecisionSec int64
	// Workers is the number of windows replayed at once; 0 means
	// GOMAXPROCS. The output does not depend on it.
	Workers int
	// Logger receives the fit check's warnings; nil discards them.
	Logger *slog.Logger
	// Progress, when not nil, is called after each window (Options).
	Progress func(done, total int)
	// NoFitCheck skips the check of how the trace fits the protocol's
	// partition (for a caller that checked it already). Otherwise a trace
	// that does not fit (sim.Fit.Check with AllowSkip and FitFlag, the
	// setting that sizes the partition, named in the message) is an error
	// wrapping sim.ErrUnfit.
	NoFitCheck bool
	AllowSkip  bool
	FitFlag    string
	// Output is the directory Run and Merge write metrics.json and
	// windows.csv into (WriteDir); "" writes nothing.
	Output string
	// RealChains, when not nil, has Run also replay the trace's own
	// service chains (RealChains): Metrics.RealChains holds their totals
	// and Output chains.csv their rows. RunShard ignores it; Merge replays
	// them, whole.
	RealChains *ChainsOptions
	// Lifetime, when not nil, has Run (and Merge) also replay every
	// policy as a service of several links (Lifetimes): Metrics.Lifetime
	// holds their metrics and Output lifetimes.csv their rows. RunShard
	// ignores it; Merge replays them, whole.
	Lifetime *LifetimeOptions
}

// RunSummary is what Run and Merge return.
type RunSummary struct {
	// Policies are the policies' names in the replay's order.
	Policies []string
	// Metrics are Compute's, with the protocol, simulator configuration
	// and model directories (ModelDirsIn) that WriteDir records.
	Metrics Metrics
	// Rows are Replay's rows (Results.Rows).
	Rows []Row
	// Warnings are the fit check's findings, as logged.
	Warnings []string
}

// Run is the evaluate stage: it parses opts.Policies (an error there is
// a *PolicyListError), reads in's trace, checks its fit (unless
// opts.NoFitCheck), prepares the protocol's windows, binds the policies
// to the trace (BindTrace), replays them (Replay), computes the metrics
// at opts.Lambda and writes them to opts.Output.
func Run(ctx context.Context, in In, opts RunOptions) (RunSummary, error) {
	r, err := prepareRun(ctx, in, opts)
	if err != nil {
		return RunSummary{}, err
	}
	res, err := Replay(ctx, r.jobs, r.policies, r.replayOptions(r.fo))
	if err != nil {
		return RunSummary{}, err
	}
	sum := RunSummary{Policies: res.Policies, Rows: res.Rows, Warnings: r.warnings}
	var chains *ChainsSummary
	if opts.RealChains != nil {
		cs, err := r.realChains(ctx, in.Protocol)
		if err != nil {
			return RunSummary{}, err
		}
		chains = &cs
	}
	var life *LifetimeSummary
	if opts.Lifetime != nil {
		if life, err = r.lifetimes(ctx); err != nil {
			return RunSummary{}, err
		}
	}
	if sum.Metrics, err = finish(in.Protocol, r.fo.Config, opts, res.Rows, chains, life); err != nil {
		return RunSummary{}, err
	}
	return sum, nil
}

// lifetimes replays r's policies as services (Lifetimes) and computes
// their metrics.
func (r prepared) lifetimes(ctx context.Context) (*LifetimeSummary, error) {
	rows, err := Lifetimes(ctx, r.jobs, r.policies, r.replayOptions(r.fo), *r.opts.Lifetime)
	if err != nil {
		return nil, err
	}
	s := ComputeLifetimes(rows, *r.opts.Lifetime)
	return &s, nil
}

// finish computes the metrics of rows and writes them, and chains' rows
// when not nil, to opts.Output.
func finish(p features.Protocol, cfg sim.Config, opts RunOptions, rows []Row, chains *ChainsSummary, life *LifetimeSummary) (Metrics, error) {
	m := Compute(rows, opts.Lambda)
	m.Protocol, m.SimConfig = &p, &cfg
	m.RealChains, m.Lifetime = chains, life
	if opts.Output == "" {
		return m, nil
	}
	m.ModelDirs = ModelDirsIn(opts.Output, m, opts.Policies.DirOf)
	return m, writeDir(opts.Output, m, rows, chains)
}

// prepared is what Run and RunShard share: the policies, the prepared
// trace and the fit check's warnings.
type prepared struct {
	opts     RunOptions
	policies []Policy
	tjobs    []trace.Job
	jobs     []sim.Job
	fo       features.Options
	warnings []string
}

// prepareRun parses the policies, reads, checks and prepares the trace
// and binds the policies to it.
func prepareRun(ctx context.Context, in In, opts RunOptions) (prepared, error) {
	r := prepared{opts: opts}
	var err error
	if r.policies, err = opts.Policies.Parse(); err != nil {
		return r, &PolicyListError{Err: err}
	}
	tjobs, err := readTrace(ctx, in)
	if err != nil {
		return r, err
	}
	r.tjobs = tjobs
	if !opts.NoFitCheck {
		if r.warnings, err = checkFit(in.Protocol, tjobs, opts); err != nil {
			return r, fmt.Errorf("evaluate: %w", err)
		}
	}
	if r.jobs, r.fo, err = in.Protocol.Prepare(tjobs); err != nil {
		return r, err
	}
	return r, BindTrace(r.policies, tjobs, r.jobs)
}

func readTrace(ctx context.Context, in In) ([]trace.Job, error) {
	if in.Jobs != nil {
		return in.Jobs, nil
	}
	return trace.ReadAllContext(ctx, in.Trace)
}

// checkFit judges how tjobs fit p's partition and logs the warnings.
func checkFit(p features.Protocol, tjobs []trace.Job, opts RunOptions) ([]string, error) {
	f, err := p.Fit(tjobs)
	if err != nil {
		return nil, err
	}
	warnings, err := f.Check(opts.AllowSkip, opts.FitFlag)
	log := logger(opts.Logger)
	for _, w := range warnings {
		log.Warn(w)
	}
	return warnings, err
}

// replayOptions are Replay's options for the windows of fo.
func (r prepared) replayOptions(fo features.Options) Options {
	o := Options{Features: fo, DecisionSec: r.opts.DecisionSec, Workers: r.opts.Workers,
		Progress: r.opts.Progress, Lambda: r.opts.Lambda}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
