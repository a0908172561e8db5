package replay

import (
	"context"
	"fmt"
	"math"

	"github.com/mirage-hpc/mirage/analyze"
	"github.com/mirage-hpc/mirage/internal/workpool"
	"github.com/mirage-hpc/mirage/sim"
)

// The chains' term of the calibration's objective (Score.value).
const (
	// ChainWeight is w in value = Spearman + within 2x - w * |ln(sim /
	// real)|, the simulated against the real reactive interruption of
	// the trace's chains: a setting off by a factor of 2 loses 0.17, as
	// much as a Spearman 0.17 lower (or 17 points fewer within 2x); off
	// by 1.5x (the goal's bound) 0.10. So the chains decide between
	// settings whose waits score within about 0.1 to 0.2 of each other,
	// and a much better wait fit still wins over a somewhat better
	// chain fit: the waits are scored on every job, the chains on a few
	// hundred links.
	ChainWeight = 0.25
	// maxChainLog caps |ln(sim / real)| (a factor of 10): a setting
	// under which no successor waits loses at most 0.58, not all.
	maxChainLog = 2.302585092994046
	// chainEpsH is added to both sides of the ratio per replayed link
	// (hours): interruptions of a few minutes a link are noise.
	chainEpsH = 0.1
	// minChainLinks is the fewest replayed links the term needs; with
	// fewer it is 0 (too few chains to judge by).
	minChainLinks = 10
	// chainRungMax is the most candidates a rung may have for its
	// scores to count the chains (each candidate's months replay their
	// chains too, several times as costly as the waits' replays).
	chainRungMax = 16
	// finalists is the number of best candidates of the search that are
	// scored with their chains on every calibration month before the
	// best is chosen.
	finalists = 5
	// monthChains and monthLinks bound a month's chain replay (the
	// first chains by head submission).
	monthChains, monthLinks = 50, 500
)

// chainError is |ln((sim + eps) / (real + eps))|, capped at maxChainLog,
// for r's replayed links; 0 with fewer than minChainLinks.
func chainError(r *analyze.ChainReplay) float64 {
	if r == nil || r.Links < minChainLinks {
		return 0
	}
	eps := chainEpsH * float64(r.Links)
	return min(math.Abs(math.Log((r.ReactiveH+eps)/(r.RealH+eps))), maxChainLog)
}

// value is what the search maximises: Spearman plus the share within
// 2x, each in [0, 1] (the two figures a center reads), less ChainWeight
// times the chains' error when they were replayed (chainError).
func (s Score) value() float64 {
	v := s.Spearman + s.Within2x - ChainWeight*chainError(s.Chains)
	if math.IsNaN(v) {
		return math.Inf(-1)
	}
	return v
}

// addChains pools two chain replays (their sums).
func addChains(a, b analyze.ChainReplay) analyze.ChainReplay {
	return analyze.ChainReplay{Chains: a.Chains + b.Chains, Links: a.Links + b.Links, RealH: a.RealH + b.RealH, ReactiveH: a.ReactiveH + b.ReactiveH}
}

// detectChains detects the trace's chains once for the calibration.
func (c *calibrator) detectChains() error {
	cs, err := analyze.DetectChains(c.in.Jobs, analyze.DefaultOptions())
	if err != nil {
		return fmt.Errorf("calibrate: chains: %w", err)
	}
	c.chains, c.chainCache = cs, map[replayKey]analyze.ChainReplay{}
	return nil
}

// checkChains replays the check months' chains under the base profile
// and the fitted one (res.Profile), as analyze.ReplayChains does (the
// whole trace's background, its default bounds).
func (c *calibrator) checkChains(res *Calibration) error {
	if c.chains == nil || c.o.To >= c.o.CheckTo {
		return nil
	}
	profs := []sim.Profile{c.in.Profile, res.Profile}
	out := make([]analyze.ChainReplay, 2)
	errs := workpool.Run(c.ctx, c.o.Workers, len(profs), func(ctx context.Context, k int) error {
		var err error
		out[k], err = c.chains.Replay(ctx, c.in.Jobs, profs[k], analyze.ChainWindow{From: c.o.To, To: c.o.CheckTo})
		return err
	}, nil)
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("calibrate: check chains: %w", err)
		}
	}
	res.ChainBase, res.ChainFitted = &out[0], &out[1]
	return nil
}
