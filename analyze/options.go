package analyze

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/mirage-hpc/mirage/sim"
)

// ErrOptions is wrapped by the errors Run returns for invalid options.
var ErrOptions = errors.New("invalid analyze options")

// ChainOptions are the service-chain detector's thresholds (see
// README.md, "Service chains"). Every duration is in seconds.
type ChainOptions struct {
	// LimitSlackSec: a predecessor "ran to its limit" when its run time is
	// at least TimelimitSec - LimitSlackSec, or its state is TIMEOUT.
	// Default 300 (5 minutes).
	LimitSlackSec int64 `json:"limit_slack_sec"`
	// MaxSubmitAfterEndSec: the successor was submitted before the
	// predecessor ended or at most this long after. Default 3600 (1 hour).
	MaxSubmitAfterEndSec int64 `json:"max_submit_after_end_sec"`
	// MaxOverlapSec: the successor started at most this long before the
	// predecessor ended (a larger overlap is two jobs running side by
	// side, not a continuation). Default 7200 (2 hours).
	MaxOverlapSec int64 `json:"max_overlap_sec"`
	// MatchName links jobs of the same user with the same non-empty job
	// name. Default true.
	MatchName bool `json:"match_name"`
	// MatchShape links jobs of the same user, the same account and the
	// same shape (node count and time limit) when the name does not
	// link them (traces without names, as SWF). Default true.
	MatchShape bool `json:"match_shape"`
}

// ReplayOptions bound the simulator's part of the analysis: the fidelity
// replay and the reactive and oracle replays of the chains. Both need the
// whole trace in memory, so they run only on traces of at most MaxJobs
// jobs; their sections say so otherwise.
type ReplayOptions struct {
	// noOracle replays the reactive successors only (ReplayChains).
	noOracle bool

	// MaxJobs is the largest trace (rows) replayed; 0 means 500,000; a
	// negative value turns replays off.
	MaxJobs int64
	// Profile is the simulator profile: a built-in one's name ("default",
	// "mirage-compat", "ls6") or a profile file (sim.LoadProfile).
	// Default "default".
	Profile string
	// Sim, when set, is the simulator profile itself, and Profile only
	// its name; Run sets it from Profile otherwise. It is not part of the
	// options' JSON.
	Sim *sim.Profile `json:"-"`
	// MaxChains is the number of chains replayed (the first by head
	// submission); 0 means 200.
	MaxChains int
	// MaxLinks caps the links replayed over all chains; 0 means 2,000.
	MaxLinks int
	// OracleStepSec is the oracle's grid: a successor submission is tried
	// every OracleStepSec from the predecessor's simulated start to its
	// end; 0 means 1800 (30 minutes).
	OracleStepSec int64
}

// Options controls Run. Use DefaultOptions and change fields.
type Options struct {
	// Nodes is the cluster's node count (capacity); 0 means infer a
	// capacity timeline from the trace's busy nodes (the trace has none).
	Nodes int
	// Location is the cluster's zone for months, days and hours; nil
	// means the zone recorded by ingest in the trace, else UTC.
	Location *time.Location
	// CapacitySmoothDays widens the inferred capacity of each day to the
	// most nodes busy at once within this many days on either side.
	// Default 7.
	CapacitySmoothDays int
	Chains             ChainOptions
	Replay             ReplayOptions
	// Figures turns figure rendering (PNG and SVG) and the page on.
	// Default true.
	Figures bool
	// Progress, when not nil, is called during the streaming pass with
	// the rows read so far and the total.
	Progress func(done, total int64)
	// Version is mirage's version, stated in the page's footer with the
	// trace's dates (never the time of writing); "" states none.
	Version string
	// ReportHref, when set, is a link (relative to the analysis
	// directory, or absolute) back to the evaluation report; without it
	// the page links back in the browser's history.
	ReportHref string
	// Logger receives progress lines; nil discards them.
	Logger *slog.Logger
	// nodesFromHeader is set when Nodes came from the trace (an SWF
	// header's MaxNodes, as ingest recorded it), not the caller.
	nodesFromHeader bool
}

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{
		CapacitySmoothDays: 7,
		Chains: ChainOptions{
			LimitSlackSec:        300,
			MaxSubmitAfterEndSec: 3600,
			MaxOverlapSec:        7200,
			MatchName:            true,
			MatchShape:           true,
		},
		Replay: ReplayOptions{
			MaxJobs:       500_000,
			Profile:       "default",
			MaxChains:     200,
			MaxLinks:      2000,
			OracleStepSec: 1800,
		},
		Figures: true,
	}
}

// normalise fills zero fields with defaults and checks the rest.
func (o *Options) normalise() error {
	if o.Nodes < 0 || o.CapacitySmoothDays < 0 {
		return fmt.Errorf("%w: nodes %d and capacity smoothing %d days must be >= 0", ErrOptions, o.Nodes, o.CapacitySmoothDays)
	}
	c := &o.Chains
	if c.LimitSlackSec < 0 || c.MaxSubmitAfterEndSec < 0 || c.MaxOverlapSec < 0 {
		return fmt.Errorf("%w: chain thresholds must be >= 0", ErrOptions)
	}
	if !c.MatchName && !c.MatchShape {
		return fmt.Errorf("%w: chains: at least one of name and shape matching must be on", ErrOptions)
	}
	r := &o.Replay
	if r.MaxJobs == 0 {
		r.MaxJobs = 500_000
	}
	if r.Profile == "" {
		r.Profile = "default"
	}
	if r.Sim == nil {
		p, err := sim.LoadProfile(r.Profile)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrOptions, err)
		}
		r.Sim = &p
	}
	if r.MaxChains == 0 {
		r.MaxChains = 200
	}
	if r.MaxLinks == 0 {
		r.MaxLinks = 2000
	}
	if r.OracleStepSec == 0 {
		r.OracleStepSec = 1800
	}
	if r.MaxChains < 0 || r.MaxLinks < 0 || r.OracleStepSec < 0 {
		return fmt.Errorf("%w: replay bounds must be >= 0", ErrOptions)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}
