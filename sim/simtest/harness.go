package simtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/sim"
)

// RecordKind says what happened to a job in a Record.
type RecordKind uint8

const (
	// RecordStarted: the job started (Recorder.Started).
	RecordStarted RecordKind = iota
	// RecordFinished: a started job ended (Recorder.Finished).
	RecordFinished
	// RecordLeft: the job left the queue without running (Recorder.Left).
	RecordLeft
)

// String returns "start", "end" or "left".
func (k RecordKind) String() string {
	switch k {
	case RecordFinished:
		return "end"
	case RecordLeft:
		return "left"
	}
	return "start"
}

// Record is one Recorder call, in the order the simulator made it.
type Record struct {
	Kind RecordKind
	ID   sim.JobID
	At   int64 // Unix seconds
}

// String formats the record as "start 3 at=120".
func (r Record) String() string { return fmt.Sprintf("%s %d at=%d", r.Kind, r.ID, r.At) }

// ErrInvariant is wrapped by every invariant violation the Harness
// reports.
var ErrInvariant = errors.New("simulator invariant violated")

// NotYet is the time a Harness reports for something that has not
// happened (a job that has not started, ended or left).
const NotYet int64 = -1 << 63

// Harness runs one simulation and records what the simulator decided, in
// the manner of nomad's scheduler test harness: it is the sim.Recorder of
// its Sim, keeps every call in Records, and checks these invariants as the
// calls arrive:
//
//   - record times never decrease;
//   - a job starts at most once, never before its (normalised) Submit or
//     Eligible time, and never before its After predecessor has ended;
//   - when a job starts, the nodes of all running jobs fit in the usable
//     capacity at that time (Config.Capacity; never over-allocate);
//   - a job ends exactly min(RunSec, limit) seconds (after the
//     simulator's normalisation, Sim.Job) after it started, where limit
//     is the one it runs under (Sim.Limit): LimitSec, or for a job with
//     a time-min one in [TimeMinSec, LimitSec];
//   - only a job that never started leaves, at most once.
//
// Err returns the violations; Complete also requires every job to have
// ended or left. A Harness is not safe for concurrent use.
type Harness struct {
	// Sim is the simulation under test; its Recorder is the Harness.
	Sim *sim.Sim
	// Records holds every Recorder call in order.
	Records []Record

	cfg    sim.Config
	starts []int64 // NotYet when not started
	ends   []int64 // finish or leave time; NotYet when neither
	left   []bool
	busy   int   // nodes of running jobs
	last   int64 // time of the last record
	errs   []error
}

// NewHarness builds a Harness around sim.New(cfg, jobs).
func NewHarness(cfg sim.Config, jobs []sim.Job) (*Harness, error) {
	h := &Harness{cfg: cfg, last: NotYet}
	s, err := sim.New(cfg, jobs, h)
	if err != nil {
		return nil, err
	}
	h.Sim = s
	h.grow()
	return h, nil
}

// MustHarness is NewHarness that fails tb on error.
func MustHarness(tb testing.TB, cfg sim.Config, jobs []sim.Job) *Harness {
	tb.Helper()
	h, err := NewHarness(cfg, jobs)
	if err != nil {
		tb.Fatalf("new harness: %v", err)
	}
	return h
}

// grow extends the per-job tables to the simulation's job count (Submit
// adds jobs).
func (h *Harness) grow() {
	for len(h.starts) < h.Sim.NumJobs() {
		h.starts = append(h.starts, NotYet)
		h.ends = append(h.ends, NotYet)
		h.left = append(h.left, false)
	}
}

// Clone returns an independent copy of the Harness around a clone of its
// Sim (sim.Sim.Clone): records so far are copied, later ones are kept
// apart.
func (h *Harness) Clone() *Harness {
	c := &Harness{
		Records: append([]Record(nil), h.Records...),
		cfg:     h.cfg,
		starts:  append([]int64(nil), h.starts...),
		ends:    append([]int64(nil), h.ends...),
		left:    append([]bool(nil), h.left...),
		busy:    h.busy,
		last:    h.last,
		errs:    append([]error(nil), h.errs...),
	}
	c.Sim = h.Sim.Clone(c)
	return c
}

// Submit adds an external job with sim.Sim.Submit and returns its ID.
func (h *Harness) Submit(j sim.Job) (sim.JobID, error) {
	id, err := h.Sim.Submit(j)
	h.grow()
	return id, err
}

// Run runs the simulation to its end (sim.Sim.Run).
func (h *Harness) Run(ctx context.Context) error { return h.Sim.Run(ctx) }

// CapacityAt returns the usable nodes at time t under the Config's
// capacity steps.
func (h *Harness) CapacityAt(t int64) int {
	c := h.cfg.Nodes
	for _, st := range h.cfg.Capacity {
		if st.At > t {
			break
		}
		c = st.Nodes
	}
	return c
}

func (h *Harness) failf(format string, args ...any) {
	h.errs = append(h.errs, fmt.Errorf("%w: "+format, append([]any{ErrInvariant}, args...)...))
}

func (h *Harness) record(k RecordKind, id sim.JobID, at int64) {
	h.grow()
	if at < h.last {
		h.failf("%s %d at %d after a record at %d", k, id, at, h.last)
	}
	h.last = at
	h.Records = append(h.Records, Record{Kind: k, ID: id, At: at})
}

