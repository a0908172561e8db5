package pipelines

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// ProposeOptions are the fixed parts of a proposed study.
type ProposeOptions struct {
	// Name is the study's name (default "study").
	Name string
	// Zone is the trace's zone (its ingest metadata); "" means UTC.
	Zone string
	// TrainShare is the share of the trace's submit span given to
	// training, the rest after a gap of one window to validation
	// (default 0.7).
	TrainShare float64
	// PartitionNodes is the partition size in nodes; 0 takes the most
	// nodes the trace's jobs held at once.
	PartitionNodes int
	// ModelsFrom, when not nil, is a study whose models, policies,
	// budget, sweep and predictions the proposal copies (otherwise no
	// models, the default policies and a 1 h overlap budget).
	ModelsFrom *Study
}

// Proposal is a proposed study and what was chosen, in words. Problem,
// when not "", is why the study cannot run as proposed and what to edit
// (a trace too short for any window): Propose then returns the study
// with the periods that do not fit at 0 windows, and an error.
type Proposal struct {
	Study   *Study
	Notes   []string
	Problem string
}

// Window shape of proposed studies (the LS6 study's): 2 days of warm-up,
// 5 days of workload, a window every 4 hours.
const (
	proposeWarmup   = 48 * time.Hour
	proposeWorkload = 120 * time.Hour
	proposeStride   = 4 * time.Hour
)

// Window budgets of proposed studies, in windows of a 48 h chain: a
// period gets at most this many windows times 48 h over the chain's
// limit (a window's replay costs about its chain's decision grid, P's
// limit long), the stride widened in whole hours to spread them over the
// whole period. A 48 h chain gets 400 training and 200 validation
// windows, the work `make run` does on LS6 in a few minutes on 2 cores.
const (
	proposeTrainBudget = 400
	proposeValBudget   = 200
	proposeBudgetLimit = 48 * time.Hour
)

// proposePeriod spreads at most budget windows of length window over
// [from, to): the stride is proposeStride, or the whole hours that fit
// budget windows when proposeStride would give more.
func proposePeriod(from, to time.Time, window time.Duration, budget int) (windows int, stride time.Duration) {
	d := to.Sub(from) - window
	if d < 0 {
		return 0, proposeStride
	}
	stride = proposeStride
	if n := int(d/stride) + 1; n > budget && budget > 1 {
		stride = (d / time.Duration(budget-1)).Truncate(time.Hour)
		for int(d/stride)+1 > budget {
			stride += time.Hour
		}
	}
	return int(d/stride) + 1, stride
}

// windowBudget is the most windows of a period for a chain of limit
// limitSec: budget windows of a 48 h chain, scaled by 48 h over the
// limit, at least 1.
func windowBudget(budget int, limitSec int64) int {
	if limitSec <= 0 {
		return budget
	}
	return max(1, int(float64(budget)*proposeBudgetLimit.Seconds()/float64(limitSec)))
}

