package sim

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/mirage-hpc/mirage/trace"
)

// DefaultLimitSec is the time limit FromTrace gives a job whose trace has
// none (trace.NoLimit, or 0, which Slurm reads as "no limit"): 48 hours.
const DefaultLimitSec = 48 * 3600

// Reasons FromTrace skips a trace job, as reported in Conversion.Skipped.
const (
	// SkipNoSubmit: the job has no Submit time.
	SkipNoSubmit = "no-submit"
	// SkipOutsideWindow: Submit is outside [From, To).
	SkipOutsideWindow = "outside-window"
	// SkipTooManyNodes: the job needs more than MaxNodes nodes, so it
	// could never start.
	SkipTooManyNodes = "too-many-nodes"
)

// ErrFromTrace is wrapped by the errors FromTrace returns for bad options
// or input it cannot represent.
var ErrFromTrace = errors.New("cannot convert trace")

// FromTraceOptions controls FromTrace. The zero value is valid: every zero
// field means its default.
type FromTraceOptions struct {
	// DefaultLimitSec is the time limit in seconds of a job without one in
	// the trace; 0 means DefaultLimitSec (48 h). Such a job's limit is
	// raised to its actual run time when that is longer, so a job without
	// a limit is never cut short.
	DefaultLimitSec int64
	// MaxNodes, when > 0, skips jobs that need more nodes (SkipTooManyNodes):
	// set it to the simulated node count, since New refuses such jobs.
	MaxNodes int
	// From and To, when non-zero, keep only jobs with From <= Submit < To
	// (Unix seconds); the others are skipped (SkipOutsideWindow). The
	// filter is on Submit alone: a job submitted before From that was
	// still pending or running at From is dropped, so a window starts with
	// an empty cluster (the "cold" protocol).
	From, To int64
	// Infer, when not nil, runs dependency inference on the converted jobs
	// with the trace's real End times (see InferDependencies) and reports
	// it in Conversion.Inference.
	Infer *InferOptions
}

// SkipCount counts the trace jobs FromTrace skipped for one reason.
type SkipCount struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// Conversion reports what FromTrace did.
type Conversion struct {
	// Jobs is the number of jobs converted (the length of the result).
	Jobs int `json:"jobs"`
	// Users is the number of distinct users among them (User indices are
	// 0..Users-1).
	Users int `json:"users"`
	// Cancelled counts converted jobs that never started in the trace and
	// leave the queue at their trace End, or at Submit for a cancelled job
	// without one (Job.Cancel > 0).
	Cancelled int `json:"cancelled"`
	// Running counts converted jobs that started but have no End (still
	// running when the trace was taken); their RunSec is their LimitSec.
	Running int `json:"running"`
	// Pending counts converted jobs that neither started nor ended (still
	// pending when the trace was taken); their RunSec is their LimitSec and
	// Cancel is 0, so the simulation may run them.
	Pending int `json:"pending"`
	// StartUnknown counts converted jobs that ran in the trace from a start
	// it did not record (trace.Job.StartUnknown, an SWF wait of -1): they
	// run for their recorded run time like any job, but have no
	// TraceStart, so fidelity and warm windows leave them out.
	StartUnknown int `json:"start_unknown"`
	// Skipped counts the jobs left out, by reason, sorted by Reason;
	// reasons with no jobs are absent.
	Skipped []SkipCount `json:"skipped"`
	// Inference reports dependency inference; zero when Options.Infer is nil.
	Inference Inference `json:"inference"`
}

// FromTrace converts trace jobs to simulator jobs, in order of Submit (a
// stable sort, so jobs submitted in the same second keep their trace
// order; trace files are already in this order). The result's indices
// are the JobIDs New will use. Times become Unix seconds:
//
//   - Nodes is max(1, NNodes).
//   - LimitSec is TimelimitSec; without one (trace.NoLimit or 0) it is
//     opts.DefaultLimitSec, or the run time when that is longer.
//   - A job that ran (not NeverStarted) has TraceStart = Start and
//     RunSec = min(End-Start, LimitSec), at least 0; without End (still
//     running) RunSec = LimitSec.
//   - A job that ran from an unknown start (StartUnknown) has RunSec =
//     min(ElapsedSec, LimitSec) and TraceStart 0: it is runnable, and
//     excluded from fidelity and warm windows, which need a trace start.
//   - A job that never ran has RunSec 0 and Cancel = End (at least
//     Submit); without End, a cancelled one (an SWF job cancelled before
//     it started, at a time not recorded) has Cancel = Submit, and any
//     other (still pending) RunSec = LimitSec and no Cancel.
//   - Eligible is the trace's Eligible when known and after Submit, else 0.
//   - User is a dense index in order of first appearance, keyed by the
//     user name, or the UID when the name is empty; -1 when both are
//     unknown.
//   - After is NoJob unless opts.Infer is set; Name is the trace JobID.
//
// Jobs without Submit, outside [From, To), or wider than MaxNodes are
// skipped and counted in Conversion.Skipped. FromTrace returns an error
// wrapping ErrFromTrace for negative options, To <= From when both are
// set, or more jobs than a JobID can index; it never changes jobs.
func FromTrace(jobs []trace.Job, opts FromTraceOptions) ([]Job, Conversion, error) {
	c, err := newConverter(opts, len(jobs))
	if err != nil {
		return nil, Conversion{}, err
	}
	for i := range jobs {
		c.add(&jobs[i])
	}
	t, conv, err := c.finish()
	if err != nil {
		return nil, Conversion{}, err
	}
	return t.Jobs(), conv, nil
}

