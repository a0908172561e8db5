package ingest_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/ingest/ls6test"
	"github.com/mirage-hpc/mirage/trace"
)

// naiveWaits summarizes the waits of the trace at path measured on the
// wall clock of loc, ignoring daylight saving, as the artifact did.
func naiveWaits(tb testing.TB, path string, loc *time.Location) trace.Quantiles {
	tb.Helper()
	jobs, err := trace.ReadAll(path)
	if err != nil {
		tb.Fatal(err)
	}
	wall := func(t time.Time) time.Time {
		y, mo, d := t.In(loc).Date()
		h, mi, s := t.In(loc).Clock()
		return time.Date(y, mo, d, h, mi, s, 0, time.UTC)
	}
	var w []float64
	for _, j := range jobs {
		if _, ok := j.Wait(); ok {
			w = append(w, wall(j.Start).Sub(wall(j.Submit)).Seconds())
		}
	}
	return trace.QuantilesOf(w)
}

// TestComputeStats_LS6 checks trace statistics of the real LS6 trace
// against the Mirage artifact's figures (docs: mirage-artifact.md section
// 10), which were computed in naive local time; the figures that daylight
// saving shifts are the UTC ones.
func TestComputeStats_LS6(t *testing.T) {
	out := ls6test.Parquet(t, t.TempDir())
	loc, err := time.LoadLocation("America/Chicago")
	if err != nil {
		t.Fatal(err)
	}
	r, err := trace.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := trace.ComputeStats(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("jobs %d users %d wait %+v run %+v timeout %d (%.4f) cancelled_pending %d first %s last %s",
		s.Jobs, s.Users, s.WaitSec, s.RunSec, s.TimeoutJobs, s.TimeoutShare, s.CancelledPending, s.FirstSubmit, s.LastSubmit)

	if s.Jobs != 24777 {
		t.Errorf("jobs = %d, want 24777", s.Jobs)
	}
	if s.Users != 367 {
		t.Errorf("users = %d, want 367", s.Users)
	}
	if want := time.Date(2022, 10, 5, 16, 52, 48, 0, time.UTC); !s.FirstSubmit.Equal(want) {
		t.Errorf("first_submit = %s, want %s", s.FirstSubmit.Format(time.RFC3339), want.Format(time.RFC3339))
	}
	if s.WaitSec.N != 24777 || s.RunSec.N != 24777 {
		t.Errorf("wait n, run n = %d, %d; want 24777 each", s.WaitSec.N, s.RunSec.N)
	}
	if s.WaitSec.P50 != 25 {
		t.Errorf("wait p50 = %v, want 25", s.WaitSec.P50)
	}
	// The artifact's p90 of 42,897 s is over waits in naive local time; 64
	// waits span a DST change, which moves the UTC p90 to 42,820.4 s
	// (reproduced independently in Python with zoneinfo).
	if math.Abs(s.WaitSec.P90-42820.4) > 1e-6 {
		t.Errorf("wait p90 = %v, want 42820.4", s.WaitSec.P90)
	}
	if naive := naiveWaits(t, out, loc); math.Abs(naive.P90-42897) > 1 || naive.P50 != 25 || naive.N != 24777 {
		t.Errorf("naive local wait = %+v, want p50 25, p90 42897 ± 1 (the artifact's method)", naive)
	}
	if s.RunSec.P50 != 459 {
		t.Errorf("run p50 = %v, want 459", s.RunSec.P50)
	}
	// The artifact counts 3,877 in naive local time; in UTC, ten jobs that
	// span the 2022-11-06 fall-back gain the hour they need.
	if s.TimeoutJobs != 3887 || math.Round(s.TimeoutShare*24777) != 3887 {
		t.Errorf("timeout jobs = %d (share %v), want 3887", s.TimeoutJobs, s.TimeoutShare)
	}
	if s.CancelledPending != 3328 {
		t.Errorf("cancelled_pending = %d, want 3328", s.CancelledPending)
	}
	if s.Partitions != nil {
		t.Errorf("partitions = %d, want none (the trace has no Partition column)", len(s.Partitions))
	}
	var largeJobs int64
	for _, n := range s.Nodes {
		if n.Nodes >= 8 {
			largeJobs += n.Jobs
		}
	}
	if len(s.Nodes) != 16 || s.Nodes[0] != (trace.NodeCount{Nodes: 1, Jobs: 19708}) || largeJobs != 567 {
		t.Errorf("nodes = %+v, want 16 node counts, 19708 one-node jobs, 567 with >= 8 nodes", s.Nodes)
	}
	wantLimits := []trace.LimitBucket{
		{Bucket: "<=1h", Jobs: 6594}, {Bucket: "1-6h", Jobs: 6595}, {Bucket: "6-24h", Jobs: 4778},
		{Bucket: "24-48h", Jobs: 6808}, {Bucket: ">48h", Jobs: 2}, {Bucket: "unlimited", Jobs: 0},
	}
	for i, b := range wantLimits {
		if i >= len(s.Timelimit) || s.Timelimit[i] != b {
			t.Errorf("timelimit = %+v\nwant %+v", s.Timelimit, wantLimits)
			break
		}
	}
	if s.TimelimitSec.P50 != 300*60 {
		t.Errorf("timelimit p50 = %v s, want 18000", s.TimelimitSec.P50)
	}
}
