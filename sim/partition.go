package sim

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/mirage-hpc/mirage/trace"
)

// A Partition is one of a cluster's partitions: a pool of nodes that
// only its own jobs use, so that a replay simulates each partition on
// its own (Profile.Split). Fair-share usage is then per partition too,
// where Slurm sums it over the cluster: the approximation the split
// makes.
type Partition struct {
	// Name names the partition in results and in a study's
	// chains.partition.
	Name string `yaml:"name" json:"name"`
	// Match are the trace's partition names (sacct's Partition, an SWF
	// partition number) whose jobs run in it; empty means Name alone.
	Match []string `yaml:"match,omitempty" json:"match,omitempty"`
	// Nodes is the partition's size; 0 sizes it from the trace: the
	// most nodes its jobs held at once, never fewer than its widest job
	// (Split).
	Nodes int `yaml:"nodes,omitempty" json:"nodes,omitempty"`
	// MaxTimeSec is the partition's maximum time limit (Slurm's
	// MaxTime, seconds); 0 means unknown. A chain's limit above it is
	// refused.
	MaxTimeSec int64 `yaml:"max_time_sec,omitempty" json:"max_time_sec,omitempty"`
}

// DefaultPartition names the partition of the jobs whose trace
// partition no Partition of the profile matches; it has the profile's
// Config.Nodes.
const DefaultPartition = "default"

// matches returns the trace partition names of p.
func (p Partition) matches() []string {
	if len(p.Match) == 0 {
		return []string{p.Name}
	}
	return p.Match
}

// PartitionJobs are the jobs of one partition of a trace (Profile.Split).
type PartitionJobs struct {
	// Partition is the profile's, or DefaultPartition's with the
	// profile's Config.Nodes; Nodes is set (inferred when the profile's
	// is 0).
	Partition Partition
	// Index are the jobs' indices in the trace, in trace order.
	Index []int
	// NodesInferred says that Nodes came from the trace.
	NodesInferred bool
}

// Jobs returns the partition's jobs of tjobs, in trace order.
func (pj PartitionJobs) Jobs(tjobs []trace.Job) []trace.Job {
	out := make([]trace.Job, len(pj.Index))
	for k, i := range pj.Index {
		out[k] = tjobs[i]
	}
	return out
}

// Split returns the trace's jobs by the profile's partitions, in the
// profile's order, then DefaultPartition for every job no partition
// matches (only when there is one, or when the profile has no
// partitions: then it holds every job, and a replay is the one-pool
// replay of before). A partition with no jobs is kept (its results are
// empty).
func (p Profile) Split(tjobs []trace.Job) []PartitionJobs {
	if len(p.Partitions) == 0 {
		idx := make([]int, len(tjobs))
		for i := range idx {
			idx[i] = i
		}
		return []PartitionJobs{{Partition: Partition{Name: DefaultPartition, Nodes: p.Config.Nodes}, Index: idx}}
	}
	of := map[string]int{}
	for k, part := range p.Partitions {
		for _, m := range part.matches() {
			of[m] = k
		}
	}
	out := make([]PartitionJobs, len(p.Partitions)+1)
	for k, part := range p.Partitions {
		out[k].Partition = part
	}
	out[len(p.Partitions)].Partition = Partition{Name: DefaultPartition, Nodes: p.Config.Nodes}
	for i := range tjobs {
		k, ok := of[tjobs[i].Partition]
		if !ok {
			k = len(p.Partitions)
		}
		out[k].Index = append(out[k].Index, i)
	}
	if len(out[len(p.Partitions)].Index) == 0 {
		out = out[:len(p.Partitions)]
	}
	for k := range out {
		if out[k].Partition.Nodes == 0 {
			out[k].Partition.Nodes = max(1, PeakBusy(tjobs, out[k].Index))
			out[k].NodesInferred = true
		}
	}
	return out
}

