package sim_test

import (
	"context"
	"testing"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/simtest"
)

// ran returns a job of user u that ran in the trace from start for run
// seconds under a limit.
func ran(u int32, submit, start, limit, run int64) sim.Job {
	j := simtest.Job(1, submit, limit, run)
	j.User, j.TraceStart = u, start
	return j
}

// TestPredictRunTimes: a job's prediction is the mean ratio of its
// user's last K jobs ended at or before its submission, times its limit,
// clamped to [MinSec, limit]; other users, later ends, cancelled jobs and
// unknown users never count.
func TestPredictRunTimes(t *testing.T) {
	const b = 10000 // TraceStart 0 means "never started"
	jobs := []sim.Job{
		ran(0, b, b, 1000, 100),         // 0: ends b+100, ratio 0.1
		ran(0, b, b, 1000, 300),         // 1: ends b+300, ratio 0.3
		ran(0, b, b, 1000, 500),         // 2: ends b+500, ratio 0.5
		ran(1, b, b, 1000, 900),         // 3: user 1, ends b+900, ratio 0.9
		ran(0, b+300, b+400, 2000, 50),  // 4: jobs 0, 1 → 0.2 × 2000; ends b+450, ratio 0.025
		ran(0, b+500, b+600, 2000, 50),  // 5: the last two ended by b+500: 4, 2 → 0.2625 × 2000
		ran(0, b+99, b+5000, 2000, 50),  // 6: nothing ended by b+99 → 0
		ran(-1, b+1000, b+1000, 100, 5), // 7: unknown user → 0
		ran(1, b+950, b+1000, 100, 5),   // 8: user 1's job 3 → 0.9 × 100
		ran(0, b+499, b+600, 100000, 5), // 9: jobs 1, 4 → 0.1625 × 100000
		ran(2, b, b, 100, 100),          // 10: its own end is later → 0
		{User: 2, Nodes: 1, Submit: b, LimitSec: 1000, Cancel: b + 10, After: sim.NoJob}, // 11: cancelled: no history
		ran(2, b+50, b+60, 1000, 10), // 12: job 10 ends at b+100, job 11 never ran → 0
	}
	sim.PredictRunTimes(jobs, sim.RunTimeHistory{})
	want := []int64{0, 0, 0, 0, 400, 525, 0, 0, 90, 16250, 0, 0, 0}
	for i, w := range want {
		if got := jobs[i].PredRunSec; got != w {
			t.Errorf("job %d: PredRunSec = %d, want %d", i, got, w)
		}
	}
	// K = 1 and the clamp to MinSec.
	jobs2 := []sim.Job{ran(0, b, b, 1000, 1), ran(0, b+10, b+10, 1000, 1000)}
	sim.PredictRunTimes(jobs2, sim.RunTimeHistory{K: 1, MinSec: 120})
	if got := jobs2[1].PredRunSec; got != 120 {
		t.Errorf("K=1, MinSec=120: PredRunSec = %d, want 120", got)
	}
}

// TestPredictRunTimes_Causal: a job's prediction does not change when
// every job ending after its submission is removed.
func TestPredictRunTimes_Causal(t *testing.T) {
	var jobs []sim.Job
	for i := int64(0); i < 200; i++ {
		jobs = append(jobs, ran(int32(i%3), 10000+i*50, 10000+i*50+i%7*10, 1000, (i*37)%1000+1))
	}
	sim.PredictRunTimes(jobs, sim.RunTimeHistory{K: 3})
	for _, cut := range []int{20, 77, 150} {
		at := jobs[cut].Submit
		var kept []sim.Job
		for _, j := range jobs {
			if j.TraceStart+j.RunSec <= at || j.Submit == at {
				kept = append(kept, j)
			}
		}
		sim.PredictRunTimes(kept, sim.RunTimeHistory{K: 3})
		for _, j := range kept {
			if j.Submit == at && j.PredRunSec != jobs[cut].PredRunSec {
				t.Errorf("job submitted at %d: %d with the future removed, %d with it", at, j.PredRunSec, jobs[cut].PredRunSec)
			}
		}
	}
}

// TestEstimatedStartPredicted: on 2 nodes, a runs [0, 300) with limit
// 1000 and b (2 nodes, limit 1000) waits. A 1-node job is planned after
// b by the limits (b from 1000, so the job at 2000); with a predicted
// to end at 300, b is planned at 300 and the job at 1300. Once a outlives
// its prediction, the limit counts again.
func TestEstimatedStartPredicted(t *testing.T) {
	cfg := simtest.Cluster(2)
	cfg.Backfill.ResolutionSec = 1
	a := simtest.Job(2, 0, 1000, 1000)
	a.PredRunSec = 300
	b := simtest.Job(2, 1, 1000, 1000)
	b.PredRunSec = 1000
	ctx := context.Background()
	s := mustSim(t, cfg, []sim.Job{a, b})
	if err := s.RunUntil(ctx, 10); err != nil {
		t.Fatal(err)
	}
	j := simtest.Job(1, 10, 1000, 1000)
	j.PredRunSec = 1 // j itself is planned with its limit
	if got, ok := s.EstimatedStart(j); !ok || got != 2000 {
		t.Errorf("EstimatedStart = %d, %v; want 2000", got, ok)
	}
	if got, ok := s.EstimatedStartPredicted(j); !ok || got != 1300 {
		t.Errorf("EstimatedStartPredicted = %d, %v; want 1300", got, ok)
	}
	if err := s.RunUntil(ctx, 400); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.EstimatedStartPredicted(j); !ok || got != 2000 {
		t.Errorf("after a outlived its prediction: EstimatedStartPredicted = %d, %v; want 2000", got, ok)
	}
}
