package trace_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/internal/golden"
	"github.com/mirage-hpc/mirage/trace"
)

func TestQuantilesOf(t *testing.T) {
	// Expected values: numpy.percentile(x, [50, 75, 90, 99]) (linear
	// interpolation), computed by hand with h = (n-1)*p.
	tests := []struct {
		Name string
		X    []float64
		Want trace.Quantiles
	}{
		{"Empty", nil, trace.Quantiles{}},
		{"One", []float64{7}, trace.Quantiles{N: 1, P50: 7, P75: 7, P90: 7, P99: 7, Mean: 7}},
		{"Two", []float64{2.25, 1.5}, trace.Quantiles{N: 2, P50: 1.875, P75: 2.0625, P90: 2.175, P99: 2.2425, Mean: 1.875}},
		{"Four", []float64{1, 2, 3, 4}, trace.Quantiles{N: 4, P50: 2.5, P75: 3.25, P90: 3.7, P99: 3.97, Mean: 2.5}},
		{"Unsorted", []float64{10, 1, 4, 3, 2}, trace.Quantiles{N: 5, P50: 3, P75: 4, P90: 7.6, P99: 9.76, Mean: 4}},
		{"Negative", []float64{3.5, 0, -1, -5}, trace.Quantiles{N: 4, P50: -0.5, P75: 0.875, P90: 2.45, P99: 3.395, Mean: -0.625}},
		{"Ties", []float64{5, 5, 5, 5}, trace.Quantiles{N: 4, P50: 5, P75: 5, P90: 5, P99: 5, Mean: 5}},
		{
			"Waits",
			[]float64{0, 0, 0, 0, 25, 25, 60, 4758, 42897, 172776},
			trace.Quantiles{N: 10, P50: 25, P75: 3583.5, P90: 55884.9, P99: 161086.89, Mean: 22054.1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			got := trace.QuantilesOf(tt.X)
			if !statsQuantilesNear(got, tt.Want) {
				t.Errorf("QuantilesOf(%v)\n got: %+v\nwant: %+v", tt.X, got, tt.Want)
			}
		})
	}
}

func statsQuantilesNear(a, b trace.Quantiles) bool {
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-12*max(1, math.Abs(y)) }
	return a.N == b.N && near(a.P50, b.P50) && near(a.P75, b.P75) && near(a.P90, b.P90) &&
		near(a.P99, b.P99) && near(a.Mean, b.Mean)
}

func TestQuantilesOf_Percentile(t *testing.T) {
	// On 0..100 the p-th percentile is p itself.
	x := make([]float64, 101)
	for i := range x {
		x[100-i] = float64(i)
	}
	got := trace.QuantilesOf(x)
	want := trace.Quantiles{N: 101, P50: 50, P75: 75, P90: 90, P99: 99, Mean: 50}
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

var statsT0 = time.Date(2022, 10, 31, 20, 0, 0, 0, time.UTC)

// statsJob returns a job submitted at statsT0+submit, started wait later and ended
// run after that (seconds; a negative wait or run means unknown).
func statsJob(id, part, user string, uid int64, submit, wait, run, limit int64, nodes int32) trace.Job {
	j := trace.NewJob()
	j.JobID, j.JobIDRaw = id, statsAtoi(id)
	j.Cluster, j.Partition, j.User, j.UID = "c", part, user, uid
	j.State = trace.StateCompleted
	j.Submit = statsT0.Add(time.Duration(submit) * time.Second)
	if wait >= 0 {
		j.Start = j.Submit.Add(time.Duration(wait) * time.Second)
		if run >= 0 {
			j.End = j.Start.Add(time.Duration(run) * time.Second)
		}
	}
	j.TimelimitSec, j.NNodes = limit, nodes
	return j
}

func statsAtoi(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		panic(err)
	}
	return n
}