// Started implements sim.Recorder.
func (h *Harness) Started(id sim.JobID, at int64) {
	h.record(RecordStarted, id, at)
	j := h.Sim.Job(id)
	if h.starts[id] != NotYet {
		h.failf("job %d started twice (at %d and %d)", id, h.starts[id], at)
	}
	if h.left[id] {
		h.failf("job %d started at %d after leaving", id, at)
	}
	h.starts[id] = at
	if at < j.Submit {
		h.failf("job %d started at %d before its submission at %d", id, at, j.Submit)
	}
	if at < j.Eligible {
		h.failf("job %d started at %d before it was eligible at %d", id, at, j.Eligible)
	}
	if j.After != sim.NoJob {
		if e := h.ends[j.After]; e == NotYet || e > at {
			h.failf("job %d started at %d before its predecessor %d ended (end %d)", id, at, j.After, e)
		}
	}
	h.busy += int(j.Nodes)
	if c := h.CapacityAt(at); h.busy > c {
		h.failf("job %d (%d nodes) started at %d: %d nodes busy > capacity %d", id, j.Nodes, at, h.busy, c)
	}
}

// Finished implements sim.Recorder.
func (h *Harness) Finished(id sim.JobID, at int64) {
	h.record(RecordFinished, id, at)
	j := h.Sim.Job(id)
	switch {
	case h.starts[id] == NotYet:
		h.failf("job %d finished at %d without starting", id, at)
	case h.ends[id] != NotYet:
		h.failf("job %d finished twice (at %d and %d)", id, h.ends[id], at)
	}
	limit := j.LimitSec
	if l, ok := h.Sim.Limit(id); ok { // not when the calls come from a test, not the Sim
		limit = l
	}
	switch {
	case j.TimeMinSec == 0 && limit != j.LimitSec:
		h.failf("job %d without a time-min ran under limit %d, not its %d", id, limit, j.LimitSec)
	case j.TimeMinSec > 0 && (limit < j.TimeMinSec || limit > j.LimitSec):
		h.failf("job %d ran under limit %d, outside [time-min %d, limit %d]", id, limit, j.TimeMinSec, j.LimitSec)
	case h.starts[id] != NotYet && at-h.starts[id] != min(j.RunSec, limit):
		h.failf("job %d ran %d s (from %d to %d), want min(run %d, limit %d)", id, at-h.starts[id], h.starts[id], at, j.RunSec, limit)
	}
	h.ends[id] = at
	h.busy -= int(j.Nodes)
}

// Left implements sim.Recorder.
func (h *Harness) Left(id sim.JobID, at int64) {
	h.record(RecordLeft, id, at)
	if h.starts[id] != NotYet {
		h.failf("job %d left at %d after starting at %d", id, at, h.starts[id])
	}
	if h.ends[id] != NotYet {
		h.failf("job %d left twice (at %d and %d)", id, h.ends[id], at)
	}
	h.ends[id] = at
	h.left[id] = true
}

// Start returns a job's start time, and false if it has not started.
func (h *Harness) Start(id sim.JobID) (int64, bool) {
	h.grow()
	return h.starts[id], h.starts[id] != NotYet
}

// End returns a started job's end time, and false if it has not ended
// (or never started).
func (h *Harness) End(id sim.JobID) (int64, bool) {
	h.grow()
	return h.ends[id], h.ends[id] != NotYet && !h.left[id]
}

// LeftAt returns when a job left the queue without running, and false if
// it has not.
func (h *Harness) LeftAt(id sim.JobID) (int64, bool) {
	h.grow()
	return h.ends[id], h.left[id]
}

// Starts returns every job's start time, NotYet for jobs that have not
// started, indexed by JobID.
func (h *Harness) Starts() []int64 {
	h.grow()
	return append([]int64(nil), h.starts...)
}

// Busy returns the nodes held by running jobs as the Harness counts them.
func (h *Harness) Busy() int { return h.busy }

// Err returns the invariant violations seen so far, joined, or nil.
func (h *Harness) Err() error { return errors.Join(h.errs...) }

// Complete returns Err plus one violation for every job that has neither
// ended nor left: after Run, every job must have done one or the other.
func (h *Harness) Complete() error {
	h.grow()
	errs := append([]error(nil), h.errs...)
	for id := range h.starts {
		if h.ends[id] == NotYet {
			errs = append(errs, fmt.Errorf("%w: job %d (%s) neither finished nor left (start %s)",
				ErrInvariant, id, h.Sim.Job(sim.JobID(id)).Name, fmtTime(h.starts[id])))
		}
	}
	return errors.Join(errs...)
}

// Table formats the schedule, one job a line ("ID name nodes submit start
// end"), for failure messages.
func (h *Harness) Table() string {
	h.grow()
	var b strings.Builder
	fmt.Fprintf(&b, "%4s %-10s %5s %5s %10s %10s %10s\n", "id", "name", "user", "nodes", "submit", "start", "end")
	for id := range h.starts {
		j := h.Sim.Job(sim.JobID(id))
		end := fmtTime(h.ends[id])
		if h.left[id] {
			end = "left@" + end
		}
		fmt.Fprintf(&b, "%4d %-10s %5d %5d %10d %10s %10s\n", id, j.Name, j.User, j.Nodes, j.Submit, fmtTime(h.starts[id]), end)
	}
	return b.String()
}

func fmtTime(t int64) string {
	if t == NotYet {
		return "-"
	}
	return fmt.Sprint(t)
}
