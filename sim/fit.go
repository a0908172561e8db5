package sim

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/mirage-hpc/mirage/trace"
)

// MaxSkipShare is the share of a trace's jobs, or of their node-hours,
// that may be skipped as wider than the simulated partition before the
// commands refuse the trace (unless told to allow it): 1 %.
const MaxSkipShare = 0.01

// Fit says how a trace fits a simulated partition: the jobs too wide for
// it (FromTrace skips them as SkipTooManyNodes) and the demand of the jobs
// kept against the partition's capacity and the trace's own usage. It is
// what a command reports before a replay whose figures would be
// meaningless. Node-hours are nodes times run time in hours (End - Start,
// or the recorded run time of a job whose start is unknown; 0 for a job
// that never ran).
type Fit struct {
	// PartitionNodes is the simulated partition's size in nodes.
	PartitionNodes int `json:"partition_nodes"`
	// Jobs counts the jobs considered (with a Submit, in the window), and
	// NodeHours their node-hours.
	Jobs      int     `json:"jobs"`
	NodeHours float64 `json:"node_hours"`
	// WideJobs counts the jobs that need more nodes than the partition
	// has, and WideNodeHours their node-hours.
	WideJobs      int     `json:"wide_jobs"`
	WideNodeHours float64 `json:"wide_node_hours"`
	// Widest is the most nodes a considered job asked, and WidestJob its
	// JobID (the first in Submit order among equals).
	Widest    int32  `json:"widest"`
	WidestJob string `json:"widest_job,omitempty"`
	// PeakBusy is the most nodes the considered jobs (wide ones too) held
	// at once by their real Start and End (0 when no job has both).
	PeakBusy int `json:"peak_busy"`
	// SpanHours is the time from the first to the last Submit considered.
	SpanHours float64 `json:"span_hours"`
	// OfferedLoad is the node-hours of the jobs the partition can run
	// over its capacity (PartitionNodes × SpanHours); 0 when the span is
	// empty. Above 1 the queue can only grow.
	OfferedLoad float64 `json:"offered_load"`
	// TraceLoad is NodeHours over PeakBusy × SpanHours: the trace's own
	// utilisation of the nodes it used; 0 without PeakBusy.
	TraceLoad float64 `json:"trace_load"`
	// KnownWaits counts the considered jobs that ran from a recorded
	// start (a real wait to compare), StartUnknown those that ran from
	// one the trace did not record, NeverRan those that never started.
	KnownWaits   int `json:"known_waits"`
	StartUnknown int `json:"start_unknown"`
	NeverRan     int `json:"never_ran"`
}

// CheckFit computes the Fit of jobs to a partition of nodes nodes,
// considering the jobs FromTrace would with the same From and To (Unix
// seconds; 0 = unbounded): those with a Submit inside the window. It
// does not change jobs.
func CheckFit(jobs []trace.Job, nodes int, from, to int64) Fit {
	c := NewFitCounter(nodes, from, to)
	for i := range jobs {
		c.Add(&jobs[i])
	}
	return c.Fit()
}

// FitCounter computes a Fit one job at a time (CheckFit over a trace
// read in batches, see ReadTrace): Add each job, then Fit. It keeps two
// 16-byte changes per job that ran, for PeakBusy.
type FitCounter struct {
	f           Fit
	from, to    int64
	changes     []fitChange
	first, last int64
	keptHours   float64
}

type fitChange struct{ at, nodes int64 }

// NewFitCounter starts a Fit to a partition of nodes nodes over the jobs
// submitted in [from, to) (Unix seconds; 0 = unbounded).
func NewFitCounter(nodes int, from, to int64) *FitCounter {
	return &FitCounter{f: Fit{PartitionNodes: nodes}, from: from, to: to}
}

// Add counts one trace job; it keeps no reference to it.
func (c *FitCounter) Add(j *trace.Job) {
	f, nodes := &c.f, c.f.PartitionNodes
	if j.Submit.IsZero() {
		return
	}
	s := j.Submit.Unix()
	if c.from != 0 && s < c.from || c.to != 0 && s >= c.to {
		return
	}
	if f.Jobs == 0 || s < c.first {
		c.first = s
	}
	if f.Jobs == 0 || s > c.last {
		c.last = s
	}
	f.Jobs++
	var h float64
	if rt, ok := j.RunTime(); ok && rt > 0 {
		h = float64(max(1, j.NNodes)) * rt.Hours()
	}
	f.NodeHours += h
	switch {
	case j.StartUnknown:
		f.StartUnknown++
	case j.NeverStarted():
		f.NeverRan++
	default:
		f.KnownWaits++
	}
	if j.NNodes > f.Widest || j.NNodes == f.Widest && f.WidestJob == "" {
		f.Widest, f.WidestJob = j.NNodes, j.JobID
	}
	if !j.StartUnknown && !j.Start.IsZero() && !j.End.IsZero() && j.End.After(j.Start) {
		c.changes = append(c.changes, fitChange{j.Start.Unix(), int64(j.NNodes)}, fitChange{j.End.Unix(), -int64(j.NNodes)})
	}
	if nodes > 0 && int64(j.NNodes) > int64(nodes) {
		f.WideJobs++
		f.WideNodeHours += h
		return
	}
	c.keptHours += h
}

