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
// check a calibration scores a profile by. It is DetectChains followed
// by Chains.Replay on the whole trace's background.
func ReplayChains(ctx context.Context, tjobs []trace.Job, prof sim.Profile, from, to int64, o Options) (ChainReplay, error) {
	cs, err := DetectChains(tjobs, o)
	if err != nil {
		return ChainReplay{}, err
	}
	return cs.Replay(ctx, tjobs, prof, ChainWindow{From: from, To: to})
}

// Chains are a trace's service chains as analyze's detector finds them,
// detected once (DetectChains) to be replayed under many profiles
// (Replay): a calibration's candidates share one detection.
type Chains struct {
	chains []*chain
	o      Options
}

// DetectChains detects the service chains of tjobs (o.Chains, in file
// order); o.Replay bounds the later replays.
func DetectChains(tjobs []trace.Job, o Options) (*Chains, error) {
	if err := o.normalise(); err != nil {
		return nil, fmt.Errorf("detect chains: %w", err)
	}
	det := newDetector(o.Chains)
	for i := range tjobs {
		det.add(&tjobs[i], int64(i), userKey(&tjobs[i]))
	}
	return &Chains{chains: det.chains, o: o}, nil
}

// Len is the number of chains detected.
func (cs *Chains) Len() int { return len(cs.chains) }

// ChainWindow selects what a chain replay takes (Unix seconds; 0 leaves
// a side open).
type ChainWindow struct {
	// From and To bound the heads' submissions: the chains replayed.
	From, To int64
	// BackgroundFrom leaves the jobs submitted before it out of the
	// background load (a warm-up before From, so that a month's replay
	// need not simulate the trace from its start); 0 keeps them all.
	BackgroundFrom int64
	// MaxChains and MaxLinks bound the replay (the first chains by head
	// submission); 0 takes DetectChains' o.Replay bounds.
	MaxChains, MaxLinks int
}

// Replay replays the chains whose head was submitted in [w.From, w.To)
// reactively under prof on tjobs (the trace they were detected on, in
// the same order): see ReplayChains.
func (cs *Chains) Replay(ctx context.Context, tjobs []trace.Job, prof sim.Profile, w ChainWindow) (ChainReplay, error) {
	o := cs.o
	o.Replay.Sim, o.Nodes = &prof, 0
	if w.MaxChains > 0 {
		o.Replay.MaxChains = w.MaxChains
	}
	if w.MaxLinks > 0 {
		o.Replay.MaxLinks = w.MaxLinks
	}
	if err := o.normalise(); err != nil {
		return ChainReplay{}, fmt.Errorf("replay chains: %w", err)
	}
	o.Replay.noOracle = true
	var chains []*chain
	for _, c := range cs.chains {
		s := c.jobs[0].submit
		if (w.From == 0 || s >= w.From) && (w.To == 0 || s < w.To) {
			chains = append(chains, c)
		}
	}
	if len(chains) == 0 {
		return ChainReplay{}, nil
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
	if err := replayChains(ctx, &o, cfg, tjobs, chains, w.BackgroundFrom, res); err != nil {
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
