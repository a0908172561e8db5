package features

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// ErrUnknownProtocol is returned by LookupProtocol for a name it does not
// know.
var ErrUnknownProtocol = errors.New("unknown features protocol")

// Protocol is a named sample-generation protocol: which windows, which
// simulator and how the trace becomes simulator jobs.
type Protocol struct {
	Name string `json:"name"`
	// Profile names the simulator profile: a built-in one (sim.LoadProfile)
	// unless ProfileSpec holds the profile itself (SetProfile). Nodes,
	// when > 0, overrides its partition size.
	Profile     string       `json:"profile"`
	ProfileSpec *sim.Profile `json:"profile_spec,omitempty"`
	Nodes       int          `json:"nodes"`
	// Partition names the profile's partition the chains run in
	// (sim.Partition): only its jobs are simulated, on its nodes unless
	// Nodes overrides them. "" is the profile's default partition: every
	// job for a profile without partitions.
	Partition string `json:"partition,omitempty"`
	// Mode is "cold" or "warm" (sim.ParseWindowMode).
	Mode string `json:"mode"`
	// Start is the first window's start, "2006-01-02T15:04:05" in TZ.
	Start string `json:"start"`
	TZ    string `json:"tz"`
	// Windows per chain size, every Interval.
	Windows  int           `json:"windows"`
	Interval time.Duration `json:"interval"`
	Warmup   time.Duration `json:"warmup"`
	Workload time.Duration `json:"workload"`
	Probes   int           `json:"probes"`
	// Grid, when set, labels the decision grid (GridOptions) instead of
	// Probes evenly spaced probes.
	Grid *GridOptions `json:"grid,omitempty"`
	// ChainNodes are the chain sizes.
	ChainNodes []int `json:"chain_nodes"`
	// ChainLimit is the time limit of the chain's jobs P and Q (their
	// run time too: a service runs until its limit); 0 means 48 h
	// (Options.ChainLimitSec's default).
	ChainLimit time.Duration `json:"chain_limit,omitempty"`
	// QTimeMin is Q's --time-min (Options.QTimeMinSec); 0 is none (and
	// leaves the protocol's JSON as it was).
	QTimeMin time.Duration `json:"q_time_min,omitempty"`
	// InferDeps runs sim.FromTrace with the profile's dependency inference
	// (sim.Profile.DependencyOptions); InferCapacity sets the
	// configuration's capacity timeline to sim.InferCapacity with the
	// profile's capacity inference (sim.Profile.CapacityOptions) and the
	// partition size.
	InferDeps     bool `json:"infer_deps"`
	InferCapacity bool `json:"infer_capacity"`
	// Wide adds the wide columns (WideNames: what predicts long waits
	// for a job of Q's shape) to the samples Run builds (Options.Wide;
	// features build --wide). Off by default, and then not written, so that a
	// protocol without it records as before.
	Wide bool `json:"wide,omitempty"`
}

// ProtocolNames lists LookupProtocol's names.
var ProtocolNames = []string{"mirage-ls6", "mirage-ls6-val", "ls6", "ls6-val"}

// LookupProtocol returns a preset:
//
//   - mirage-ls6: the Mirage artifact's LS6 training set: 684 windows
//     every 4 h from 2022-11-01T00:00 America/Chicago, 2 days of warm-up,
//     5 days of workload, 7 probes, chains of 1 and 8 nodes, cold
//     windows, 88 nodes, the mirage-compat simulator;
//   - mirage-ls6-val: its validation set, 156 windows from 2023-03-01;
//   - ls6 and ls6-val: the same windows, warm, with the ls6 simulator
//     profile and its inferences (dependencies and capacity: the realistic
//     protocol) and its partition size, labelled on the decision grid
//     (GridOptions' defaults: every 10 minutes in the last 24 h before P's
//     expected end, hourly before).
func LookupProtocol(name string) (Protocol, error) {
	p := Protocol{
		Name: name, Profile: "mirage-compat", Nodes: 88, Mode: "cold",
		Start: "2022-11-01T00:00:00", TZ: "America/Chicago", Windows: 684,
		Interval: 4 * time.Hour, Warmup: 48 * time.Hour, Workload: 120 * time.Hour,
		Probes: 7, ChainNodes: []int{1, 8},
	}
	switch name {
	case "mirage-ls6":
	case "mirage-ls6-val":
		p.Start, p.Windows = "2023-03-01T00:00:00", 156
	case "ls6", "ls6-val":
		prof, err := sim.BuiltinProfile("ls6")
		if err != nil {
			return Protocol{}, err
		}
		p.SetProfile(prof)
		p.Nodes, p.Mode = 0, "warm"
		g := GridOptions{}.WithDefaults()
		p.Grid = &g
		if name == "ls6-val" {
			p.Start, p.Windows = "2023-03-01T00:00:00", 156
		}
	default:
		return Protocol{}, fmt.Errorf("%w %q: want one of %v", ErrUnknownProtocol, name, ProtocolNames)
	}
	return p, nil
}

