package trace

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"time"
)

// Stats summarizes a trace: its size and span, users, wait and run times,
// time limits, node counts and submit months. It is what `mirage trace
// stats` prints; the JSON field names are part of the command's output
// format. Every list is sorted, so the JSON form is deterministic.
//
// Durations are float64 seconds. Waits and run times are computed in UTC
// instants, so a job that spans a daylight-saving change is an hour
// longer or shorter than in the cluster's naive local time.
type Stats struct {
	// Jobs counts the jobs (rows) of the trace.
	Jobs int64 `json:"jobs"`
	// FirstSubmit and LastSubmit are the earliest and latest known Submit,
	// in UTC (RFC 3339 in JSON). They are zero, and omitted from JSON, when
	// no job has a known Submit.
	FirstSubmit time.Time `json:"first_submit,omitzero"`
	LastSubmit  time.Time `json:"last_submit,omitzero"`
	// Users counts distinct users: by Job.User where it is set, otherwise
	// by Job.UID. Jobs with neither are not counted.
	Users int64 `json:"users"`
	// WaitSec summarizes Start - Submit over the jobs with both known,
	// including jobs that never ran but have a Start (a job cancelled while
	// pending, as sacct records it). Negative waits are kept as they are.
	// StartUnknown jobs have no wait and are not in it.
	WaitSec Quantiles `json:"wait_sec"`
	// RunSec summarizes the run times (Job.RunTime) of the jobs that have
	// one: End - Start where both are known, ElapsedSec for StartUnknown
	// jobs.
	RunSec Quantiles `json:"run_sec"`
	// TimeoutJobs counts the jobs that ran for at least their time limit
	// (Job.HitLimit, StartUnknown jobs included), and TimeoutShare is
	// TimeoutJobs / Jobs (0 for an empty trace).
	TimeoutJobs  int64   `json:"timeout_jobs"`
	TimeoutShare float64 `json:"timeout_share"`
	// CancelledPending counts the jobs that left the queue without running
	// (Job.NeverStarted); StartUnknown jobs ran and are not counted.
	CancelledPending int64 `json:"cancelled_pending"`
	// StartUnknown counts the jobs that ran but whose start the input did
	// not record (Job.StartUnknown, an SWF wait time of -1): they are in
	// RunSec and TimeoutJobs, not in WaitSec or CancelledPending.
	StartUnknown int64 `json:"start_unknown"`
	// Nodes counts jobs per Job.NNodes, by ascending node count.
	Nodes []NodeCount `json:"nodes"`
	// Timelimit counts jobs per time-limit bucket, always all six buckets
	// in the order <=1h, 1-6h, 6-24h, 24-48h, >48h, unlimited. A bucket
	// includes its upper bound: a 6 h limit is in 1-6h.
	Timelimit []LimitBucket `json:"timelimit"`
	// TimelimitSec summarizes Job.TimelimitSec over the jobs with a known
	// limit.
	TimelimitSec Quantiles `json:"timelimit_sec"`
	// SubmitMonths counts jobs per calendar month of Submit in UTC,
	// ascending; jobs without a known Submit are not counted.
	SubmitMonths []MonthCount `json:"submit_months"`
	// Partitions holds the same statistics per Job.Partition, by ascending
	// name ("" for jobs without one), when the trace has more than one
	// partition; otherwise it is nil. Its elements have no Partitions.
	Partitions []PartitionStats `json:"partitions,omitempty"`
}