// Propose proposes a study for a trace: the zone given, the partition
// size from the most nodes the trace's jobs held at once (or
// o.PartitionNodes), a training
// period over the first TrainShare of its submit span and a validation
// period after a gap of one window, the chain's shape from the trace's
// long jobs (proposeChainShape: their common limit, 1 node and their
// common multi-node size), warm windows with inferred
// dependencies and capacity, the decision grid and a 1 h overlap budget,
// or o.ModelsFrom's models, policies, budget, sweep and predictions. It
// refuses a trace whose dates are relative to 1970 (an SWF file without
// its start time) and one too short for a window in each period. Its
// refusals caused by the trace's data (no submit time, dates relative to
// 1970, no recorded start or end to size the partition by, too short a
// span) wrap ErrTraceFit beside ErrStudy; those of o (a bad share, zone
// or partition size) wrap ErrStudy only.
func Propose(jobs []trace.Job, o ProposeOptions) (*Proposal, error) {
	if o.Name == "" {
		o.Name = "study"
	}
	if o.Zone == "" {
		o.Zone = "UTC"
	}
	if o.TrainShare == 0 {
		o.TrainShare = 0.7
	}
	if !(o.TrainShare > 0 && o.TrainShare < 1) {
		return nil, fmt.Errorf("%w: train share %v: want 0 < share < 1", ErrStudy, o.TrainShare)
	}
	if o.PartitionNodes < 0 {
		return nil, fmt.Errorf("%w: partition nodes %d: want >= 0 (0 = the trace's peak)", ErrStudy, o.PartitionNodes)
	}
	loc, err := time.LoadLocation(o.Zone)
	if err != nil {
		return nil, fmt.Errorf("%w: zone %q: %w", ErrStudy, o.Zone, err)
	}
	var first, last time.Time
	type change struct {
		at    time.Time
		nodes int
	}
	var changes []change
	for i := range jobs {
		j := &jobs[i]
		if j.Submit.IsZero() {
			continue
		}
		if first.IsZero() || j.Submit.Before(first) {
			first = j.Submit
		}
		if j.Submit.After(last) {
			last = j.Submit
		}
		if !j.Start.IsZero() && !j.End.IsZero() && j.End.After(j.Start) {
			changes = append(changes, change{j.Start, int(j.NNodes)}, change{j.End, -int(j.NNodes)})
		}
	}
	if first.IsZero() {
		return nil, traceFit(fmt.Errorf("%w: the trace has no job with a submit time", ErrStudy))
	}
	if first.Year() < 1980 {
		return nil, traceFit(fmt.Errorf("%w: the trace's first submission is %s: its dates are relative to 1970 (an SWF file without UnixStartTime); ingest it again with --start-time to anchor them", ErrStudy, first.UTC().Format(time.RFC3339)))
	}
	// Ends before starts at the same instant: a node freed and taken again
	// is not counted twice.
	slices.SortFunc(changes, func(a, b change) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.nodes, b.nodes)
	})
	peak, busy := 0, 0
	for _, c := range changes {
		busy += c.nodes
		peak = max(peak, busy)
	}
	part := proposePartition(jobs)
	if part.name != "" {
		// The chains run in one partition, on its own nodes: only its jobs
		// size the partition and shape the chain.
		jobs, peak = part.jobs, part.peak
	}
	fitNodes := peak
	if o.PartitionNodes > 0 {
		fitNodes = o.PartitionNodes
	}
	fit := sim.CheckFit(jobs, fitNodes, 0, 0)
	noStarts := fit.KnownWaits == 0 && fit.StartUnknown > 0
	if noStarts && o.PartitionNodes <= 0 {
		return nil, traceFit(fmt.Errorf("%w: %s, and the partition size cannot be inferred: give it (study init --partition-nodes N; make run NODES=N), and the study will use cold windows without inferred dependencies or capacity",
			ErrStudy, noStartsText(fit, part.name)))
	}
	if peak == 0 && !noStarts {
		return nil, traceFit(fmt.Errorf("%w: no job of the trace has both a start and an end: the partition size cannot be inferred; give it (study init --partition-nodes N; make run NODES=N)", ErrStudy))
	}
	nodes, nodesFrom := peak, "the most nodes the trace's jobs held at once"
	if part.name != "" {
		nodesFrom = "the most nodes partition " + part.name + "'s jobs held at once"
	}
	if o.PartitionNodes > 0 {
		nodes, nodesFrom = o.PartitionNodes, fmt.Sprintf("given (the trace's jobs held at most %d at once)", peak)
		if err := checkGivenNodes(fit); err != nil {
			return nil, err
		}
	}
	shape := proposeChainShape(jobs, nodes)
	chains := shape.nodes
	wantFolds := 0
	if m := o.ModelsFrom; m != nil && slices.ContainsFunc(m.Models, func(m ModelSpec) bool { return m.Kind == "forest" || m.Kind == "xgboost" }) {
		wantFolds = cvFolds(m.Budget)
	}
	plan := planWindows(first, last, loc, o.TrainShare, shape.limit, wantFolds)
	start, valStart, window := plan.start, plan.valStart, plan.shape.length()
	allTrain, allVal, trainWindows, valWindows := plan.allTrain, plan.allVal, plan.train, plan.val
	trainStride, valStride := plan.trainStride, plan.valStride
	const layout = "2006-01-02T15:04:05"
	s := &Study{
		Name:    o.Name,
		Trace:   TraceSpec{Zone: o.Zone},
		Cluster: ClusterSpec{Profile: "default", Nodes: nodes, InferDependencies: true, InferCapacity: true},
		Chains:  ChainSpec{Nodes: chains, Limit: Duration(time.Duration(shape.limit) * time.Second), Partition: part.name},
		Periods: PeriodsSpec{
			Train:      Period{Start: start.In(loc).Format(layout), Windows: trainWindows, Stride: Duration(trainStride)},
			Validation: Period{Start: valStart.In(loc).Format(layout), Windows: valWindows, Stride: Duration(valStride)},
			Warmup:     Duration(plan.shape.warmup), Workload: Duration(plan.shape.workload), Mode: "warm",
		},
		Grid:   GridSpec{Probes: "grid"},
		Budget: BudgetSpec{Overlap: Duration(time.Hour)},
	}
	mode := "warm windows, simulator profile default calibrated to the trace's waits on the training months (cluster.calibrate: the fitted settings and inferences replace these)"
	s.Cluster.Calibrate = true
	s.Analyze = true // the trace's own chains: the report checks the simulator on them
	// and the evaluation replays them with the policies: "your users
	// lost X h; reactive gives Y h, the recommended policy Z h".
	s.RealChains = true
	if noStarts {
		s.Cluster.Calibrate = false
		s.RealChains = false // no real start: no real interruption to compare
		// Warm windows and the inferences read the trace's real starts.
		s.Periods.Mode, s.Cluster.InferDependencies, s.Cluster.InferCapacity = "cold", false, false
		mode = "cold windows (" + noStartsText(fit, part.name) + "), simulator profile default without inferred dependencies or capacity"
	}
	if m := o.ModelsFrom; m != nil {
		s.Models, s.Policies, s.Sweep, s.Predictions = slices.Clone(m.Models), slices.Clone(m.Policies), m.Sweep, m.Predictions
		s.Budget = m.Budget
	}
	if plan.folds > 0 && plan.folds < wantFolds {
		s.Budget.CVFolds = plan.folds
	}
	if plan.problem != "" {
		return &Proposal{Study: s, Problem: plan.problem + ": edit periods (warmup, workload, and each period's start, windows and stride) and chains.limit in the study, or use a longer trace",
				Notes: []string{fmt.Sprintf("partition of %d nodes: %s", nodes, nodesFrom)}},
			traceFit(fmt.Errorf("%w: %s: too short for a study (see the study's PROBLEM)", ErrStudy, plan.problem))
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	notes := []string{
		fmt.Sprintf("zone %s (from the trace's ingest metadata, or UTC)", o.Zone),
		fmt.Sprintf("partition of %d nodes: %s", nodes, nodesFrom),
		fmt.Sprintf("training: %d windows every %s from %s; validation: %d windows every %s from %s, one window (%s) after training ends%s",
			trainWindows, durText(int64(trainStride/time.Second)), s.Periods.Train.Start, valWindows, durText(int64(valStride/time.Second)),
			s.Periods.Validation.Start, durText(int64(window/time.Second)), budgetText(allTrain, allVal, trainWindows, valWindows, shape.limit)),
		fmt.Sprintf("chains of %v nodes, limit %s: %s", chains, durText(shape.limit), shape.why),
		fmt.Sprintf("%s; decision grid; overlap budget 1h", mode),
	}
	if t := windowText(plan, first, last, wantFolds); t != "" {
		notes = append(notes, t)
	}
	if part.name != "" {
		notes = append(notes, part.why)
	}
	if s.RealChains {
		notes = append(notes, "the trace's own service chains (analyze, real_chains): the report checks the simulator on them and the evaluation replays them with the policies")
	}
	if m := o.ModelsFrom; m != nil {
		notes = append(notes, fmt.Sprintf("models, policies, budget, sweep and predictions of study %s", m.Name))
	}
	return &Proposal{Study: s, Notes: notes}, nil
}