// statsSmallJobs covers every branch of the statistics: two partitions (the
// second appearing after several jobs), users by name and by UID, a job
// with neither, no Submit, never started, cancelled while pending, at and
// past the limit, unlimited, and submits on both sides of a month end.
func statsSmallJobs() []trace.Job {
	jobs := []trace.Job{
		statsJob("1", "gpu", "alice", 1001, 0, 25, 3600, 3600, 1),          // at its limit
		statsJob("2", "gpu", "alice", 1001, 60, 0, 100, 6*3600, 1),         // 1-6h
		statsJob("3", "gpu", "", 1002, 120, 4000, 7300, 7200, 2),           // by UID; past its limit
		statsJob("4", "gpu", "", trace.NoID, 3600, 1, 10, 24*3600, 4),      // no user
		statsJob("5", "cpu", "bob", 1003, 4*3600, 50000, 0, 48*3600, 1),    // cancelled while pending (Start == End)
		statsJob("6", "cpu", "bob", 1003, 5*3600, -1, -1, 72*3600, 16),     // never started, no Start
		statsJob("7", "cpu", "carol", 1001, 6*3600, 42897, 86400, -1, 2),   // unlimited
		statsJob("8", "gpu", "alice", 1001, 40*86400, 60, 3599, 3600, 1),   // December
		statsJob("9", "", "dave", 1004, 2*86400, 100, 200, 25*3600, 8),     // no partition
		statsJob("10", "gpu", "", 1002, 3*86400, 7, 1800, 30*60, 1),        // by UID again; at its limit
		statsJob("11", "cpu", "erin", trace.NoID, 86400, 0, 30, 600, 1),    // by name, no UID
		statsJob("12", "gpu", "alice", 1001, 50*86400, 500, 5, 3600*49, 1), // >48h
	}
	jobs[4].State = trace.StateCancelled
	jobs[5].State = trace.StateCancelled
	jobs[6].State = trace.StateTimeout
	jobs[10].Submit = time.Time{} // unknown Submit: no wait, no month
	jobs[10].Start = statsT0
	jobs[10].End = statsT0.Add(30 * time.Second)
	return jobs
}

func TestStatsOf_Small(t *testing.T) {
	jobs := statsSmallJobs()
	s := trace.StatsOf(jobs)

	// Spot checks, independent of the golden file.
	if s.Jobs != 12 || s.Users != 6 || s.TimeoutJobs != 3 || s.CancelledPending != 2 {
		t.Errorf("jobs, users, timeout, cancelled = %d, %d, %d, %d; want 12, 6, 3, 2",
			s.Jobs, s.Users, s.TimeoutJobs, s.CancelledPending)
	}
	if s.TimeoutShare != 3.0/12 {
		t.Errorf("timeout_share = %v, want 0.25", s.TimeoutShare)
	}
	if s.WaitSec.N != 10 || s.RunSec.N != 11 || s.TimelimitSec.N != 11 {
		t.Errorf("wait, run, limit n = %d, %d, %d; want 10, 11, 11", s.WaitSec.N, s.RunSec.N, s.TimelimitSec.N)
	}
	if !s.FirstSubmit.Equal(statsT0) || s.FirstSubmit.Location() != time.UTC || !s.LastSubmit.Equal(statsT0.Add(50*24*time.Hour)) {
		t.Errorf("submit span = %v .. %v", s.FirstSubmit, s.LastSubmit)
	}
	var limits []float64
	for _, j := range jobs {
		if j.TimelimitSec != trace.NoLimit {
			limits = append(limits, float64(j.TimelimitSec))
		}
	}
	if want := trace.QuantilesOf(limits); s.TimelimitSec != want {
		t.Errorf("timelimit_sec\n got: %+v\nwant: %+v", s.TimelimitSec, want)
	}
	if len(s.Partitions) != 3 {
		t.Fatalf("partitions = %d, want 3", len(s.Partitions))
	}

	var b bytes.Buffer
	if err := s.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/stats/small.golden.json", b.Bytes())
	var text bytes.Buffer
	if err := s.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/stats/small.golden.txt", text.Bytes())
}

// TestStatsOf_Partitions checks each partition's Stats against StatsOf
// over that partition's jobs alone.
func TestStatsOf_Partitions(t *testing.T) {
	jobs := statsSmallJobs()
	s := trace.StatsOf(jobs)
	for _, p := range s.Partitions {
		var sub []trace.Job
		for _, j := range jobs {
			if j.Partition == p.Partition {
				sub = append(sub, j)
			}
		}
		if want := trace.StatsOf(sub); !reflect.DeepEqual(p.Stats, want) {
			t.Errorf("partition %q\n got: %+v\nwant: %+v", p.Partition, p.Stats, want)
		}
	}

	t.Run("One", func(t *testing.T) {
		one := statsSmallJobs()
		for i := range one {
			one[i].Partition = "gpu"
		}
		if s := trace.StatsOf(one); s.Partitions != nil {
			t.Errorf("one partition: Partitions = %+v, want nil", s.Partitions)
		}
	})
}

func TestStatsOf_Order(t *testing.T) {
	jobs := statsSmallJobs()
	want := statsJSON(t, trace.StatsOf(jobs))
	r := rand.New(rand.NewPCG(1, 2))
	for range 10 {
		r.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
		if got := statsJSON(t, trace.StatsOf(jobs)); got != want {
			t.Fatalf("shuffled input changes the stats:\n got: %s\nwant: %s", got, want)
		}
	}
}

