package sim_test

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/simtest"
)

// runSkip runs jobs to the end with skipRun on (or off, stepwise) and
// returns each job's start and end, the passes' work and the jobs
// skipped in bulk.
func runSkip(tb interface {
	Helper()
	Fatal(...any)
}, cfg sim.Config, jobs []sim.Job, stepwise bool) ([]int64, sim.Work, int64) {
	tb.Helper()
	var s *sim.Sim
	out, w := schedule(tb, sim.New, cfg, jobs, func(x *sim.Sim) {
		s = x
		if stepwise {
			sim.NoSkipRun(x)
		}
	})
	return out, w, sim.BulkSkipped(s)
}

// TestProperty_SkipRunEqualsStepwise: counting skipped jobs in bulk
// changes nothing: on random workloads (every priority factor, age caps,
// fair-share, held and cancelled jobs, test limits), half of them
// crowded so that long queues build up, the schedule and every work
// counter (jobs tested and skipped per pass included) are those of a
// pass that steps over each skipped job.
func TestProperty_SkipRunEqualsStepwise(t *testing.T) {
	o := allFeatures
	o.limits = false // per-user limits turn bulk skipping off
	o.maxJobs = 400
	bulkRuns := 0 // workloads where some jobs were skipped in bulk (about one in eight)
	rapid.Check(t, func(t *rapid.T) {
		cfg, jobs := genWorkload(t, o)
		if rapid.Bool().Draw(t, "crowded") {
			cfg.Nodes = min(cfg.Nodes, rapid.IntRange(1, 8).Draw(t, "crowded nodes"))
			cfg.Capacity = nil
			for i := range jobs {
				jobs[i].Nodes = min(jobs[i].Nodes, int32(cfg.Nodes))
			}
		}
		got, gw, bulkN := runSkip(t, cfg, jobs, false)
		if bulkN > 0 {
			bulkRuns++
		}
		want, ww, _ := runSkip(t, cfg, jobs, true)
		if !slices.Equal(got, want) {
			t.Fatalf("schedule with bulk skipping differs from the stepwise one")
		}
		if gw != ww {
			t.Fatalf("work with bulk skipping %+v, stepwise %+v", gw, ww)
		}
	})
	if bulkRuns == 0 {
		t.Fatalf("no workload skipped jobs in bulk: the property was not exercised")
	}
}

// TestSkipRun_DeepQueue: on an overloaded queue of capped jobs from a few
// users (long streaks of equal priority), most skipped jobs are counted
// in bulk, and the result is the stepwise one, with the test limit
// reached in some passes.
func TestSkipRun_DeepQueue(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Nodes = 32
	cfg.Priority.MaxAgeSec = 3600
	cfg.Backfill.MaxJobTest = 500
	var jobs []sim.Job
	for i := range int64(4000) {
		// Mostly long jobs, a short one every 7th: the short ones are
		// what a pass plans among the skipped ones.
		limit, run := int64(12*3600), int64(6*3600+60*(i%50))
		if i%7 == 0 {
			limit, run = 1200, 900
		}
		j := simtest.Job(int32(1+i%4), 60*i, limit, run)
		j.User = int32(i % 5)
		jobs = append(jobs, j)
	}
	got, gw, bulk := runSkip(t, cfg, jobs, false)
	want, ww, _ := runSkip(t, cfg, jobs, true)
	if !slices.Equal(got, want) {
		t.Fatalf("schedule with bulk skipping differs from the stepwise one")
	}
	if gw != ww {
		t.Fatalf("work with bulk skipping %+v, stepwise %+v", gw, ww)
	}
	if gw.BackfillMaxTested != cfg.Backfill.MaxJobTest {
		t.Fatalf("no pass reached the test limit %d (at most %d tested)", cfg.Backfill.MaxJobTest, gw.BackfillMaxTested)
	}
	if bulk < gw.BackfillSkipped/2 {
		t.Fatalf("%d of %d skipped jobs counted in bulk, want at least half", bulk, gw.BackfillSkipped)
	}
	t.Logf("%d passes, %d tested, %d skipped, %d of them in bulk", gw.BackfillPasses, gw.BackfillTested, gw.BackfillSkipped, bulk)
}