// windowText says why the windows are shorter than the default, or the
// cross-validation folds fewer ("" when neither).
func windowText(p windowPlan, first, last time.Time, wantFolds int) string {
	var t string
	if p.shape != proposeShapes[0] {
		t = fmt.Sprintf("windows of %s warm-up and %s workload: the trace spans %s, too short for %s and %s in both periods",
			durText(int64(p.shape.warmup/time.Second)), durText(int64(p.shape.workload/time.Second)), hoursText(last.Sub(first).Round(time.Hour)),
			durText(int64(proposeWarmup/time.Second)), durText(int64(proposeWorkload/time.Second)))
	}
	if p.folds > 0 && p.folds < wantFolds {
		if t != "" {
			t += "; "
		}
		t += fmt.Sprintf("budget.cv_folds: %d, the most time-blocked folds one window apart that the %d training windows make (the models' study has %d)", p.folds, p.train, wantFolds)
	}
	return t
}

// budgetText says why a period has fewer windows than a 4 h stride gives
// ("" when neither was capped).
func budgetText(allTrain, allVal, train, val int, limitSec int64) string {
	if allTrain == train && allVal == val {
		return ""
	}
	return fmt.Sprintf(" (a window every %s would give %d and %d; capped at %d and %d for a %s chain, about the work of %d and %d windows of a 48h one: raise windows or lower stride in the study for more)",
		durText(int64(proposeStride/time.Second)), allTrain, allVal, windowBudget(proposeTrainBudget, limitSec), windowBudget(proposeValBudget, limitSec),
		durText(limitSec), proposeTrainBudget, proposeValBudget)
}

