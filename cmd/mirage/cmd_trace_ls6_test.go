package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/mirage-hpc/mirage/internal/testenv"
	"github.com/mirage-hpc/mirage/trace"
)

// traceStatsReference is trace.StatsOf as it was before the statistics
// kept wait and run times as (distinct value, count) lists: those
// quantiles from trace.QuantilesOf over every job's value in seconds, for
// the trace and each partition.
func traceStatsReference(jobs []trace.Job) trace.Stats {
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

// TestTraceStats_LS6Unchanged checks that `trace stats` on the LS6 trace
// prints, in JSON and in text, byte for byte what the statistics printed
// when they kept every wait and run time (traceStatsReference).
func TestTraceStats_LS6Unchanged(t *testing.T) {
	ls6 := testenv.LS6(t)
	out := filepath.Join(t.TempDir(), "ls6.parquet")
	if _, stderr, code := run(t, "ingest", "--tz", "America/Chicago", "--cluster", "ls6", "-o", out, ls6); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	jobs, err := trace.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	ref := traceStatsReference(jobs)
	if ref.Jobs != 24777 || ref.WaitSec.N == 0 || ref.RunSec.N == 0 {
		t.Fatalf("reference: %d jobs, %d waits, %d run times", ref.Jobs, ref.WaitSec.N, ref.RunSec.N)
	}
	var wantJSON, wantText bytes.Buffer
	if err := ref.WriteJSON(&wantJSON); err != nil {
		t.Fatal(err)
	}
	if err := ref.WriteText(&wantText); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want []byte
	}{
		{"JSON", []string{"trace", "stats", out, "--json"}, wantJSON.Bytes()},
		{"Text", []string{"trace", "stats", out}, wantText.Bytes()},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := run(t, c.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if stdout != string(c.want) {
				t.Errorf("trace stats differs from the reference:\n got: %s\nwant: %s", stdout, c.want)
			}
		})
	}
}
