package pipelines

import (
	"fmt"
	"strings"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// partitionNodes returns the study's simulated partition size: its
// cluster.nodes, or its profile's.
func (s *Study) partitionNodes() (int, error) {
	if s.Cluster.Nodes > 0 {
		return s.Cluster.Nodes, nil
	}
	prof, err := s.SimProfile()
	if err != nil {
		return 0, err
	}
	return prof.Config.Nodes, nil
}

// CheckFit checks, before any stage, that the study can give meaningful
// figures for the trace's jobs. It returns an error wrapping ErrStudy,
// naming the setting that fixes it, when the jobs wider than the
// partition are more than sim.MaxSkipShare of the jobs or node-hours
// (unless cluster.allow_skip), when the jobs ask far more node-hours
// than the partition offers (sim.Fit.Overloaded: a partition-size or
// run-time error), and when the windows are warm or infer
// dependencies or capacity while no job has a recorded start (an SWF
// trace whose waits are all -1): warm windows and the inferences read
// the trace's real starts.
func (s *Study) CheckFit(jobs []trace.Job) error {
	p, _, err := s.Protocols()
	if err != nil {
		return err
	}
	prof, err := p.SimProfile()
	if err != nil {
		return err
	}
	part, err := s.partition(prof, jobs)
	if err != nil {
		return err
	}
	if err := s.checkChainLimit(part.Jobs(jobs), part.Partition.MaxTimeSec); err != nil {
		return err
	}
	f, err := p.Fit(jobs)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStudy, err)
	}
	if f.TooWide() && !s.Cluster.AllowSkip {
		return traceFit(fmt.Errorf("%w: %s in the study file (or delete it and rerun make run NODES=%d), or set cluster.allow_skip: true to run without them",
			ErrStudy, f.WideMessage("cluster.nodes:"), max(int(f.Widest), f.PeakBusy)))
	}
	if f.Overloaded() {
		return traceFit(fmt.Errorf("%w: %s; cluster.nodes is in the study file (or delete it and rerun make run NODES=N)", ErrStudy, f.OverloadMessage("cluster.nodes:")))
	}
	if f.KnownWaits == 0 && f.StartUnknown > 0 &&
		(s.Periods.Mode == "warm" || s.Cluster.InferDependencies || s.Cluster.InferCapacity) {
		return traceFit(fmt.Errorf("%w: %s: set periods.mode: cold, cluster.infer_dependencies: false and cluster.infer_capacity: false (they read the trace's real starts)",
			ErrStudy, noStartsText(f, s.Chains.Partition)))
	}
	return nil
}

// partition returns the study's chains.partition of the trace's jobs
// under prof (every job for a profile without partitions); a partition
// the profile lacks is an error wrapping ErrStudy naming the field.
func (s *Study) partition(prof sim.Profile, jobs []trace.Job) (sim.PartitionJobs, error) {
	pj, ok := prof.PartitionOf(jobs, s.Chains.Partition)
	if !ok {
		if len(prof.Partitions) == 0 {
			return pj, traceFit(fmt.Errorf("%w: chains.partition %q: no job of the trace runs in it (the profile %s lists no partitions: a partition is then a trace partition name)",
				ErrStudy, s.Chains.Partition, prof.Name))
		}
		var names []string
		for _, part := range prof.Partitions {
			names = append(names, part.Name)
		}
		return pj, fmt.Errorf("%w: chains.partition %q: the profile %s has no such partition (its partitions: %s, and %s for the jobs of no other)",
			ErrStudy, s.Chains.Partition, prof.Name, strings.Join(names, ", "), sim.DefaultPartition)
	}
	return pj, nil
}

// noStartsText says that no job of the trace has a recorded start. The
// counts are of the jobs f considered: those of partition when it is not
// "" (the chains' partition, where the study simulates), which the text
// says, since trace stats counts the whole trace (with the same
// definition of "never ran": trace.Job.NeverStarted).
func noStartsText(f sim.Fit, partition string) string {
	of := fmt.Sprintf("of its %d jobs with a submit time", f.Jobs)
	if partition != "" {
		of = fmt.Sprintf("of the %d jobs with a submit time of partition %s, where the chains run (trace stats counts every job of every partition)", f.Jobs, partition)
	}
	return fmt.Sprintf("the trace records no job's start: %d %s ran from a start it did not record (an SWF wait time of -1), %d never ran, so its waits are unknown",
		f.StartUnknown, of, f.NeverRan)
}

// checkGivenNodes refuses a partition size given to Propose that cannot
// simulate the trace: wide jobs more than sim.MaxSkipShare of it, or a
// demand far above the partition's capacity.
func checkGivenNodes(f sim.Fit) error {
	const make = " (with make run: NODES=N)"
	if f.TooWide() {
		return fmt.Errorf("%w: %s%s", ErrStudy, f.WideMessage("--partition-nodes"), make)
	}
	if f.Overloaded() {
		return fmt.Errorf("%w: %s%s", ErrStudy, f.OverloadMessage("--partition-nodes"), make)
	}
	return nil
}

// checkTraceFit reads the trace at path and checks it with CheckFit.
func checkTraceFit(s *Study, path string) error {
	jobs, err := trace.ReadAll(path)
	if err != nil {
		return err
	}
	return s.CheckFit(jobs)
}
