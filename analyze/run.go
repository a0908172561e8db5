package analyze

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sync"
	"time"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/trace"
)

// Section is one part of the analysis and, when it is absent, why.
type Section struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Absent, when not empty, says why the section has no tables: a
	// column the trace lacks, or a bound of the options.
	Absent string `json:"absent,omitempty"`
	// Notes are partial absences and caveats, one sentence each.
	Notes []string `json:"notes,omitempty"`
}

// Analysis is everything Analyze computes; Write writes it. Every slice
// is in a deterministic order (documented per table in README.md).
type Analysis struct {
	// version and backHref are Options.Version and ReportHref, for the
	// page.
	version, backHref string
	// Trace is the trace file's base name: not the path as the caller
	// spelled it, so the outputs do not depend on where the trace is.
	Trace  string `json:"trace"`
	Format string `json:"format"` // as ingest recorded it ("" when unknown)
	Zone   string `json:"zone"`
	Jobs   int64  `json:"jobs"`
	// FirstSubmitMs and LastSubmitMs are Unix milliseconds (0: none).
	FirstSubmitMs int64 `json:"first_submit_ms"`
	LastSubmitMs  int64 `json:"last_submit_ms"`
	// CapacitySource is "given" (Options.Nodes) or "inferred".
	CapacitySource string `json:"capacity_source"`
	// SimNodes and SimCapacitySteps describe the replays' cluster (0 when
	// nothing was replayed).
	SimNodes         int       `json:"sim_nodes"`
	SimCapacitySteps int       `json:"sim_capacity_steps"`
	Sections         []Section `json:"sections"`

	Months       []MonthRow     `json:"-"`
	Partitions   []PartitionRow `json:"-"`
	Sizes        []SizeRow      `json:"-"`
	Limits       []LimitRow     `json:"-"`
	Util         []UtilRow      `json:"-"`
	Queue        []QueueRow     `json:"-"`
	Profiles     []ProfileRow   `json:"-"`
	Waits        []WaitRow      `json:"-"`
	WaitCDF      []CDFRow       `json:"-"`
	RunLimit     []RunLimitRow  `json:"-"`
	Lengths      []LengthRow    `json:"-"`
	Fidelity     []FidelityRow  `json:"-"`
	ChainSummary ChainSummary   `json:"chains"`

	chains *chainSet // rows of chains.parquet and chain_links.parquet, generated
}

// EachChain calls fn with every chain (a row of chains.parquet) and its
// links (rows of chain_links.parquet), in chain_id order; fn must not
// keep links. Rows are generated on each call, so a trace with many
// chains never holds them all.
func (a *Analysis) EachChain(fn func(ChainRow, []LinkRow)) {
	if a.chains != nil {
		a.chains.each(fn)
	}
}

// ChainRows returns every row of chains.parquet and chain_links.parquet
// (all in memory: for small traces and tests).
func (a *Analysis) ChainRows() ([]ChainRow, []LinkRow) {
	var rows []ChainRow
	var links []LinkRow
	a.EachChain(func(r ChainRow, ls []LinkRow) {
		rows = append(rows, r)
		links = append(links, ls...)
	})
	return rows, links
}

// Section returns the section of id, nil when there is none.
func (a *Analysis) Section(id string) *Section {
	for i := range a.Sections {
		if a.Sections[i].ID == id {
			return &a.Sections[i]
		}
	}
	return nil
}

// accumulators are what the streaming pass feeds every job to.
type accumulators struct {
	months          monthCache
	vol             *volume
	tl              *timeline
	waits           *waits
	rl              *runLimit
	det             *detector
	cols            columns
	rows            int64 // jobs seen, the next job's row index
	firstMs, lastMs int64 // first and last known Submit, Unix ms
}

func newAccumulators(o *Options, loc *time.Location) *accumulators {
	return &accumulators{months: monthCache{loc: loc}, vol: newVolume(), tl: newTimeline(), waits: newWaits(),
		rl: newRunLimit(), det: newDetector(o.Chains)}
}

// add feeds job j, the next row of the trace, to every accumulator.
func (acc *accumulators) add(j *trace.Job) {
	user := userKey(j)
	month := ""
	if !j.Submit.IsZero() {
		sub := j.Submit.Unix()
		month = acc.months.month(sub)
		if acc.firstMs == 0 {
			acc.firstMs = sub * 1000
		}
		acc.lastMs = sub * 1000
	}
	acc.cols.add(j, user)
	acc.vol.add(j, user, month)
	acc.tl.add(j)
	acc.waits.add(j, month)
	acc.rl.add(j, user)
	acc.det.add(j, acc.rows, user)
	acc.rows++
}

// columns counts the jobs that have each optional column, for the
// sections' absence messages.
type columns struct {
	submit, start, startUnknown, limit, partition, qos, account, user, name, timeout int64
}

func (c *columns) add(j *trace.Job, user string) {
	count := func(n *int64, ok bool) {
		if ok {
			*n++
		}
	}
	count(&c.submit, !j.Submit.IsZero())
	count(&c.start, !j.Start.IsZero())
	count(&c.startUnknown, j.StartUnknown)
	count(&c.limit, j.TimelimitSec > 0)
	count(&c.partition, j.Partition != "")
	count(&c.qos, j.QOS != "")
	count(&c.account, j.Account != "")
	count(&c.user, user != "")
	count(&c.name, j.JobName != "")
	count(&c.timeout, j.State == trace.StateTimeout)
}

