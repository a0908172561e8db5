package analyze

import (
	"context"
	"fmt"
	"slices"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// ChainReplay is the trace's own service chains replayed reactively in
// the simulator: what their replayed links really lost to interruption
// and what the simulator gives when each successor is submitted at its
// predecessor's simulated end (hours).
type ChainReplay struct {
	Chains    int     `json:"replayed_chains"`
	Links     int64   `json:"replayed_links"`
	RealH     float64 `json:"real_interruption_h"`
	ReactiveH float64 `json:"simulated_reactive_interruption_h"`
}

// ReplayChains detects the service chains of tjobs (o.Chains) whose head
// was submitted in [from, to) (Unix seconds; 0 leaves a side open) and
// replays their successors reactively under prof, as Run's chain replay
// does (the first o.Replay.MaxChains chains, at most o.Replay.MaxLinks
// links), on prof's partition with its own inferences and no oracle: the
// check a calibration scores a profile by.
func ReplayChains(ctx context.Context, tjobs []trace.Job, prof sim.Profile, from, to int64, o Options) (ChainReplay, error) {
	o.Replay.Sim, o.Nodes = &prof, 0
	if err := o.normalise(); err != nil {
		return ChainReplay{}, fmt.Errorf("replay chains: %w", err)
	}
	o.Replay.noOracle = true
	det := newDetector(o.Chains)
	for i := range tjobs {
		det.add(&tjobs[i], int64(i), userKey(&tjobs[i]))
	}
	var chains []*chain
	for _, c := range det.chains {
		s := c.jobs[0].submit
		if (from == 0 || s >= from) && (to == 0 || s < to) {
			chains = append(chains, c)
		}
	}
	// The profile as given: its partition size, its capacity inference
	// when it has one (analyze's own replay infers capacity always).
	cfg := prof.Config
	if prof.InferCapacity != nil {
		all, _, err := sim.FromTrace(tjobs, sim.FromTraceOptions{})
		if err != nil {
			return ChainReplay{}, fmt.Errorf("replay chains: %w", err)
		}
		cfg.Capacity = sim.InferCapacity(all, prof.CapacityOptions(cfg.Nodes))
	}
	res := &replayResult{links: map[int32][]linkSim{}}
	if err := replayChains(ctx, &o, cfg, tjobs, chains, res); err != nil {
		return ChainReplay{}, err
	}
	out := ChainReplay{Chains: res.chains}
	ids := make([]int32, 0, len(res.links))
	for ci := range res.links {
		ids = append(ids, ci)
	}
	slices.Sort(ids) // sums in one order: the same bytes every run
	for _, ci := range ids {
		ls, c := res.links[ci], chains[ci]
		for k, l := range ls {
			if !l.replayed {
				continue
			}
			out.Links++
			out.RealH += hours(max(c.jobs[k+1].start-c.jobs[k].end, 0))
			out.ReactiveH += hours(max(l.reactiveR, 0))
		}
	}
	return out, nil
}
