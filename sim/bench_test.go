package sim_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/ingest/ls6test"
	"github.com/mirage-hpc/mirage/internal/testenv"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

var (
	ls6Once sync.Once
	ls6Jobs []sim.Job
	ls6Err  error
)

// ls6 returns the LS6 trace as sim jobs (ingested once per process).
func ls6(tb testing.TB) []sim.Job {
	tb.Helper()
	testenv.LS6(tb) // skips without ../shared, outside the Once
	ls6Once.Do(func() {
		dir, err := testenvTempDir()
		if err != nil {
			ls6Err = err
			return
		}
		out := ls6test.Parquet(tb, dir)
		tj, err := trace.ReadAll(out)
		if err != nil {
			ls6Err = err
			return
		}
		ls6Jobs, _, ls6Err = sim.FromTrace(tj, sim.FromTraceOptions{})
	})
	if ls6Err != nil {
		tb.Fatal(ls6Err)
	}
	return ls6Jobs
}

// BenchmarkReplay_LS6 replays all of LS6 (24,777 jobs, 5 months) on 88
// nodes with conservative backfill every 10 minutes.
func BenchmarkReplay_LS6(b *testing.B) {
	jobs := ls6(b)
	for _, prof := range []string{"default", "mirage-compat"} {
		b.Run(prof, func(b *testing.B) {
			p, _ := sim.LoadProfile(prof)
			cfg := p.Config
			var events int64
			b.ReportAllocs()
			for range b.N {
				_, ev, err := sim.Replay(context.Background(), cfg, jobs)
				if err != nil {
					b.Fatal(err)
				}
				events = ev
			}
			b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/replay")
		})
	}
}

// BenchmarkClone_LS6 forks a simulation warmed up to 2023-01-15 (mid-trace).
func BenchmarkClone_LS6(b *testing.B) {
	jobs := ls6(b)
	s, err := sim.New(sim.DefaultConfig(), jobs, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.RunUntil(context.Background(), time.Date(2023, 1, 15, 0, 0, 0, 0, time.UTC).Unix()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var c *sim.Sim
	for range b.N {
		c = s.Clone(nil)
	}
	_ = c
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/clone")
}

// BenchmarkNew_LS6 builds a simulation of all of LS6 (24,777 jobs): the
// copy into the job table (TableOf: rows and name blocks) and the checks.
func BenchmarkNew_LS6(b *testing.B) {
	jobs := ls6(b)
	b.ReportAllocs()
	for range b.N {
		if _, err := sim.New(sim.DefaultConfig(), jobs, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(jobs)), "ns/job")
}