// Fit returns the Fit of the jobs added so far.
func (c *FitCounter) Fit() Fit {
	f, nodes := c.f, c.f.PartitionNodes
	// Ends before starts at the same instant: a node freed and taken
	// again is not counted twice.
	slices.SortFunc(c.changes, func(a, b fitChange) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.nodes, b.nodes)
	})
	var busy int64
	for _, ch := range c.changes {
		busy += ch.nodes
		f.PeakBusy = max(f.PeakBusy, int(busy))
	}
	f.SpanHours = float64(c.last-c.first) / 3600
	if f.SpanHours > 0 && nodes > 0 {
		f.OfferedLoad = c.keptHours / (float64(nodes) * f.SpanHours)
	}
	if f.SpanHours > 0 && f.PeakBusy > 0 {
		f.TraceLoad = f.NodeHours / (float64(f.PeakBusy) * f.SpanHours)
	}
	return f
}

// WideShare returns the share of the considered jobs, and of their
// node-hours, that are wider than the partition (0 for none).
func (f Fit) WideShare() (jobs, nodeHours float64) {
	if f.Jobs > 0 {
		jobs = float64(f.WideJobs) / float64(f.Jobs)
	}
	if f.NodeHours > 0 {
		nodeHours = f.WideNodeHours / f.NodeHours
	}
	return jobs, nodeHours
}

// TooWide reports whether more than MaxSkipShare of the jobs or of their
// node-hours are wider than the partition.
func (f Fit) TooWide() bool {
	j, h := f.WideShare()
	return j > MaxSkipShare || h > MaxSkipShare
}

// WideMessage describes the jobs wider than the partition ("" when there
// are none); flag is the setting that sizes the partition (for example
// "--partition-nodes"), named as the fix.
func (f Fit) WideMessage(flag string) string {
	if f.WideJobs == 0 {
		return ""
	}
	j, h := f.WideShare()
	widest := "the widest"
	if f.WidestJob != "" {
		widest += ", job " + f.WidestJob + ","
	}
	return fmt.Sprintf("%d of %d jobs (%.1f%%; %.1f%% of the node-hours) need more than the partition's %d nodes and are skipped; %s needs %d nodes: set %s %d (or more) to simulate them",
		f.WideJobs, f.Jobs, 100*j, 100*h, f.PartitionNodes, widest, f.Widest, flag, max(int(f.Widest), f.PeakBusy))
}

// Overloaded reports whether the demand is far above what the partition
// can serve: an offered load of more than 3 (three times the partition's
// node-hours over the submit span), while the trace's own usage was
// ordinary (TraceLoad at most 1.5, or unknown). Such a replay queues
// almost every job for a long time, and takes long to run: usually the
// partition is too small or run times are in the wrong unit.
func (f Fit) Overloaded() bool {
	return f.OfferedLoad > 3 && (f.TraceLoad == 0 || f.TraceLoad <= 1.5)
}

// OverloadMessage describes an overloaded partition ("" when it is not
// Overloaded); flag is the setting that sizes the partition.
func (f Fit) OverloadMessage(flag string) string {
	if !f.Overloaded() {
		return ""
	}
	used := "the trace has no start and end times to compare with"
	fix := fmt.Sprintf("set %s to the cluster's size", flag)
	if f.PeakBusy > 0 {
		used = fmt.Sprintf("the trace's own jobs held at most %d nodes at once, %.0f%% busy", f.PeakBusy, 100*f.TraceLoad)
		fix = fmt.Sprintf("set %s %d (or the cluster's size)", flag, f.PeakBusy)
	}
	return fmt.Sprintf("the jobs ask %.1fx the node-hours the partition's %d nodes offer over the %.0f h of submissions (%s): probably a partition-size or run-time error: %s, or check the trace's run times and their unit",
		f.OfferedLoad, f.PartitionNodes, f.SpanHours, used, fix)
}