// Quantiles summarizes a sample of durations in seconds. Percentiles use
// linear interpolation between the closest ranks, numpy's default: the
// p-quantile of sorted x[0..N-1] is at index h = (N-1)*p, interpolated
// between x[floor(h)] and x[floor(h)+1]. Every field is 0 when N is 0,
// and the JSON form then holds only "n": a percentile of no values is
// absent, not 0 (see MarshalJSON).
type Quantiles struct {
	N    int64   `json:"n"` // number of values summarized
	P50  float64 `json:"p50"`
	P75  float64 `json:"p75"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	Mean float64 `json:"mean"`
}

// MarshalJSON writes q as an object with n, p50, p75, p90, p99 and mean;
// when N is 0 only {"n":0}, so that no reader takes an absent figure for
// a wait or run time of 0 s.
func (q Quantiles) MarshalJSON() ([]byte, error) {
	if q.N == 0 {
		return []byte(`{"n":0}`), nil
	}
	type plain Quantiles // without this method
	return json.Marshal(plain(q))
}

// NodeCount is the number of jobs that ran on (or, for jobs that never
// ran, requested) Nodes nodes.
type NodeCount struct {
	Nodes int32 `json:"nodes"`
	Jobs  int64 `json:"jobs"`
}

// LimitBucket is the number of jobs whose time limit falls in Bucket: one
// of "<=1h", "1-6h", "6-24h", "24-48h", ">48h", "unlimited".
type LimitBucket struct {
	Bucket string `json:"bucket"`
	Jobs   int64  `json:"jobs"`
}

// MonthCount is the number of jobs submitted in Month ("2006-01", UTC).
type MonthCount struct {
	Month string `json:"month"`
	Jobs  int64  `json:"jobs"`
}

// PartitionStats is the Stats of the jobs of one partition.
type PartitionStats struct {
	Partition string `json:"partition"`
	Stats
}

// limitBuckets are the time-limit buckets but "unlimited", each with its
// inclusive upper bound in seconds.
var limitBuckets = [...]struct {
	label  string
	maxSec int64
}{
	{"<=1h", 3600},
	{"1-6h", 6 * 3600},
	{"6-24h", 24 * 3600},
	{"24-48h", 48 * 3600},
	{">48h", math.MaxInt64},
}

// bucketUnlimited is the label of jobs with TimelimitSec == NoLimit.
const bucketUnlimited = "unlimited"

// statsBatch is the number of jobs ComputeStats reads at a time.
const statsBatch = 4096

// ComputeStats reads r to the end and summarizes its jobs. It does not
// close r. Its memory grows with the number of distinct values, not of
// jobs: distinct wait and run times (16 bytes each, at the trace's
// millisecond precision, plus a merge buffer of a quarter as many
// values, at least 16,384), users, node counts, limits and months, for
// the whole trace and again per partition when there are several. The
// quantiles are exact, bit for bit those of QuantilesOf over every job's
// value. ctx is checked between batches of jobs.
func ComputeStats(ctx context.Context, r *Reader) (Stats, error) {
	var b statsBuilder
	buf := make([]Job, statsBatch)
	for {
		if err := ctx.Err(); err != nil {
			return Stats{}, err
		}
		n, err := r.Read(buf)
		for i := range buf[:n] {
			b.add(&buf[i])
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return Stats{}, fmt.Errorf("compute stats: %w", err)
		}
	}
	return b.stats(), nil
}

// StatsOf summarizes jobs held in memory; the result does not depend on
// their order.
func StatsOf(jobs []Job) Stats {
	var b statsBuilder
	for i := range jobs {
		b.add(&jobs[i])
	}
	return b.stats()
}

// QuantilesOf summarizes the values x (which must not contain NaN): the
// 50th, 75th, 90th and 99th percentiles and the mean, as documented on
// Quantiles. It sorts x in place.
func QuantilesOf(x []float64) Quantiles {
	slices.Sort(x)
	n := len(x)
	if n == 0 {
		return Quantiles{}
	}
	at := func(i int) float64 { return x[i] }
	sum := 0.0
	for _, v := range x {
		sum += v
	}
	return Quantiles{
		N:    int64(n),
		P50:  quantile(0.50, n, at),
		P75:  quantile(0.75, n, at),
		P90:  quantile(0.90, n, at),
		P99:  quantile(0.99, n, at),
		Mean: sum / float64(n),
	}
}

// quantile returns the p-quantile of n sorted values, at(i) being the
// i-th, with numpy's linear interpolation (including its rounding: it
// interpolates from the upper neighbour when the fraction is >= 0.5). n
// must be positive and 0 <= p <= 1.
func quantile(p float64, n int, at func(i int) float64) float64 {
	h := float64(n-1) * p
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return at(n - 1)
	}
	t := h - float64(lo)
	a, b := at(lo), at(lo+1)
	d := b - a
	// The explicit conversions keep the compiler from fusing a
	// multiply-add (Go may on arm64), so results are the same everywhere.
	if t >= 0.5 {
		return b - float64(d*(1-t))
	}
	return a + float64(d*t)
}

// countQuantiles is QuantilesOf for a sample given as distinct values and
// their counts, such as time limits (a trace has few distinct ones).
func countQuantiles(counts map[int64]int64) Quantiles {
	vals := slices.Sorted(maps.Keys(counts))
	cum := make([]int64, len(vals)) // cum[k]: values before vals[k+1]
	n := int64(0)
	sum := 0.0
	for k, v := range vals {
		n += counts[v]
		cum[k] = n
		sum += float64(v) * float64(counts[v])
	}
	if n == 0 {
		return Quantiles{}
	}
	at := func(i int) float64 {
		k, _ := slices.BinarySearch(cum, int64(i)+1)
		return float64(vals[k])
	}
	return Quantiles{
		N:    n,
		P50:  quantile(0.50, int(n), at),
		P75:  quantile(0.75, int(n), at),
		P90:  quantile(0.90, int(n), at),
		P99:  quantile(0.99, int(n), at),
		Mean: sum / float64(n),
	}
}

// statsBuilder accumulates Stats over the whole trace and, once a second
// partition shows up, per partition.
type statsBuilder struct {
	all   statsAcc
	first string               // partition of every job so far while parts is nil
	parts map[string]*statsAcc // nil while the trace has one partition
}

func (b *statsBuilder) add(j *Job) {
	if b.all.jobs == 0 {
		b.first = j.Partition
	}
	if b.parts == nil && j.Partition != b.first {
		// Every job so far was in b.first: its statistics are b.all's.
		b.parts = map[string]*statsAcc{b.first: b.all.clone()}
	}
	b.all.add(j)
	if b.parts != nil {
		p := b.parts[j.Partition]
		if p == nil {
			p = &statsAcc{}
			b.parts[j.Partition] = p
		}
		p.add(j)
	}
}

func (b *statsBuilder) stats() Stats {
	s := b.all.stats()
	if b.parts == nil {
		return s
	}
	s.Partitions = make([]PartitionStats, 0, len(b.parts))
	for _, name := range slices.Sorted(maps.Keys(b.parts)) {
		s.Partitions = append(s.Partitions, PartitionStats{Partition: name, Stats: b.parts[name].stats()})
	}
	return s
}

// userKey identifies a user by name or, when the name is unknown, by UID.
type userKey struct {
	name string
	uid  int64
}

// statsAcc accumulates the Stats of a set of jobs.
type statsAcc struct {
	jobs, hit, never int64
	startUnknown     int64
	first, last      time.Time
	users            map[userKey]struct{}
	waits, runs      durationSample
	nodes            map[int32]int64 // NNodes -> jobs
	limits           map[int64]int64 // TimelimitSec -> jobs, NoLimit included
	months           map[int]int64   // 12*year + month-1 -> jobs
}

func (a *statsAcc) add(j *Job) {
	if a.jobs == 0 {
		a.users = map[userKey]struct{}{}
		a.nodes = map[int32]int64{}
		a.limits = map[int64]int64{}
		a.months = map[int]int64{}
	}
	a.jobs++
	if !j.Submit.IsZero() {
		if a.first.IsZero() || j.Submit.Before(a.first) {
			a.first = j.Submit
		}
		if a.last.IsZero() || j.Submit.After(a.last) {
			a.last = j.Submit
		}
		y, m, _ := j.Submit.UTC().Date()
		a.months[12*y+int(m)-1]++
	}
	switch {
	case j.User != "":
		a.users[userKey{name: j.User, uid: NoID}] = struct{}{}
	case j.UID != NoID:
		a.users[userKey{uid: j.UID}] = struct{}{}
	}
	if d, ok := j.Wait(); ok {
		a.waits.add(d)
	}
	if d, ok := j.RunTime(); ok {
		a.runs.add(d)
	}
	if j.HitLimit() {
		a.hit++
	}
	if j.NeverStarted() {
		a.never++
	}
	if j.StartUnknown {
		a.startUnknown++
	}
	a.nodes[j.NNodes]++
	a.limits[j.TimelimitSec]++
}

func (a *statsAcc) clone() *statsAcc {
	c := *a
	c.users = maps.Clone(a.users)
	c.waits = a.waits.clone()
	c.runs = a.runs.clone()
	c.nodes = maps.Clone(a.nodes)
	c.limits = maps.Clone(a.limits)
	c.months = maps.Clone(a.months)
	return &c
}

// stats returns the accumulated Stats; it merges a's sample buffers.
func (a *statsAcc) stats() Stats {
	s := Stats{
		Jobs:             a.jobs,
		Users:            int64(len(a.users)),
		WaitSec:          a.waits.quantiles(),
		RunSec:           a.runs.quantiles(),
		TimeoutJobs:      a.hit,
		CancelledPending: a.never,
		StartUnknown:     a.startUnknown,
		Nodes:            make([]NodeCount, 0, len(a.nodes)),
		Timelimit:        make([]LimitBucket, 0, len(limitBuckets)+1),
		SubmitMonths:     make([]MonthCount, 0, len(a.months)),
	}
	if !a.first.IsZero() {
		s.FirstSubmit, s.LastSubmit = a.first.UTC(), a.last.UTC()
	}
	if a.jobs > 0 {
		s.TimeoutShare = float64(a.hit) / float64(a.jobs)
	}
	for _, n := range slices.Sorted(maps.Keys(a.nodes)) {
		s.Nodes = append(s.Nodes, NodeCount{Nodes: n, Jobs: a.nodes[n]})
	}
	for _, m := range slices.Sorted(maps.Keys(a.months)) {
		s.SubmitMonths = append(s.SubmitMonths, MonthCount{
			Month: fmt.Sprintf("%04d-%02d", m/12, m%12+1),
			Jobs:  a.months[m],
		})
	}
	s.Timelimit, s.TimelimitSec = limitStats(a.limits)
	return s
}

// limitStats buckets the time limits and summarizes the known ones.
func limitStats(limits map[int64]int64) ([]LimitBucket, Quantiles) {
	buckets := make([]LimitBucket, len(limitBuckets)+1)
	for i, lb := range limitBuckets {
		buckets[i].Bucket = lb.label
	}
	buckets[len(limitBuckets)].Bucket = bucketUnlimited
	known := make(map[int64]int64, len(limits))
	for sec, n := range limits {
		if sec == NoLimit {
			buckets[len(limitBuckets)].Jobs += n
			continue
		}
		known[sec] = n
		i := 0
		for sec > limitBuckets[i].maxSec {
			i++
		}
		buckets[i].Jobs += n
	}
	return buckets, countQuantiles(known)
}
