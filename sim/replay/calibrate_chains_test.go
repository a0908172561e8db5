package replay

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// chainTrace returns a trace whose waits two main cycles replay alike
// and whose service chain only one of them interrupts as the trace does:
// a busy week of jobs submitted, started and ended on the hour (an
// hourly main pass starts each when an event-driven one does), then,
// once the queue is empty, a chain of 4.5-hour jobs run to their limit
// and resubmitted when the last ends, each of which really started 30
// minutes after its predecessor ended (an hourly cycle's interruption;
// the event-driven pass has none). The chain's successors are submitted
// after to, so no scored wait sees them.
func chainTrace(t *testing.T, cfg sim.Config, t0, to time.Time) []trace.Job {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 11))
	var jobs []trace.Job
	for at, i := t0, 0; at.Before(to.Add(-48 * time.Hour)); i++ {
		j := trace.NewJob()
		j.JobID, j.User, j.JobName = fmt.Sprint(i), fmt.Sprintf("u%d", i), fmt.Sprintf("j%d", i)
		j.NNodes = int32(1 << rng.IntN(6)) // 1 to 32 of 32 nodes
		run := time.Duration(1+rng.IntN(6)) * time.Hour
		j.TimelimitSec = int64((run + time.Hour) / time.Second) // not run to the limit: no chain
		j.Submit, j.Eligible = at, at
		j.Start, j.End = at, at.Add(run) // provisional: the run time
		j.State = trace.StateCompleted
		jobs = append(jobs, j)
		at = at.Add(time.Duration(rng.IntN(2)) * time.Hour)
	}
	sj, _, err := sim.FromTrace(jobs, sim.FromTraceOptions{MaxNodes: cfg.Nodes})
	if err != nil {
		t.Fatal(err)
	}
	starts, _, err := sim.Replay(context.Background(), cfg, sj)
	if err != nil {
		t.Fatal(err)
	}
	for i := range sj {
		k := slices.IndexFunc(jobs, func(j trace.Job) bool { return j.JobID == sj[i].Name })
		run := jobs[k].End.Sub(jobs[k].Start)
		jobs[k].Start = time.Unix(starts[i], 0).UTC()
		jobs[k].End = jobs[k].Start.Add(run)
	}
	const links = 12
	limit := 4*time.Hour + 30*time.Minute
	start := to.Add(-4 * time.Hour) // an idle cluster: it starts at once
	for k := range links + 1 {
		j := trace.NewJob()
		j.JobID, j.User, j.JobName, j.NNodes = fmt.Sprintf("c%d", k), "service", "svc", 1
		j.TimelimitSec = int64(limit / time.Second)
		j.Submit = start
		if k > 0 {
			j.Submit = start.Add(-30 * time.Minute) // at the predecessor's end
		}
		j.Eligible, j.Start, j.End, j.State = j.Submit, start, start.Add(limit), trace.StateTimeout
		jobs = append(jobs, j)
		start = j.End.Add(30 * time.Minute)
	}
	slices.SortStableFunc(jobs, func(a, b trace.Job) int { return a.Submit.Compare(b.Submit) })
	return jobs
}

// TestCalibrate_ChainsBreakTies: when two settings replay the waits
// alike, the chain term picks the one whose reactive replay of the
// trace's chains loses what the real chains lost; without the chains the
// tie goes to the first.
func TestCalibrate_ChainsBreakTies(t *testing.T) {
	base := mustProfile(t, "default", 32)
	base.NodesFromTrace = false
	eventDriven := Candidate{Priority: "base", Backfill: "none", Cancelled: "leave"}
	hourly := eventDriven
	hourly.MainInterval = 3600
	truth, err := apply(base, hourly, nil)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	to := t0.Add(7 * 24 * time.Hour)
	jobs := chainTrace(t, truth.Config, t0, to)
	for _, c := range []struct {
		name     string
		noChains bool
		want     Candidate
	}{{"chains", false, hourly}, {"no-chains", true, eventDriven}} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Calibrate(context.Background(), In{Trace: "chains", Jobs: jobs, Profile: base},
				CalibrateOptions{From: t0.Unix(), To: to.Unix(), WarmupSec: 86400, Workers: 2, Seed: 1,
					NoChains: c.noChains, NoTune: true, Candidates: []Candidate{eventDriven, hourly}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Trials) != 2 {
				t.Fatalf("%d trials, want 2 (one rung)", len(res.Trials))
			}
			a, b := res.Trials[0].Score, res.Trials[1].Score
			if a.Jobs == 0 || a.Spearman != b.Spearman || a.Within2x != b.Within2x {
				t.Fatalf("the waits do not tie: %+v vs %+v", a, b)
			}
			if res.Best != c.want {
				t.Errorf("best %s, want %s (trials %+v, %+v)", res.Best, c.want, a, b)
			}
			if c.noChains {
				return
			}
			if a.Chains == nil || b.Chains == nil || a.Chains.Links < minChainLinks {
				t.Fatalf("chains not scored: %+v, %+v", a.Chains, b.Chains)
			}
			if got := b.Chains; got.ReactiveH != got.RealH || a.Chains.ReactiveH != 0 {
				t.Errorf("reactive interruption: event-driven %.2f h, hourly %.2f h; real %.2f h (want 0 and the real)",
					a.Chains.ReactiveH, got.ReactiveH, got.RealH)
			}
		})
	}
}