// Analyze reads the trace file at path once, streaming (memory follows
// the trace's span and its distinct users, months and partitions, not
// its length), and, when it has at most Replay.MaxJobs rows, reads it
// again whole to replay it in the simulator (fidelity, chains).
func Analyze(ctx context.Context, path string, opts Options) (*Analysis, error) {
	if err := opts.normalise(); err != nil {
		return nil, err
	}
	r, err := trace.Open(path)
	if err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	defer r.Close()
	a := &Analysis{Trace: filepath.Base(path), Jobs: r.NumRows(), CapacitySource: "inferred",
		version: opts.Version, backHref: opts.ReportHref}
	if opts.Nodes > 0 {
		a.CapacitySource = "given"
	}
	loc := zoneOf(r, &opts, a)
	acc := newAccumulators(&opts, loc)
	err = readBatches(ctx, r, func(batch []trace.Job) {
		for i := range batch {
			acc.add(&batch[i])
		}
		if opts.Progress != nil {
			opts.Progress(acc.rows, a.Jobs)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	a.FirstSubmitMs, a.LastSubmitMs = acc.firstMs, acc.lastMs
	opts.Logger.Info("analyze: trace read", "jobs", acc.rows, "chains", len(acc.det.chains))
	a.Months, a.Partitions, a.Sizes, a.Limits = acc.vol.tables()
	a.Util, a.Queue = acc.tl.hours(opts.Nodes, opts.CapacitySmoothDays)
	a.Profiles = profiles(a.Util, a.Queue, loc)
	var peak int64
	for _, u := range a.Util {
		peak = max(peak, u.BusyNodesMax)
	}
	skip := map[int]bool{groupPartition: acc.cols.partition == 0, groupQOS: acc.cols.qos == 0, groupMonth: acc.cols.submit == 0}
	a.Waits, a.WaitCDF = acc.waits.tables(skip)
	a.RunLimit = acc.rl.table()

	var rep *replayResult
	replayWhy := replayAbsence(&opts, a.Jobs, acc.cols)
	if replayWhy == "" {
		tjobs, err := trace.ReadAll(path)
		if err != nil {
			return nil, fmt.Errorf("analyze: %w", err)
		}
		rep, err = replay(ctx, &opts, tjobs, peak, acc.det.chains, acc.months.month)
		if err != nil {
			return nil, fmt.Errorf("analyze: %w", err)
		}
		a.Fidelity, a.SimNodes, a.SimCapacitySteps = rep.fidelity, rep.nodes, rep.capSteps
		opts.Logger.Info("analyze: replays done", "seconds", rep.wallSec, "chains_replayed", rep.chains)
	}
	var sims map[int32][]linkSim
	if rep != nil {
		sims = rep.links
	}
	a.chains = newChainSet(acc.det, sims)
	a.ChainSummary, a.Lengths = a.chains.summary(acc.det)
	a.Sections = sections(a, &opts, acc.cols, acc.tl.skipped, replayWhy)
	return a, nil
}

// batchRows is the number of jobs read at a time.
const batchRows = 4096

// readBatches reads r to the end in a goroutine, two batches ahead, and
// calls fn with each batch in file order, so decoding and analysis run
// on two cores. fn must not keep the batch.
func readBatches(ctx context.Context, r *trace.Reader, fn func([]trace.Job)) error {
	type batch struct {
		jobs []trace.Job
		err  error
	}
	free := make(chan []trace.Job, 3)
	full := make(chan batch, 3)
	for range 3 {
		free <- make([]trace.Job, batchRows)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait() // the reader is not used after return
	defer close(done)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(full)
		for {
			var buf []trace.Job
			select {
			case buf = <-free:
			case <-done:
				return
			}
			n, err := r.Read(buf)
			select {
			case full <- batch{buf[:n], err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	for b := range full {
		if len(b.jobs) > 0 {
			fn(b.jobs)
		}
		if b.err == io.EOF {
			return nil
		}
		if b.err != nil {
			return b.err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		free <- b.jobs[:cap(b.jobs)]
	}
	return nil
}

// zoneOf returns the zone of months, days and hours: opts.Location, else
// the zone ingest recorded, else UTC; it sets a.Zone and a.Format.
func zoneOf(r *trace.Reader, o *Options, a *Analysis) *time.Location {
	var meta struct {
		Format string `json:"format"`
		TZ     string `json:"tz"`
		Inputs []struct {
			MaxNodes int64 `json:"max_nodes"`
		} `json:"inputs"`
	}
	if v, ok := r.Metadata(ingest.MetaIngest); ok {
		_ = json.Unmarshal([]byte(v), &meta) // a trace without it is fine
	}
	a.Format = meta.Format
	// the node count an SWF header gave, when every input gave the same
	var header int64
	for i, in := range meta.Inputs {
		if in.MaxNodes <= 0 || i > 0 && in.MaxNodes != header {
			header = 0
			break
		}
		header = in.MaxNodes
	}
	if o.Nodes == 0 && header > 0 && header <= math.MaxInt32 {
		o.Nodes, a.CapacitySource = int(header), "trace header"
		o.nodesFromHeader = true
	}
	loc := o.Location
	if loc == nil && meta.TZ != "" {
		if l, err := time.LoadLocation(meta.TZ); err == nil {
			loc = l
		}
	}
	if loc == nil {
		loc = time.UTC
	}
	a.Zone = loc.String()
	return loc
}

// replayAbsence says why the trace is not replayed ("" when it is).
func replayAbsence(o *Options, jobs int64, c columns) string {
	switch {
	case o.Replay.MaxJobs < 0:
		return "replays are turned off (replay max jobs < 0)"
	case jobs > o.Replay.MaxJobs:
		return fmt.Sprintf("the trace has %d jobs, more than the replay bound of %d (the replays hold the whole trace in memory; raise --replay-max-jobs)", jobs, o.Replay.MaxJobs)
	case c.start == 0:
		return "no job has a recorded start, so there are no real waits to compare with"
	case c.submit == 0:
		return "no job has a submission time"
	}
	return ""
}