func TestStatsOf_Empty(t *testing.T) {
	got := statsJSON(t, trace.StatsOf(nil))
	want := `{"jobs":0,"users":0,"wait_sec":{"n":0},` +
		`"run_sec":{"n":0},"timeout_jobs":0,"timeout_share":0,` +
		`"cancelled_pending":0,"start_unknown":0,"nodes":[],"timelimit":[{"bucket":"\u003c=1h","jobs":0},{"bucket":"1-6h","jobs":0},` +
		`{"bucket":"6-24h","jobs":0},{"bucket":"24-48h","jobs":0},{"bucket":"\u003e48h","jobs":0},` +
		`{"bucket":"unlimited","jobs":0}],"timelimit_sec":{"n":0},` +
		`"submit_months":[]}`
	if got != want {
		t.Errorf("got:  %s\nwant: %s", got, want)
	}
	var b bytes.Buffer
	if err := trace.StatsOf(nil).WriteText(&b); err != nil {
		t.Fatal(err)
	}
}

// statsStartUnknownJob returns a job submitted at statsT0+submit that ran
// for run seconds from a start the input did not record (SWF wait -1).
func statsStartUnknownJob(id string, submit, run, limit int64, state trace.State) trace.Job {
	j := statsJob(id, "", "u"+id, statsAtoi(id), submit, -1, -1, limit, 2)
	j.State, j.StartUnknown, j.ElapsedSec = state, true, run
	return j
}

// TestStatsOf_StartUnknown checks that jobs that ran from an unknown start
// are counted as such, in run times and at their limit, and never as
// waits or as cancelled while pending.
func TestStatsOf_StartUnknown(t *testing.T) {
	jobs := []trace.Job{
		statsJob("1", "", "u1", 1, 0, 30, 600, 3600, 1),                         // known start
		statsStartUnknownJob("2", 60, 3600, 3600, trace.StateCompleted),         // at its limit
		statsStartUnknownJob("3", 120, 100, 3600, trace.StateFailed),            //
		statsStartUnknownJob("4", 180, 1800, 7200, trace.StateCancelled),        // cancelled while running
		statsStartUnknownJob("5", 240, 0, trace.NoLimit, trace.StateCompleted),  // no limit
		statsJob("6", "", "u6", 6, 300, -1, -1, 3600, 1),                        // never started
		statsStartUnknownJob("7", 360, 7300, 7200, trace.StateCompleted),        // past its limit
		statsStartUnknownJob("8", 420, 50, 3600, trace.StateUnknown),            // SWF status -1
		statsStartUnknownJob("9", 480, 3600*5, 3600*4, trace.StateCancelled),    // cancelled, past
		statsStartUnknownJob("10", 540, 10, 60, trace.StateCompleted),           //
		statsStartUnknownJob("11", 600, 3600, 3600*2, trace.StateCompleted),     //
		statsStartUnknownJob("12", 660, 59, 60, trace.StateCompleted),           //
		statsStartUnknownJob("13", 720, 60, 60, trace.StateCompleted),           // at its limit
		statsStartUnknownJob("14", 780, 100000, 3600*30, trace.StateCompleted),  //
		statsStartUnknownJob("15", 840, 3600*3, 3600*3, trace.StateCompleted),   // at its limit
		statsStartUnknownJob("16", 900, 1, trace.NoLimit, trace.StateCompleted), //
	}
	jobs[5].State = trace.StateCancelled
	s := trace.StatsOf(jobs)
	if s.Jobs != 16 || s.StartUnknown != 14 || s.CancelledPending != 1 {
		t.Errorf("jobs, start unknown, cancelled pending = %d, %d, %d; want 16, 14, 1", s.Jobs, s.StartUnknown, s.CancelledPending)
	}
	if s.WaitSec.N != 1 || s.WaitSec.P50 != 30 || s.RunSec.N != 15 {
		t.Errorf("wait n %d p50 %v, run n %d; want 1, 30, 15", s.WaitSec.N, s.WaitSec.P50, s.RunSec.N)
	}
	if s.TimeoutJobs != 5 {
		t.Errorf("timeout jobs = %d, want 5 (jobs 2, 7, 9, 13, 15)", s.TimeoutJobs)
	}
	var b bytes.Buffer
	if err := s.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/stats/start_unknown.golden.json", b.Bytes())
	var text bytes.Buffer
	if err := s.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/stats/start_unknown.golden.txt", text.Bytes())
	if !bytes.Contains(text.Bytes(), []byte("start unknown  14 (87.50%)  ran; not in wait")) {
		t.Errorf("text has no start-unknown line:\n%s", text.Bytes())
	}
}

func statsJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// statsWriteTrace writes jobs to a trace file in a temporary directory.
func statsWriteTrace(tb testing.TB, jobs []trace.Job, opts trace.WriterOptions) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "t.parquet")
	w, err := trace.Create(path, opts)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range jobs {
		if err := w.Write(&jobs[i]); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

func TestComputeStats(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		// More jobs than a read batch and a row group.
		var jobs []trace.Job
		for i := range 10000 {
			part := []string{"a", "b", "c"}[i%7%3]
			jobs = append(jobs, statsJob(strconv.Itoa(i+1), part, "u"+strconv.Itoa(i%37), int64(i%37),
				int64(i*97%86400*30), int64(i*i%50000), int64(i*31%90000), []int64{1800, 3600, 86400, -1}[i%4], int32(1+i%5)))
		}
		path := statsWriteTrace(t, jobs, trace.WriterOptions{RowGroupRows: 3000})
		r, err := trace.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		got, err := trace.ComputeStats(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := statsJSON(t, got), statsJSON(t, trace.StatsOf(jobs)); g != w {
			t.Errorf("ComputeStats differs from StatsOf:\n got: %s\nwant: %s", g, w)
		}
	})
	t.Run("ErrCanceled", func(t *testing.T) {
		r, err := trace.Open(statsWriteTrace(t, statsSmallJobs(), trace.WriterOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := trace.ComputeStats(ctx, r); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

func ExampleStats_WriteText() {
	t := time.Date(2023, 3, 1, 12, 0, 0, 0, time.UTC)
	var jobs []trace.Job
	for i, wait := range []time.Duration{25 * time.Second, 2 * time.Hour, 10 * time.Minute} {
		j := trace.NewJob()
		j.JobID, j.UID, j.NNodes, j.TimelimitSec = strconv.Itoa(i+1), int64(i), 1, 3600
		j.Submit = t
		j.Start = t.Add(wait)
		j.End = j.Start.Add(time.Duration(i+1) * 30 * time.Minute)
		jobs = append(jobs, j)
	}
	trace.StatsOf(jobs).WriteText(os.Stdout)
	// Output:
	// jobs       3
	// submit     2023-03-01T12:00:00Z .. 2023-03-01T12:00:00Z
	// users      3
	// wait       p50 10.0m  p75 1.08h  p90 1.63h  p99 1.96h  mean 43.5m  n 3
	// run        p50 1.00h  p75 1.25h  p90 1.40h  p99 1.49h  mean 1.00h  n 3
	// limit      p50 1.00h  p75 1.00h  p90 1.00h  p99 1.00h  mean 1.00h  n 3
	// at limit   2 (66.67%)
	// never ran  0 (0.00%)
	// limits     <=1h 3  1-6h 0  6-24h 0  24-48h 0  >48h 0  unlimited 0
	// nodes      1:3
	// months     2023-03:3
}

func BenchmarkStatsOf(b *testing.B) {
	jobs := make([]trace.Job, 100000)
	for i := range jobs {
		jobs[i] = statsJob(strconv.Itoa(i+1), []string{"a", "b"}[i%2], "u"+strconv.Itoa(i%300), int64(i%300),
			int64(i*13), int64(i*i%90000), int64(i*31%90000), []int64{1800, 3600, 86400, -1}[i%4], int32(1+i%9))
	}
	if s := trace.StatsOf(jobs); s.Jobs != int64(len(jobs)) || len(s.Partitions) != 2 {
		b.Fatalf("stats = %+v", s)
	}
	b.ReportAllocs()
	for b.Loop() {
		trace.StatsOf(jobs)
	}
}

// TestStatsOf_NoKnownWait checks that a trace whose waits are all unknown
// has no wait percentiles in JSON (absent, not 0) and says why in text.
func TestStatsOf_NoKnownWait(t *testing.T) {
	jobs := []trace.Job{
		statsStartUnknownJob("1", 0, 600, 3600, trace.StateCompleted),
		statsStartUnknownJob("2", 60, 300, 3600, trace.StateCompleted),
	}
	st := trace.StatsOf(jobs)
	js := statsJSON(t, st)
	if !strings.Contains(js, `"wait_sec":{"n":0},`) || !strings.Contains(js, `"run_sec":{"n":2,"p50":450,`) {
		t.Errorf("JSON %s\nwant wait_sec {\"n\":0} and run times", js)
	}
	var b bytes.Buffer
	if err := st.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	const want = "wait           -  (no job has a known wait: 2 ran from a start the trace did not record, 0 never ran)\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("text:\n%s\nwant the line %q", b.String(), want)
	}
}

// statsReference is StatsOf as it was before ComputeStats kept its wait
// and run times as durationSamples: those quantiles from QuantilesOf over
// every job's value in seconds, for the trace and each partition.
func statsReference(jobs []trace.Job) trace.Stats {
	quantiles := func(part *string) (wait, run trace.Quantiles) {
		var ws, rs []float64
		for i := range jobs {
			j := &jobs[i]
			if part != nil && j.Partition != *part {
				continue
			}
			if d, ok := j.Wait(); ok {
				ws = append(ws, d.Seconds())
			}
			if d, ok := j.RunTime(); ok {
				rs = append(rs, d.Seconds())
			}
		}
		return trace.QuantilesOf(ws), trace.QuantilesOf(rs)
	}
	s := trace.StatsOf(jobs)
	s.WaitSec, s.RunSec = quantiles(nil)
	for i := range s.Partitions {
		p := &s.Partitions[i]
		p.WaitSec, p.RunSec = quantiles(&p.Partition)
	}
	return s
}

// statsRandomJobs returns n jobs in three partitions with times at
// nanosecond precision: waits from -1 h to 3 days (some negative), run
// times up to 2 days, some unknown starts and ends.
func statsRandomJobs(r *rand.Rand, n int) []trace.Job {
	jobs := make([]trace.Job, n)
	for i := range jobs {
		j := trace.NewJob()
		j.JobID, j.JobIDRaw = strconv.Itoa(i+1), int64(i+1)
		j.Partition, j.UID, j.NNodes = []string{"a", "b", ""}[r.IntN(3)], int64(r.IntN(50)), int32(1+r.IntN(8))
		j.State, j.TimelimitSec = trace.StateCompleted, []int64{1800, 3600, 86400, trace.NoLimit}[r.IntN(4)]
		j.Submit = statsT0.Add(time.Duration(r.Int64N(int64(90 * 24 * time.Hour))))
		unit := []time.Duration{time.Second, time.Millisecond, 1}[r.IntN(3)]
		if r.IntN(20) > 0 {
			j.Start = j.Submit.Add(time.Duration(r.Int64N(3*86400*int64(time.Second/unit))-int64(time.Hour/unit)) * unit)
			if r.IntN(20) > 0 {
				j.End = j.Start.Add(time.Duration(r.Int64N(2*86400*int64(time.Second/unit))) * unit)
			}
		}
		jobs[i] = j
	}
	return jobs
}

// TestStatsOf_Reference checks that the wait and run quantiles are those
// of QuantilesOf over every job (statsReference), bit for bit, so that
// the JSON and text forms are byte for byte what they were: in memory at
// nanosecond precision, and read back from Parquet (milliseconds) by
// ComputeStats.
func TestStatsOf_Reference(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 11))
	for _, n := range []int{0, 1, 2, 17, 1000, 50000} {
		jobs := statsRandomJobs(r, n)
		t.Run("StatsOf"+strconv.Itoa(n), func(t *testing.T) {
			statsCheckSame(t, trace.StatsOf(jobs), statsReference(jobs))
		})
		t.Run("ComputeStats"+strconv.Itoa(n), func(t *testing.T) {
			path := statsWriteTrace(t, jobs, trace.WriterOptions{RowGroupRows: 7000})
			back, err := trace.ReadAll(path)
			if err != nil {
				t.Fatal(err)
			}
			r, err := trace.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got, err := trace.ComputeStats(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			statsCheckSame(t, got, statsReference(back))
		})
	}
}

// statsCheckSame compares the JSON and text forms of got and want byte
// for byte.
func statsCheckSame(t *testing.T, got, want trace.Stats) {
	t.Helper()
	for _, form := range []struct {
		name  string
		write func(trace.Stats, io.Writer) error
	}{{"JSON", trace.Stats.WriteJSON}, {"text", trace.Stats.WriteText}} {
		var g, w bytes.Buffer
		if err := form.write(got, &g); err != nil {
			t.Fatal(err)
		}
		if err := form.write(want, &w); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(g.Bytes(), w.Bytes()) {
			t.Errorf("%s differs from the reference:\n got: %s\nwant: %s", form.name, g.Bytes(), w.Bytes())
		}
	}
}
