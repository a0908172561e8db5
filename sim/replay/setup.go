package replay

import (
	"context"
	"log/slog"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// setup is a trace made ready to replay: the simulator configuration
// (with the inferred capacity), the trace's fit and its warnings, and the
// jobs, held one of two ways (prepare's keepTrace).
type setup struct {
	cfg      sim.Config
	fit      sim.Fit
	warnings []string
	tjobs    []trace.Job // with keepTrace
	jobs     []sim.Job   // with keepTrace
	table    *sim.Table  // without keepTrace: the jobs in the simulator's layout
	conv     sim.Conversion
}

// window is what prepare replays of a trace: the submissions [from, to)
// (Unix seconds, 0 = open), and how the fit is judged.
type window struct {
	from, to  int64
	allowSkip bool
	flag      string
	log       *slog.Logger
}

// prepare reads in's trace and builds what a replay of w needs. With
// keepTrace the trace's jobs are kept (setup.tjobs) and converted
// (setup.jobs); without, the trace is converted while it is read into a
// sim.Table (setup.table), so a replay of millions of jobs holds only
// that. A trace that does not fit the partition is an error wrapping
// sim.ErrUnfit; ctx is checked between the steps.
func prepare(ctx context.Context, in In, w window, keepTrace bool) (*setup, error) {
	prof := in.Profile
	cfg := prof.Config
	opts := prof.FromTraceOptions(cfg.Nodes)
	opts.From, opts.To = w.from, w.to
	rs := &setup{cfg: cfg}
	var err error
	switch {
	case in.Jobs != nil:
		rs.tjobs = in.Jobs
		rs.fit = sim.CheckFit(rs.tjobs, cfg.Nodes, opts.From, opts.To)
		if !keepTrace {
			jobs, conv, err := sim.FromTrace(rs.tjobs, opts)
			if err != nil {
				return nil, err
			}
			rs.table, rs.conv = sim.TableOf(jobs), conv
		}
	case keepTrace:
		if rs.tjobs, err = trace.ReadAllContext(ctx, in.Trace); err != nil {
			return nil, err
		}
		rs.fit = sim.CheckFit(rs.tjobs, cfg.Nodes, opts.From, opts.To)
	default:
		fc := sim.NewFitCounter(cfg.Nodes, opts.From, opts.To)
		if rs.table, rs.conv, err = sim.ReadTraceTable(ctx, in.Trace, opts, fc.Add); err != nil {
			return nil, err
		}
		rs.fit = fc.Fit()
	}
	if rs.warnings, err = rs.fit.Check(w.allowSkip, partitionFlag(w.flag)); err != nil {
		return nil, err
	}
	log := logger(w.log)
	for _, msg := range rs.warnings {
		log.Warn(msg)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if keepTrace {
		if rs.jobs, rs.conv, err = sim.FromTrace(rs.tjobs, opts); err != nil {
			return nil, err
		}
	}
	if prof.InferCapacity != nil {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		jobs := rs.jobs
		if jobs == nil {
			jobs = rs.table.Jobs()
		}
		if rs.cfg.Capacity, err = inferCapacity(ctx, in.Trace, rs.tjobs, jobs, opts, *prof.InferCapacity, cfg.Nodes); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return rs, nil
}

// inferCapacity infers the capacity timeline of a partition of nodes
// nodes from the trace with co. Inside a From/To window it looks at the
// whole trace, so jobs submitted before the window but running in it
// count as busy.
//
// tjobs are the trace's jobs when they are held (nil: the trace at path
// is read again for a window).
func inferCapacity(ctx context.Context, path string, tjobs []trace.Job, jobs []sim.Job, opts sim.FromTraceOptions, co sim.CapacityOptions, nodes int) ([]sim.CapacityStep, error) {
	if opts.From != 0 || opts.To != 0 {
		opts.From, opts.To = 0, 0
		var all []sim.Job
		var err error
		if tjobs != nil {
			all, _, err = sim.FromTrace(tjobs, opts)
		} else {
			all, _, err = sim.ReadTrace(ctx, path, opts, nil)
		}
		if err != nil {
			return nil, err
		}
		jobs = all
	}
	co.Nodes = nodes
	return sim.InferCapacity(jobs, co), nil
}