// SetProfile makes prof the protocol's simulator profile, with its
// dependency and capacity inference on exactly when prof has them (a
// caller may turn them off after). A profile whose settings are a
// built-in one's is recorded by that name alone, so that a copy of a
// built-in profile file gives the built-in's protocol (and its JSON);
// any other by its name and, in ProfileSpec, its settings, so that the
// protocol's record holds what it simulated.
func (p *Protocol) SetProfile(prof sim.Profile) {
	p.Profile, p.ProfileSpec = prof.Name, nil
	if name := prof.BuiltinName(); name != "" {
		p.Profile = name
	} else {
		p.ProfileSpec = &prof
	}
	p.InferDeps, p.InferCapacity = prof.InferDependencies != nil, prof.InferCapacity != nil
}

// SimProfile returns the protocol's simulator profile: ProfileSpec, or
// the profile Profile names (sim.LoadProfile).
func (p Protocol) SimProfile() (sim.Profile, error) {
	if p.ProfileSpec != nil {
		return *p.ProfileSpec, nil
	}
	return sim.LoadProfile(p.Profile)
}

// Prepare converts a trace under the protocol and returns the simulator
// jobs and Build's options (Workers, Progress and Logger left to the
// caller; Wide too: Run sets it from p.Wide, while evaluate's timelines
// compute the base columns and add the wide ones per model).
func (p Protocol) Prepare(tjobs []trace.Job) ([]sim.Job, Options, error) {
	prof, err := p.SimProfile()
	if err != nil {
		return nil, Options{}, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	cfg := prof.Config
	if tjobs, cfg.Nodes, err = p.partitionJobs(prof, tjobs); err != nil {
		return nil, Options{}, err
	}
	mode, err := sim.ParseWindowMode(p.Mode)
	if err != nil {
		return nil, Options{}, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	loc, err := time.LoadLocation(p.TZ)
	if err != nil {
		return nil, Options{}, fmt.Errorf("%w: zone: %w", ErrOptions, err)
	}
	start, err := time.ParseInLocation("2006-01-02T15:04:05", p.Start, loc)
	if err != nil {
		return nil, Options{}, fmt.Errorf("%w: start: %w", ErrOptions, err)
	}
	fto := sim.FromTraceOptions{MaxNodes: cfg.Nodes}
	if p.InferDeps {
		fto.Infer = prof.DependencyOptions()
		fto.Infer.Nodes = cfg.Nodes
	}
	jobs, _, err := sim.FromTrace(tjobs, fto)
	if err != nil {
		return nil, Options{}, err
	}
	sim.PredictRunTimes(jobs, sim.RunTimeHistory{})
	if p.InferCapacity {
		cfg.Capacity = sim.InferCapacity(jobs, prof.CapacityOptions(cfg.Nodes))
	}
	o := Options{
		Config: cfg, Mode: mode, Start: start.Unix(),
		IntervalSec: int64(p.Interval / time.Second), Windows: p.Windows,
		WarmupSec: int64(p.Warmup / time.Second), WorkloadSec: int64(p.Workload / time.Second),
		Probes: p.Probes, ChainNodes: p.ChainNodes, Location: loc,
		ChainLimitSec: int64(p.ChainLimit / time.Second),
		QTimeMinSec:   int64(p.QTimeMin / time.Second),
	}
	if p.Grid != nil {
		g := *p.Grid
		o.Grid = &g
	}
	return jobs, o, nil
}

// partitionJobs returns the jobs of the protocol's partition of prof and
// the partition's size (p.Nodes when set): every job and the profile's
// size for a profile without partitions. A partition the profile does
// not have is an error wrapping ErrOptions.
func (p Protocol) partitionJobs(prof sim.Profile, tjobs []trace.Job) ([]trace.Job, int, error) {
	nodes := prof.Config.Nodes
	if len(prof.Partitions) > 0 || p.Partition != "" {
		pj, ok := prof.PartitionOf(tjobs, p.Partition)
		if !ok {
			return nil, 0, fmt.Errorf("%w: partition %q: %s", ErrOptions, p.Partition, noPartition(prof))
		}
		tjobs, nodes = pj.Jobs(tjobs), pj.Partition.Nodes
	}
	if p.Nodes > 0 {
		nodes = p.Nodes
	}
	return tjobs, nodes, nil
}

// noPartition says which partitions prof has, for a partition it lacks.
func noPartition(prof sim.Profile) string {
	if len(prof.Partitions) == 0 {
		return fmt.Sprintf("no job of the trace runs in it (profile %s lists no partitions: a partition is then a trace partition name)", prof.Name)
	}
	var names []string
	for _, part := range prof.Partitions {
		names = append(names, part.Name)
	}
	return fmt.Sprintf("profile %s has none of that name (its partitions: %s; %s: the jobs of no other)", prof.Name, strings.Join(names, ", "), sim.DefaultPartition)
}

// PartitionJobs returns the jobs of tjobs the protocol simulates, as
// Prepare selects them before converting: the protocol's partition's
// (sim.Profile.PartitionOf) when the profile has partitions or the
// protocol names one, every job otherwise. An error wraps ErrOptions.
func (p Protocol) PartitionJobs(tjobs []trace.Job) ([]trace.Job, error) {
	prof, err := p.SimProfile()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	tjobs, _, err = p.partitionJobs(prof, tjobs)
	return tjobs, err
}
