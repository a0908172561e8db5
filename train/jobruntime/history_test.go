package jobruntime_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/trace"
	"github.com/mirage-hpc/mirage/train/jobruntime"
)

// mkJob returns a job of user u named name submitted at sub, started at
// start and ended at end (seconds after t0; start < 0: never started),
// with a limit of limit seconds.
func mkJob(u, name string, sub, start, end, limit int64) trace.Job {
	t0 := time.Date(2023, 1, 2, 0, 0, 0, 0, time.UTC)
	j := trace.NewJob()
	j.JobID = u + "-" + name + "-" + strconv.FormatInt(sub, 10)
	j.User, j.JobName, j.Account, j.Partition = u, name, "acct-"+u, "gpu-a100"
	j.NNodes, j.TimelimitSec = 1, limit
	j.Submit = t0.Add(time.Duration(sub) * time.Second)
	if start >= 0 {
		j.Start = t0.Add(time.Duration(start) * time.Second)
		j.End = t0.Add(time.Duration(end) * time.Second)
		j.State = trace.StateCompleted
	}
	return j
}

func TestBuildHistory_Causal(t *testing.T) {
	// alice's a0 ends at 110 with ratio 0.1; a1 runs 50..1050 (ratio 1,
	// at its limit); bob's b0 ends at 100.
	jobs := []trace.Job{
		mkJob("alice", "sim", 0, 10, 110, 1000),    // 0: ratio 0.1
		mkJob("alice", "sim", 50, 50, 1050, 1000),  // 1: ratio 1 (limit)
		mkJob("bob", "sim", 0, 0, 100, 100),        // 2: ratio 1, another user
		mkJob("alice", "post", 109, 200, 300, 200), // 3: a0 ends after its submission
		mkJob("alice", "sim", 110, 120, 220, 1000), // 4: a0 ended exactly at its submission
		mkJob("alice", "sim", 1049, -1, 0, 1000),   // 5: a1 still running
		mkJob("alice", "sim", 1050, 1060, 1160, 1000),
		mkJob("carol", "x", 5000, 5000, 5100, 1000), // 7: no history at all
	}
	nan := math.NaN()
	tests := []struct {
		Name string
		Job  int
		// Want: user_prev_jobs, user_ratio_median, user_ratio_last,
		// name_prev_jobs, name_ratio_median, user_running_jobs.
		Want [6]float64
	}{
		{"NoHistoryYet", 1, [6]float64{0, nan, nan, 0, nan, 1}},
		{"EndedOneSecondLater", 3, [6]float64{0, nan, nan, 0, nan, 2}},
		{"EndedAtSubmission", 4, [6]float64{1, 0.1, 0.1, 1, 0.1, 1}},
		{"RunningJobNotHistory", 5, [6]float64{3, 0.1, 0.5, 2, 0.1, 1}},
		{"EndedAtSubmissionAtLimit", 6, [6]float64{4, 0.3, 1, 3, 0.1, 0}},
		{"OtherUsersNeverCount", 7, [6]float64{0, nan, nan, 0, nan, 0}},
	}
	h := jobruntime.BuildHistory(jobs, jobruntime.HistoryOptions{})
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			i := tt.Job
			got := [6]float64{h.UserPrevJobs[i], h.UserRatioMedian[i], h.UserRatioLast[i], h.NamePrevJobs[i], h.NameRatioMedian[i], h.UserRunning[i]}
			for k := range got {
				if !(got[k] == tt.Want[k] || math.IsNaN(got[k]) && math.IsNaN(tt.Want[k]) || math.Abs(got[k]-tt.Want[k]) < 1e-12) {
					t.Errorf("job %d:\n got %v\nwant %v", i, got, tt.Want)
					break
				}
			}
		})
	}
}

// TestBuildHistory_FutureInvariant changes the outcome of every job that
// ends after a job's submission and checks that the job's history
// columns do not change.
func TestBuildHistory_FutureInvariant(t *testing.T) {
	jobs := synthJobs(400, 7)
	h := jobruntime.BuildHistory(jobs, jobruntime.HistoryOptions{})
	rng := rand.New(rand.NewPCG(1, 2))
	for _, i := range []int{10, 100, 200, 333, 399} {
		sub := jobs[i].Submit
		alt := append([]trace.Job(nil), jobs...)
		for k := range alt {
			if k != i && !alt[k].End.IsZero() && alt[k].End.After(sub) {
				alt[k] = futureOutcome(alt[k], sub, rng)
			}
		}
		h2 := jobruntime.BuildHistory(alt, jobruntime.HistoryOptions{})
		for c, col := range historyCols(h) {
			a, b := col[i], historyCols(h2)[c][i]
			if a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
				t.Errorf("job %d, column %d: %v with the real future, %v with another", i, c, a, b)
			}
		}
	}
}

// futureOutcome returns j with another outcome that is still unknown at
// sub: a Start after sub moves, an End after sub moves (staying after
// sub), a Start at or before sub (known then) stays.
func futureOutcome(j trace.Job, sub time.Time, rng *rand.Rand) trace.Job {
	if j.Start.After(sub) {
		j.Start = sub.Add(time.Duration(1+rng.IntN(1000)) * time.Second)
	}
	from := sub
	if j.Start.After(from) {
		from = j.Start
	}
	j.End = from.Add(time.Duration(1+rng.IntN(100000)) * time.Second)
	return j
}

func historyCols(h *jobruntime.History) [][]float64 {
	return [][]float64{h.UserPrevJobs, h.UserRatioMedian, h.UserRatioStd, h.UserRatioMean2, h.UserRatioLast,
		h.UserAtLimitShare, h.UserRunMedianLog10, h.UserLimitMedianLog10, h.NameRatioMedian, h.NamePrevJobs,
		h.SinceLastEndLog10, h.UserRunning}
}

// synthJobs returns n jobs of a few users over about n hours: each user
// has a typical ratio, names repeat, some jobs fail at once or hit the
// limit. Deterministic in seed.
func synthJobs(n int, seed uint64) []trace.Job {
	rng := rand.New(rand.NewPCG(seed, 99))
	users := []string{"u0", "u1", "u2", "u3", "u4", "u5"}
	typical := []float64{0.05, 0.3, 0.9, 0.5, 0.01, 0.7}
	limits := []int64{3600, 4 * 3600, 12 * 3600, 48 * 3600}
	jobs := make([]trace.Job, 0, n)
	for i := range n {
		u := rng.IntN(len(users))
		sub := int64(i)*3600 + rng.Int64N(3600)
		lim := limits[(u+rng.IntN(2))%len(limits)]
		r := typical[u] * math.Exp(0.4*rng.NormFloat64())
		switch x := rng.Float64(); {
		case x < 0.1:
			r = 0
		case x < 0.2:
			r = 1
		}
		run := int64(math.Min(1, r) * float64(lim))
		wait := rng.Int64N(1800)
		j := mkJob(users[u], "job"+strconv.Itoa(rng.IntN(3)), sub, sub+wait, sub+wait+run, lim)
		j.Account = "a" + strconv.Itoa(u%3)
		j.NNodes = int32(1 + rng.IntN(2)*3)
		jobs = append(jobs, j)
	}
	return jobs
}
