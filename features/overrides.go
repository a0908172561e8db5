package features

import (
	"fmt"
	"strconv"
	"time"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// Overrides are the changes a caller makes to a protocol's preset (the
// command line's flags, a study's period): a zero field keeps the
// protocol's value.
type Overrides struct {
	// Profile, when not nil, replaces the protocol's simulator profile
	// (Protocol.SetProfile: its inferences follow the profile).
	Profile *sim.Profile
	// Start is the first window's start, "2006-01-02T15:04:05" in the
	// protocol's zone.
	Start string
	// Windows per chain size, every Interval.
	Windows  int
	Interval time.Duration
	// Probes is "grid" (label the decision grid) or a count of evenly
	// spaced probes ("" keeps the protocol's).
	Probes string
	// GridDense and GridSparse set the grid's spans (GridOptions'
	// DenseSec and SparseSec); they need a grid.
	GridDense, GridSparse time.Duration
	// Mode is "cold" or "warm".
	Mode string
	// PartitionNodes sizes the simulated partition (Protocol.Nodes).
	PartitionNodes int
	// ChainNodes are the chain sizes.
	ChainNodes []int
	// ChainLimit is the chain's jobs' time limit (Protocol.ChainLimit),
	// a whole number of seconds.
	ChainLimit time.Duration
	// QTimeMin is Q's --time-min (Protocol.QTimeMin), a whole number of
	// seconds; 0 keeps the protocol's.
	QTimeMin time.Duration
}

// Apply returns p with the overrides o. A bad override is an error
// wrapping ErrOptions that names the flag that sets it.
func (o Overrides) Apply(p Protocol) (Protocol, error) {
	bad := func(format string, args ...any) (Protocol, error) {
		return p, fmt.Errorf("%w: %s", ErrOptions, fmt.Sprintf(format, args...))
	}
	switch {
	case o.Windows < 0:
		return bad("--windows %d: want a window count >= 1 (0 = the protocol's %d)", o.Windows, p.Windows)
	case o.Interval < 0:
		return bad("--interval %s: want a duration > 0 (0 = the protocol's)", o.Interval)
	case o.PartitionNodes < 0:
		return bad("--partition-nodes %d: want a node count >= 1 (0 = the protocol's)", o.PartitionNodes)
	}
	if o.Profile != nil {
		p.SetProfile(*o.Profile)
	}
	if o.Start != "" {
		p.Start = o.Start
	}
	if o.Windows > 0 {
		p.Windows = o.Windows
	}
	if o.Interval > 0 {
		p.Interval = o.Interval
	}
	switch o.Probes {
	case "":
	case "grid":
		p.Grid = &GridOptions{}
	default:
		n, err := strconv.Atoi(o.Probes)
		if err != nil || n < 1 {
			return bad("--probes %q: want grid or a positive count", o.Probes)
		}
		p.Probes, p.Grid = n, nil
	}
	if o.GridDense < 0 || o.GridSparse < 0 {
		return bad("--grid-dense %s, --grid-sparse %s: want durations > 0", o.GridDense, o.GridSparse)
	}
	if o.GridDense > 0 || o.GridSparse > 0 {
		if p.Grid == nil {
			return bad("--grid-dense and --grid-sparse need --probes grid (protocol %s uses %d evenly spaced probes)", p.Name, p.Probes)
		}
		g := *p.Grid
		if o.GridDense > 0 {
			g.DenseSec = int64(o.GridDense / time.Second)
		}
		if o.GridSparse > 0 {
			g.SparseSec = int64(o.GridSparse / time.Second)
		}
		p.Grid = &g
	}
	if p.Grid != nil {
		g := p.Grid.WithDefaults()
		p.Grid = &g
	}
	if o.Mode != "" {
		p.Mode = o.Mode
	}
	if o.PartitionNodes > 0 {
		p.Nodes = o.PartitionNodes
	}
	for _, n := range o.ChainNodes {
		if n < 1 {
			return bad("--chain-nodes %v: want positive integers", o.ChainNodes)
		}
	}
	if o.ChainLimit < 0 || o.ChainLimit%time.Second != 0 {
		return bad("--chain-limit %s: want a positive whole number of seconds", o.ChainLimit)
	}
	if o.ChainLimit > 0 {
		p.ChainLimit = o.ChainLimit
	}
	if o.QTimeMin < 0 || o.QTimeMin%time.Second != 0 {
		return bad("--q-time-min %s: want a positive whole number of seconds", o.QTimeMin)
	}
	if o.QTimeMin > 0 {
		p.QTimeMin = o.QTimeMin
	}
	if len(o.ChainNodes) > 0 {
		p.ChainNodes = append([]int(nil), o.ChainNodes...)
	}
	return p, nil
}

// PartitionNodes returns the size of the protocol's simulated partition:
// Nodes, or its profile's (for a profile with partitions, the protocol's
// partition's, which may be sized from the trace: Fit). A profile that
// does not load is an error wrapping ErrOptions.
func (p Protocol) PartitionNodes() (int, error) {
	if p.Nodes > 0 {
		return p.Nodes, nil
	}
	prof, err := p.SimProfile()
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	return prof.Config.Nodes, nil
}

// Fit returns how the trace's jobs of the protocol's partition fit it
// over the whole trace (sim.CheckFit); its Check judges it.
func (p Protocol) Fit(tjobs []trace.Job) (sim.Fit, error) {
	prof, err := p.SimProfile()
	if err != nil {
		return sim.Fit{}, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	jobs, nodes, err := p.partitionJobs(prof, tjobs)
	if err != nil {
		return sim.Fit{}, err
	}
	return sim.CheckFit(jobs, nodes, 0, 0), nil
}

// ReplayProfile returns the simulator profile as the protocol simulates
// a trace: its profile with the protocol's partition size (Nodes, when
// set) and its inferences on exactly when InferDeps and InferCapacity
// say, for a whole-trace replay (the simulator's fidelity) under the
// protocol's settings.
func (p Protocol) ReplayProfile() (sim.Profile, error) {
	prof, err := p.SimProfile()
	if err != nil {
		return prof, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	if p.Nodes > 0 {
		prof.Config.Nodes, prof.NodesFromTrace = p.Nodes, false
	}
	if !p.InferDeps {
		prof.InferDependencies = nil
	} else if prof.InferDependencies == nil {
		prof.InferDependencies = prof.DependencyOptions()
	}
	if !p.InferCapacity {
		prof.InferCapacity = nil
	} else if prof.InferCapacity == nil {
		co := prof.CapacityOptions(0)
		prof.InferCapacity = &co
	}
	return prof, nil
}