// converter is FromTrace one job at a time, so a trace can be converted
// while it is read (ReadTrace): it keeps the converted jobs in input
// order and sorts them by Submit at the end.
type converter struct {
	opts    FromTraceOptions
	conv    Conversion
	skipped [3]int // indexed like skipReasons
	jobs    []job
	names   *nameBuilder // the jobs' names (their JobIDs)
	// per converted job, in input order: its Submit in nanoseconds (the
	// sort key: FromTrace sorts by the trace's time), its user key's
	// index in keys (-1: no user) and its real end for inference.
	nanos  []int64
	keyOf  []int32
	ends   []int64
	keys   map[string]int32
	sorted bool // nanos are non-decreasing so far
}

func newConverter(opts FromTraceOptions, hint int) (*converter, error) {
	if opts.DefaultLimitSec < 0 || opts.MaxNodes < 0 {
		return nil, fmt.Errorf("%w: negative DefaultLimitSec %d or MaxNodes %d", ErrFromTrace, opts.DefaultLimitSec, opts.MaxNodes)
	}
	if opts.From != 0 && opts.To != 0 && opts.To <= opts.From {
		return nil, fmt.Errorf("%w: To %d <= From %d", ErrFromTrace, opts.To, opts.From)
	}
	if opts.DefaultLimitSec == 0 {
		opts.DefaultLimitSec = DefaultLimitSec
	}
	c := &converter{opts: opts, keys: map[string]int32{}, sorted: true,
		jobs: make([]job, 0, hint), names: newNameBuilder(nameBlock), nanos: make([]int64, 0, hint), keyOf: make([]int32, 0, hint)}
	if opts.Infer != nil {
		c.ends = make([]int64, 0, hint)
	}
	return c, nil
}

// add converts one trace job (or counts it as skipped). It keeps nothing
// of tj but the converted job and a copy of its JobID.
func (c *converter) add(tj *trace.Job) {
	if r := skipReason(tj, &c.opts); r >= 0 {
		c.skipped[r]++
		return
	}
	j, end := convertJob(tj, &c.opts, &c.conv)
	n := tj.Submit.UnixNano()
	if len(c.nanos) > 0 && n < c.nanos[len(c.nanos)-1] {
		c.sorted = false
	}
	c.jobs = append(c.jobs, row(&j, c.names.add(j.Name)))
	c.nanos, c.keyOf = append(c.nanos, n), append(c.keyOf, userKey(c.keys, tj))
	if c.ends != nil {
		c.ends = append(c.ends, end)
	}
}

// finish sorts the jobs by Submit (stable), numbers the users in order of
// first appearance in that order, and runs dependency inference.
func (c *converter) finish() (*Table, Conversion, error) {
	out, conv := c.jobs, c.conv
	if len(out) > math.MaxInt32 {
		return nil, Conversion{}, fmt.Errorf("%w: %d jobs, more than a JobID indexes", ErrFromTrace, len(out))
	}
	if !c.sorted {
		order := make([]int32, len(out))
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(c.nanos[a], c.nanos[b]) })
		out = permute(out, order)
		c.keyOf = permute(c.keyOf, order)
		if c.ends != nil {
			c.ends = permute(c.ends, order)
		}
	}
	dense := make([]int32, len(c.keys))
	for i := range dense {
		dense[i] = -1
	}
	users := int32(0)
	for i := range out {
		k := c.keyOf[i]
		if k < 0 {
			out[i].User = -1
			continue
		}
		if dense[k] < 0 {
			dense[k] = users
			users++
		}
		out[i].User = dense[k]
	}
	conv.Jobs, conv.Users = len(out), int(users)
	for r, n := range c.skipped {
		if n > 0 {
			conv.Skipped = append(conv.Skipped, SkipCount{Reason: skipReasons[r], Count: n})
		}
	}
	slices.SortFunc(conv.Skipped, func(a, b SkipCount) int { return cmp.Compare(a.Reason, b.Reason) })
	if c.opts.Infer != nil {
		conv.Inference = inferDependencies(out, c.ends, *c.opts.Infer)
	}
	return &Table{rows: out, names: c.names.table()}, conv, nil
}