// FindPartition returns the partition named name of the split ("" or
// DefaultPartition: the default one) and whether there is one.
func FindPartition(parts []PartitionJobs, name string) (PartitionJobs, bool) {
	if name == "" {
		name = DefaultPartition
	}
	for _, pj := range parts {
		if pj.Partition.Name == name {
			return pj, true
		}
	}
	return PartitionJobs{}, false
}

// PeakBusy returns the most nodes the jobs idx of tjobs held at once
// (from their recorded starts and ends; ends before starts at the same
// instant), and never less than the widest of them.
func PeakBusy(tjobs []trace.Job, idx []int) int {
	type change struct{ at, nodes int64 }
	var changes []change
	widest := 0
	for _, i := range idx {
		j := &tjobs[i]
		widest = max(widest, int(j.NNodes))
		if !j.StartUnknown && !j.Start.IsZero() && !j.End.IsZero() && j.End.After(j.Start) {
			changes = append(changes, change{j.Start.Unix(), int64(j.NNodes)}, change{j.End.Unix(), -int64(j.NNodes)})
		}
	}
	slices.SortFunc(changes, func(a, b change) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.nodes, b.nodes)) })
	var busy, peak int64
	for _, c := range changes {
		busy += c.nodes
		peak = max(peak, busy)
	}
	return max(int(peak), widest)
}

// validatePartitions checks the profile's partitions: names unique and
// not DefaultPartition, each trace partition name in one of them, sizes
// and times >= 0.
func (p *Profile) validatePartitions() error {
	names, matched := map[string]bool{}, map[string]string{}
	for i, part := range p.Partitions {
		path := fmt.Sprintf("partitions.%d", i)
		switch {
		case part.Name == "" || part.Name == DefaultPartition:
			return fmt.Errorf("%w: %w", ErrProfile, &fieldError{path: path + ".name", msg: fmt.Sprintf("%q: want a name other than %q", part.Name, DefaultPartition)})
		case names[part.Name]:
			return fmt.Errorf("%w: %w", ErrProfile, &fieldError{path: path + ".name", msg: fmt.Sprintf("%q: named twice", part.Name)})
		case part.Nodes < 0:
			return fmt.Errorf("%w: %w", ErrProfile, &fieldError{path: path + ".nodes", msg: fmt.Sprintf("%d: want >= 0 (0 = from the trace)", part.Nodes)})
		case part.MaxTimeSec < 0:
			return fmt.Errorf("%w: %w", ErrProfile, &fieldError{path: path + ".max_time_sec", msg: fmt.Sprintf("%d: want >= 0 (0 = unknown)", part.MaxTimeSec)})
		}
		names[part.Name] = true
		for _, m := range part.matches() {
			if other, ok := matched[m]; ok {
				return fmt.Errorf("%w: %w", ErrProfile, &fieldError{path: path + ".match", msg: fmt.Sprintf("%q is also partition %s's: a trace partition belongs to one", m, other)})
			}
			matched[m] = part.Name
		}
	}
	return nil
}

// PartitionOf returns the jobs of the partition named name (""
// is DefaultPartition) as the profile simulates them: one of its
// partitions (Split), or, for a profile without partitions, every job
// for the default partition and, for another name, the jobs whose trace
// partition is name, on a pool sized from the trace (their most nodes
// busy at once). It reports false for a name the profile's partitions
// lack, or that no job of the trace has.
func (p Profile) PartitionOf(tjobs []trace.Job, name string) (PartitionJobs, bool) {
	if len(p.Partitions) > 0 {
		return FindPartition(p.Split(tjobs), name)
	}
	if name == "" || name == DefaultPartition {
		return p.Split(tjobs)[0], true
	}
	pj := PartitionJobs{Partition: Partition{Name: name}, NodesInferred: true}
	for i := range tjobs {
		if tjobs[i].Partition == name {
			pj.Index = append(pj.Index, i)
		}
	}
	if len(pj.Index) == 0 {
		return pj, false
	}
	pj.Partition.Nodes = max(1, PeakBusy(tjobs, pj.Index))
	return pj, true
}
