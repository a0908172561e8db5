package features

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/mirage-hpc/mirage/sim"
)

// ErrOptions is wrapped by Build's errors for invalid Options.
var ErrOptions = errors.New("invalid features options")

// Options controls Build. Times are Unix seconds, durations seconds.
type Options struct {
	// Config is the simulator configuration (with its Capacity timeline).
	Config sim.Config
	// Mode is how each window's simulation starts (cold or warm).
	Mode sim.WindowMode
	// Start is the first window's start; window i starts at
	// Start + i*IntervalSec.
	Start int64
	// IntervalSec is the time between window starts.
	IntervalSec int64
	// Windows is the number of windows per chain size.
	Windows int
	// WarmupSec is the time from a window's start to P's submission.
	WarmupSec int64
	// WorkloadSec is the span of trace submissions a window takes part
	// (sim.NewWindow's length).
	WorkloadSec int64
	// Probes is the number of candidate submission times of Q per window,
	// evenly spaced from P.submit + 1 min to P.end (see ProbeTimes); the
	// Mirage artifact's protocol. Not used when Grid is set.
	Probes int
	// Grid, when set, labels the decision times a policy sees instead of
	// Probes evenly spaced ones: see GridOptions and ProbeGrid.
	Grid *GridOptions
	// ChainNodes lists the chain sizes (nodes of P and of Q); every window
	// is run once per size.
	ChainNodes []int
	// ChainLimitSec and ChainRunSec are P's and Q's time limit and run
	// time; 0 means 48 hours.
	ChainLimitSec, ChainRunSec int64
	// QTimeMinSec is Q's --time-min in seconds (sim.Job.TimeMinSec), 0
	// for none: backfill may then start Q earlier under a shorter limit
	// (Timeline.QStart reports it). P has none.
	QTimeMinSec int64
	// SampleSec is the history's sampling interval; 0 means 600.
	SampleSec int64
	// HistorySec is the history's span; 0 means 24 hours.
	HistorySec int64
	// RecentStarts is how many recently started jobs the mean wait is over;
	// 0 means 100.
	RecentStarts int
	// Location is the zone of hour_of_day and day_of_week; nil means UTC.
	Location *time.Location
	// RunTimes, when set, adds the ModelEstimateName column after Names'
	// (FeatureNames): the estimate planned with a learned run-time model's
	// medians of the jobs given to Build, which must have one value per
	// job. Nil leaves the samples as without it.
	RunTimes *RunTimes
	// Wide, when set, adds the wide columns (WideNames) after Names'.
	// Off, the samples are as without it.
	Wide bool
	// Workers is the number of windows simulated at once; 0 means 1. The
	// result does not depend on it.
	Workers int
	// Progress, when not nil, is called after each window with the number
	// of windows done (all chain sizes) and the total; calls may come from
	// several goroutines but never at once.
	Progress func(done, total int)
	// Logger receives a line per Build; nil discards.
	Logger *slog.Logger
}

// DefaultOptions returns the Mirage artifact's protocol without a start:
// windows every 4 hours, 2 days of warm-up, 5 days of workload, 7 probes,
// chains of 1 and 8 nodes for 48 hours, cold windows in the
// mirage-compat simulator with 88 nodes.
func DefaultOptions() Options {
	return Options{
		Config:      sim.MirageCompat(),
		Mode:        sim.WindowCold,
		IntervalSec: 4 * 3600,
		Windows:     1,
		WarmupSec:   2 * 86400,
		WorkloadSec: 5 * 86400,
		Probes:      7,
		ChainNodes:  []int{1, 8},
	}
}

