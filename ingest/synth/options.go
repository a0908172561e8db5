package synth

import (
	"errors"
	"fmt"
	"time"

	// The default zone must load on machines without a zoneinfo database,
	// so that DefaultOptions never fails.
	_ "time/tzdata"
)

// Defaults used by DefaultOptions and for zero fields of Options.
const (
	// DefaultJobs is about the size of the real LS6 A100 trace (24,777 jobs).
	DefaultJobs = 25000
	// DefaultNodes is the node count the Mirage artifact simulates.
	DefaultNodes = 88
	// DefaultUtilisation is the target share of busy node-seconds.
	DefaultUtilisation = 0.7
	// DefaultCluster is the Cluster column of the generated rows.
	DefaultCluster = "synth"
	// DefaultZone is the zone of printed local times (TACC, Austin).
	DefaultZone = "America/Chicago"
)

// Partition and node shape of the synthetic cluster (LS6 gpu-a100).
const (
	// Partition is the Partition column of every generated job.
	Partition = "gpu-a100"
	// QOS is the QOS column of every generated job.
	QOS = "normal"
	// CoresPerNode is the number of CPUs of a node; jobs get whole nodes.
	CoresPerNode = 128
	// GPUsPerNode is the number of GPUs (gres/gpu) of a node.
	GPUsPerNode = 3
	// NodeMemMB is the memory of a node in MiB (printed as 250G).
	NodeMemMB = 256000
	// Users is the size of the synthetic user population.
	Users = 300
)

// ErrInvalidOptions is returned (wrapped) by the writers for options they
// cannot honour, such as a negative job count.
var ErrInvalidOptions = errors.New("invalid synth options")

// Options configures the generator. Zero fields, except Jobs, Seed and
// Steps, take the value DefaultOptions gives them.
type Options struct {
	// Jobs is the number of jobs (allocation rows) to generate; 0 writes
	// only the header. Array tasks count one job each.
	Jobs int
	// Seed selects the random stream; equal Options give byte-identical
	// output.
	Seed uint64
	// Nodes is the size of the whole-node GPU partition (CoresPerNode
	// CPUs and GPUsPerNode GPUs each). Node counts of jobs are capped at it.
	Nodes int
	// Start is the Submit time of the first job, truncated to the second;
	// the zero Time means 2022-11-01T00:00:00 in Location.
	Start time.Time
	// Utilisation is the target share of node-seconds that jobs keep
	// busy, in (0, 4]; values of 1 or more overload the partition, and the
	// queue then grows without bound.
	Utilisation float64
	// Location is the zone of printed local times and of the diurnal and
	// weekly arrival cycle; nil means America/Chicago.
	Location *time.Location
	// Cluster is the Cluster column; "" means DefaultCluster.
	Cluster string
	// Steps makes WriteSacct emit N.batch and N.extern step rows after
	// every job that started, as sacct does without -X.
	Steps bool
}

// DefaultOptions returns the options of the built-in synthetic trace:
// DefaultJobs jobs, seed 1, DefaultNodes nodes, first submit
// 2022-11-01T00:00:00 America/Chicago, utilisation 0.7, no step rows.
func DefaultOptions() Options {
	loc := defaultLocation()
	return Options{
		Jobs:        DefaultJobs,
		Seed:        1,
		Nodes:       DefaultNodes,
		Start:       time.Date(2022, 11, 1, 0, 0, 0, 0, loc),
		Utilisation: DefaultUtilisation,
		Location:    loc,
		Cluster:     DefaultCluster,
	}
}

func defaultLocation() *time.Location {
	loc, err := time.LoadLocation(DefaultZone)
	if err != nil {
		// Unreachable: time/tzdata is linked in.
		panic("synth: load " + DefaultZone + ": " + err.Error())
	}
	return loc
}

// resolve fills zero fields with defaults and checks the result.
func (o Options) resolve() (Options, error) {
	d := DefaultOptions()
	if o.Location == nil {
		o.Location = d.Location
	}
	if o.Nodes == 0 {
		o.Nodes = d.Nodes
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2022, 11, 1, 0, 0, 0, 0, o.Location)
	}
	o.Start = o.Start.Truncate(time.Second)
	if o.Utilisation == 0 {
		o.Utilisation = d.Utilisation
	}
	if o.Cluster == "" {
		o.Cluster = d.Cluster
	}
	switch {
	case o.Jobs < 0:
		return o, fmt.Errorf("%w: Jobs %d is negative", ErrInvalidOptions, o.Jobs)
	case o.Nodes < 0 || o.Nodes > 1<<20:
		return o, fmt.Errorf("%w: Nodes %d is outside 1..%d", ErrInvalidOptions, o.Nodes, 1<<20)
	case !(o.Utilisation > 0 && o.Utilisation <= 4):
		return o, fmt.Errorf("%w: Utilisation %g is outside (0, 4]", ErrInvalidOptions, o.Utilisation)
	case o.Start.Year() < 1971 || o.Start.Year() > 9000:
		return o, fmt.Errorf("%w: Start %s is out of range", ErrInvalidOptions, o.Start)
	}
	for i := 0; i < len(o.Cluster); i++ {
		if c := o.Cluster[i]; c <= ' ' || c == '|' || c >= 0x7f {
			return o, fmt.Errorf("%w: Cluster %q has a space, '|' or control character", ErrInvalidOptions, o.Cluster)
		}
	}
	return o, nil
}
