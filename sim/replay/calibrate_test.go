package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// truthTrace returns a seeded busy trace of n jobs whose real starts are the
// simulation of its jobs under cfg: the settings Calibrate should find.
func truthTrace(t *testing.T, cfg sim.Config, seed uint64, n int) []trace.Job {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var jobs []trace.Job
	at := t0
	for i := range n {
		j := trace.NewJob()
		j.JobID = fmt.Sprint(i)
		j.User = fmt.Sprintf("u%d", rng.IntN(12))
		j.NNodes = int32(1 << rng.IntN(5)) // 1 to 16 of 32 nodes
		run := time.Duration(600+rng.IntN(8*3600)) * time.Second
		j.TimelimitSec = int64(run/time.Second) * 3 / 2
		at = at.Add(time.Duration(rng.ExpFloat64()*900) * time.Second)
		j.Submit, j.Eligible = at, at
		j.Start, j.End = at, at.Add(run) // provisional: the run time
		j.State = trace.StateCompleted
		jobs = append(jobs, j)
	}
	sj, _, err := sim.FromTrace(jobs, sim.FromTraceOptions{MaxNodes: cfg.Nodes})
	if err != nil {
		t.Fatal(err)
	}
	starts, _, err := sim.Replay(context.Background(), cfg, sj)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]int64{}
	for i := range sj {
		byName[sj[i].Name] = starts[i]
	}
	for i := range jobs {
		s, ok := byName[jobs[i].JobID]
		if !ok || s < 0 {
			t.Fatalf("job %s not started in the truth replay", jobs[i].JobID)
		}
		run := jobs[i].End.Sub(jobs[i].Start)
		jobs[i].Start = time.Unix(s, 0).UTC()
		jobs[i].End = jobs[i].Start.Add(run)
	}
	return jobs
}

// TestCalibrate_RecoversSettings: on a trace whose waits are a
// simulation with known settings, the calibration finds them: FCFS vs
// multifactor priority, EASY vs conservative backfill.
func TestCalibrate_RecoversSettings(t *testing.T) {
	base := mustProfile(t, "default", 32)
	base.NodesFromTrace = false
	for _, c := range []struct {
		name               string
		priority, backfill string
	}{
		{"FCFS-EASY", "fcfs", "easy"},
		{"Multifactor-Conservative", "base", "conservative"},
	} {
		t.Run(c.name, func(t *testing.T) {
			truth, err := apply(base, Candidate{Priority: c.priority, Backfill: c.backfill, Cancelled: "leave"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			jobs := truthTrace(t, truth.Config, 3, 1500)
			from := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
			to := time.Date(2024, 1, 15, 0, 0, 0, 0, time.UTC).Unix()
			res, err := Calibrate(context.Background(), In{Trace: "truth", Jobs: jobs, Profile: base},
				CalibrateOptions{From: from, To: to, WarmupSec: 86400, Workers: 2, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if res.Best.Priority != c.priority || res.Best.Backfill != c.backfill {
				t.Errorf("best %s (Spearman %.3f, within 2x %.3f); want priority=%s backfill=%s", res.Best, res.Fitted.Spearman, res.Fitted.Within2x,
					c.priority, c.backfill)
			}
			if res.Fitted.Spearman < 0.95 {
				t.Errorf("fitted Spearman %.3f on a trace the settings made: want about 1", res.Fitted.Spearman)
			}
			t.Logf("%s: best %s, Spearman %.3f, within 2x %.3f; check %.3f; %d replays", c.name, res.Best, res.Fitted.Spearman, res.Fitted.Within2x, res.CheckFitted.Spearman, res.Replays)
		})
	}
}

// TestCalibrate_Deterministic: the result does not depend on the
// workers.
func TestCalibrate_Deterministic(t *testing.T) {
	base := mustProfile(t, "default", 32)
	base.NodesFromTrace = false
	truth, err := apply(base, Candidate{Priority: "fcfs", Backfill: "easy", Cancelled: "leave"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	jobs := truthTrace(t, truth.Config, 4, 800)
	from := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	to := time.Date(2024, 1, 20, 0, 0, 0, 0, time.UTC).Unix()
	var out []string
	for _, w := range []int{1, 3} {
		res, err := Calibrate(context.Background(), In{Trace: "truth", Jobs: jobs, Profile: base},
			CalibrateOptions{From: from, To: to, WarmupSec: 86400, Workers: w, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	if out[0] != out[1] {
		t.Error("the calibration differs between 1 and 3 workers")
	}
}

// TestMonths: a span cut mid-month gives the month's parts with the
// same name and their own bounds (the calibration's replays are keyed
// and scored by the bounds, not the name).
func TestMonths(t *testing.T) {
	loc := time.UTC
	from := time.Date(2024, 1, 10, 0, 0, 0, 0, loc).Unix()
	to := time.Date(2024, 3, 5, 0, 0, 0, 0, loc).Unix()
	ms := months(from, to, loc)
	if len(ms) != 3 || ms[0].from != from || ms[2].to != to || ms[0].name != "2024-01" || ms[2].name != "2024-03" {
		t.Fatalf("months %+v", ms)
	}
	check := months(to, time.Date(2024, 4, 1, 0, 0, 0, 0, loc).Unix(), loc)
	if len(check) != 1 || check[0].name != ms[2].name || check[0].from != ms[2].to {
		t.Errorf("check months %+v after %+v", check, ms[2])
	}
}

func TestMonths_Empty(t *testing.T) {
	if ms := months(200, 100, time.UTC); len(ms) != 0 {
		t.Errorf("a span ending before it starts: %+v", ms)
	}
}