// permute returns xs in order (order[k] is the index of the k-th
// element), reusing xs's array: it follows each cycle of the
// permutation once, marking order's visited entries.
func permute[T any](xs []T, order []int32) []T {
	for start := range order {
		if order[start] < 0 {
			continue
		}
		tmp := xs[start]
		k := start
		for {
			src := int(order[k])
			order[k] = ^order[k] // visited
			if src == start {
				xs[k] = tmp
				break
			}
			xs[k] = xs[src]
			k = src
		}
	}
	for k := range order {
		order[k] = ^order[k]
	}
	return xs
}

var skipReasons = [...]string{SkipNoSubmit, SkipOutsideWindow, SkipTooManyNodes}

// skipReason returns the index in skipReasons of the reason to skip j, or
// -1 to keep it.
func skipReason(j *trace.Job, opts *FromTraceOptions) int {
	if j.Submit.IsZero() {
		return 0
	}
	s := j.Submit.Unix()
	if opts.From != 0 && s < opts.From || opts.To != 0 && s >= opts.To {
		return 1
	}
	if opts.MaxNodes > 0 && int64(j.NNodes) > int64(opts.MaxNodes) {
		return 2
	}
	return -1
}

// convertJob converts everything but User, counts the job's kind in conv,
// and returns the job's real trace end (Unix seconds; 0 when it did not
// run, has no End, or ran from an unknown start).
func convertJob(tj *trace.Job, opts *FromTraceOptions, conv *Conversion) (Job, int64) {
	j := Job{
		Name:   tj.JobID,
		Nodes:  max(1, tj.NNodes),
		Submit: tj.Submit.Unix(),
		After:  NoJob,
	}
	if !tj.Eligible.IsZero() && tj.Eligible.Unix() > j.Submit {
		j.Eligible = tj.Eligible.Unix()
	}
	hasLimit := tj.TimelimitSec > 0
	j.LimitSec = tj.TimelimitSec
	if !hasLimit {
		j.LimitSec = opts.DefaultLimitSec
	}
	// A --time-min (trace.Job.TimeMinSec) carries over. The run time
	// below is what the job ran in the trace, under the trace's limit (for
	// a started job with a time-min, sacct's Timelimit is the one it was
	// granted): a replay that grants it less kills it at that.
	j.TimeMinSec = max(tj.TimeMinSec, 0)
	var end int64
	switch {
	case tj.StartUnknown:
		run := max(0, tj.ElapsedSec)
		if !hasLimit {
			j.LimitSec = max(j.LimitSec, run)
		}
		j.RunSec = min(run, j.LimitSec)
		conv.StartUnknown++
	case !tj.NeverStarted() && !tj.End.IsZero():
		j.TraceStart = tj.Start.Unix()
		end = tj.End.Unix()
		run := max(0, end-j.TraceStart)
		if !hasLimit {
			j.LimitSec = max(j.LimitSec, run)
		}
		j.RunSec = min(run, j.LimitSec)
	case !tj.NeverStarted():
		j.TraceStart = tj.Start.Unix()
		j.RunSec = j.LimitSec
		conv.Running++
	case !tj.End.IsZero():
		j.Cancel = max(tj.End.Unix(), j.Submit)
		conv.Cancelled++
	case tj.State == trace.StateCancelled:
		j.Cancel = j.Submit
		conv.Cancelled++
	default:
		j.RunSec = j.LimitSec
		conv.Pending++
	}
	return j, end
}

// userKey returns the index in keys of tj's user (by name, or UID when
// the name is empty), adding it on first sight; -1 when neither is known.
func userKey(keys map[string]int32, tj *trace.Job) int32 {
	var key string
	switch {
	case tj.User != "":
		key = "n" + tj.User
	case tj.UID != trace.NoID:
		key = "u" + strconv.FormatInt(tj.UID, 10)
	default:
		return -1
	}
	k, ok := keys[key]
	if !ok {
		k = int32(len(keys))
		keys[key] = k
	}
	return k
}