func (o *Options) normalise() error {
	if o.ChainLimitSec == 0 {
		o.ChainLimitSec = 48 * 3600
	}
	if o.ChainRunSec == 0 {
		o.ChainRunSec = o.ChainLimitSec
	}
	if o.SampleSec == 0 {
		o.SampleSec = 600
	}
	if o.HistorySec == 0 {
		o.HistorySec = 24 * 3600
	}
	if o.RecentStarts == 0 {
		o.RecentStarts = 100
	}
	if o.Location == nil {
		o.Location = time.UTC
	}
	o.Workers = max(o.Workers, 1)
	if o.Grid != nil {
		g := o.Grid.WithDefaults()
		o.Grid = &g
		if g.DecisionSec < 0 || g.DenseSec < 0 || g.SparseSec < 0 || g.SparseSec%g.DecisionSec != 0 {
			return fmt.Errorf("%w: probe grid every %d s, dense %d s, sparse every %d s (a multiple of the decision interval)",
				ErrOptions, g.DecisionSec, g.DenseSec, g.SparseSec)
		}
	}
	switch {
	case o.Windows < 0 || o.IntervalSec <= 0 && o.Windows > 1:
		return fmt.Errorf("%w: %d windows every %d s", ErrOptions, o.Windows, o.IntervalSec)
	case o.WarmupSec < 0 || o.WorkloadSec < o.WarmupSec:
		return fmt.Errorf("%w: warm-up %d s must be in [0, workload %d s]", ErrOptions, o.WarmupSec, o.WorkloadSec)
	case o.Probes < 1 && o.Grid == nil:
		return fmt.Errorf("%w: %d probes < 1", ErrOptions, o.Probes)
	case len(o.ChainNodes) == 0:
		return fmt.Errorf("%w: no chain sizes", ErrOptions)
	case o.ChainLimitSec < 0 || o.ChainRunSec < 0 || o.QTimeMinSec < 0 || o.SampleSec < 0 || o.HistorySec < 0 || o.RecentStarts < 0:
		return fmt.Errorf("%w: negative duration or count", ErrOptions)
	}
	for _, n := range o.ChainNodes {
		if n < 1 || n > o.Config.Nodes {
			return fmt.Errorf("%w: chain of %d nodes on %d", ErrOptions, n, o.Config.Nodes)
		}
	}
	return o.Config.Validate()
}

// ProbeTimes writes n candidate submission times of Q into dst and returns
// it (nil dst: allocated): evenly spaced from lower to upper inclusive,
// lower + (upper-lower)·k/(n-1) in integer seconds, floored to the minute
// (a multiple of 60 Unix seconds), the last one exactly upper. With n == 1 it is upper.
func ProbeTimes(dst []int64, lower, upper int64, n int) []int64 {
	dst = dst[:0]
	for k := range n - 1 {
		t := lower + (upper-lower)*int64(k)/int64(n-1)
		dst = append(dst, t-((t%60)+60)%60)
	}
	return append(dst, upper)
}

// GridOptions are the decision-grid probes (features build --probes grid):
// the times a policy replayed by evaluate decides at, P.submit + k·DecisionSec
// (DecisionGrid), of which every one in the last DenseSec before P's
// expected end (P's start plus its limit) is labelled, and before that
// only those every SparseSec since P's submission; P's start and P's end
// always. Durations are seconds; zero values take the defaults.
type GridOptions struct {
	// DecisionSec is the decision interval; 0 means 600 (evaluate's).
	DecisionSec int64 `json:"decision_sec"`
	// DenseSec is the span before P's expected end labelled at every
	// decision; 0 means 24 hours.
	DenseSec int64 `json:"dense_sec"`
	// SparseSec is the spacing before that; 0 means one hour. It must be
	// a multiple of DecisionSec.
	SparseSec int64 `json:"sparse_sec"`
}

func (g GridOptions) WithDefaults() GridOptions {
	if g.DecisionSec == 0 {
		g.DecisionSec = 600
	}
	if g.DenseSec == 0 {
		g.DenseSec = 24 * 3600
	}
	if g.SparseSec == 0 {
		g.SparseSec = 3600
	}
	return g
}

// ProbeGrid appends to dst the decision-grid probe times of a chain whose
// P was submitted at pSubmit, started at pStart, is expected to end at
// pExpEnd (pStart plus its limit) and ends at pEnd: the times of
// DecisionGrid(pSubmit, pStart, pEnd, g.DecisionSec) that are P's start,
// P's end, at or after pExpEnd − g.DenseSec, or a multiple of g.SparseSec
// after pSubmit. Every probe is therefore a time evaluate's policies
// decide at. g's zero fields take their defaults.
func ProbeGrid(dst []int64, g GridOptions, pSubmit, pStart, pExpEnd, pEnd int64) []int64 {
	g = g.WithDefaults()
	all := DecisionGrid(nil, pSubmit, pStart, pEnd, g.DecisionSec)
	for _, t := range all {
		if t == pStart || t == pEnd || t >= pExpEnd-g.DenseSec || (t-pSubmit)%g.SparseSec == 0 {
			dst = append(dst, t)
		}
	}
	return dst
}
