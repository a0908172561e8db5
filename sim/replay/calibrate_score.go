package replay

import (
	"context"
	"fmt"

	"github.com/mirage-hpc/mirage/analyze"
	"github.com/mirage-hpc/mirage/internal/workpool"
	"github.com/mirage-hpc/mirage/sim"
)

// calibrator runs and remembers the month replays of a calibration.
type calibrator struct {
	ctx   context.Context
	in    In
	o     CalibrateOptions
	cache map[replayKey]poolWaits
	// chains are the trace's chains, detected once (nil with
	// o.NoChains); chainCache holds their month replays.
	chains      *analyze.Chains
	chainCache  map[replayKey]analyze.ChainReplay
	done, total int
	chainsDone  int
}

// replayKey is a candidate's replay of one month (a span: a month cut
// by the calibration's bounds is not the whole month).
type replayKey struct {
	c        Candidate
	from, to int64
}

// score returns the score of each candidate cands[alive[k]] over the
// months ms (their compared jobs pooled), replaying what the cache does
// not hold, o.Workers at once; withChains adds the replay of the chains
// whose heads are in ms (pooled over the months) to each score, so that
// its value counts the chains' error (Score.value).
func (c *calibrator) score(cands []Candidate, alive []int, ms []month, withChains bool) ([]Score, error) {
	withChains = withChains && c.chains != nil
	type unit struct {
		cand  int
		m     month
		chain bool
	}
	var todo []unit
	for _, ci := range alive {
		for _, m := range ms {
			k := replayKey{cands[ci], m.from, m.to}
			if _, ok := c.cache[k]; !ok {
				todo = append(todo, unit{ci, m, false})
			}
			if _, ok := c.chainCache[k]; withChains && !ok {
				todo = append(todo, unit{ci, m, true})
			}
		}
	}
	c.total = max(c.total, c.done+c.chainsDone+len(todo))
	waits := make([]poolWaits, len(todo))
	chains := make([]analyze.ChainReplay, len(todo))
	errs := workpool.Run(c.ctx, c.o.Workers, len(todo), func(ctx context.Context, u int) error {
		var err error
		if t := todo[u]; t.chain {
			chains[u], err = c.replayMonthChains(ctx, cands[t.cand], t.m)
		} else {
			waits[u], err = c.replayMonth(ctx, cands[t.cand], t.m)
		}
		return err
	}, func(done, _ int) {
		if c.o.Progress != nil {
			c.o.Progress(c.done+c.chainsDone+done, c.total)
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for u, t := range todo {
		k := replayKey{cands[t.cand], t.m.from, t.m.to}
		if t.chain {
			c.chainCache[k] = chains[u]
			c.chainsDone++
		} else {
			c.cache[k] = waits[u]
			c.done++
		}
	}
	scores := make([]Score, len(alive))
	for k, ci := range alive {
		var p poolWaits
		var ch analyze.ChainReplay
		for _, m := range ms {
			key := replayKey{cands[ci], m.from, m.to}
			w := c.cache[key]
			p.actual = append(p.actual, w.actual...)
			p.simulated = append(p.simulated, w.simulated...)
			if withChains {
				ch = addChains(ch, c.chainCache[key])
			}
		}
		f := sim.CompareWaits(p.actual, p.simulated, nil)
		scores[k] = Score{Jobs: f.Jobs, Spearman: f.Spearman, Within2x: f.Within2x, MAESec: f.MAESec}
		if withChains {
			scores[k].Chains = &ch
		}
		scores[k].Value = scores[k].value()
	}
	return scores, nil
}

// replayMonth replays month m under candidate cand, from o.WarmupSec
// before it, and returns the waits of the jobs submitted in it.
func (c *calibrator) replayMonth(ctx context.Context, cand Candidate, m month) (poolWaits, error) {
	prof, err := apply(c.in.Profile, cand, c.in.Jobs)
	if err != nil {
		return poolWaits{}, err
	}
	_, w, err := run(ctx, In{Trace: c.in.Trace, Jobs: c.in.Jobs, Profile: prof},
		Options{From: m.from - c.o.WarmupSec, To: m.to, Zone: c.o.Zone, AllowSkip: c.o.AllowSkip})
	if err != nil {
		return poolWaits{}, fmt.Errorf("calibrate: %s, %s: %w", cand, m.name, err)
	}
	var out poolWaits
	for i, at := range w.submit { // the month's jobs: not the warm-up's
		if at >= m.from && at < m.to {
			out.actual = append(out.actual, w.actual[i])
			out.simulated = append(out.simulated, w.simulated[i])
		}
	}
	return out, nil
}

// replayMonthChains replays the chains whose head is in month m under
// candidate cand, on the trace from o.WarmupSec before the month.
func (c *calibrator) replayMonthChains(ctx context.Context, cand Candidate, m month) (analyze.ChainReplay, error) {
	prof, err := apply(c.in.Profile, cand, c.in.Jobs)
	if err != nil {
		return analyze.ChainReplay{}, err
	}
	r, err := c.chains.Replay(ctx, c.in.Jobs, prof, analyze.ChainWindow{From: m.from, To: m.to, BackgroundFrom: m.from - c.o.WarmupSec,
		MaxChains: monthChains, MaxLinks: monthLinks})
	if err != nil {
		return r, fmt.Errorf("calibrate: chains: %s, %s: %w", cand, m.name, err)
	}
	return r, nil
}