// proposedPartition is the partition proposePartition chose for the
// chains: its trace partition name ("" for a trace of one partition),
// its jobs, their most nodes busy at once and why it was chosen.
type proposedPartition struct {
	name string
	jobs []trace.Job
	peak int
	why  string
}

// proposePartition chooses the partition a trace's chains run in when
// its jobs name at least two partitions of at least 1 % of the jobs
// each: the one whose jobs used the most node-hours (ties: the name).
// A trace of one partition gives none.
func proposePartition(jobs []trace.Job) proposedPartition {
	nodeH, count := map[string]float64{}, map[string]int{}
	for i := range jobs {
		j := &jobs[i]
		count[j.Partition]++
		if rt, ok := j.RunTime(); ok && rt > 0 {
			nodeH[j.Partition] += float64(max(1, j.NNodes)) * rt.Hours()
		}
	}
	var names []string
	for name, n := range count {
		if float64(n) >= 0.01*float64(len(jobs)) {
			names = append(names, name)
		}
	}
	if len(names) < 2 {
		return proposedPartition{}
	}
	slices.Sort(names)
	best := slices.MaxFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(nodeH[a], nodeH[b]), cmp.Compare(b, a)) })
	if best == "" {
		return proposedPartition{} // the jobs without a partition are the main pool
	}
	p := proposedPartition{name: best}
	var idx []int
	for i := range jobs {
		if jobs[i].Partition == best {
			p.jobs = append(p.jobs, jobs[i])
			idx = append(idx, i)
		}
	}
	p.peak = sim.PeakBusy(jobs, idx)
	var total float64
	for _, name := range slices.Sorted(maps.Keys(nodeH)) { // one order: the same text every run
		total += nodeH[name]
	}
	p.why = fmt.Sprintf("chains in partition %s (chains.partition), the one of the trace's %d partitions whose jobs used the most node-hours (%.0f%%); the other partitions' nodes are not its, so only its %d jobs are simulated",
		best, len(names), 100*nodeH[best]/max(total, 1e-9), len(p.jobs))
	return p
}
