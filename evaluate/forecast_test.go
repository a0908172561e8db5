package evaluate

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/ingest/ls6test"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/train/jobruntime"
)

// testRunTimes is a run-time model for every job of jobs without
// training one: each job's ratio is log-uniform over the default bins
// (equal mass per bin), its median the middle bin's.
func testRunTimes(jobs []sim.Job) *RunTimes {
	edges := jobruntime.DefaultEdges
	nb := len(edges) - 1
	rt := &RunTimes{edges: edges, nb: nb, pmf: make([]float32, len(jobs)*nb), ok: make([]bool, len(jobs)), MedianSec: make([]int64, len(jobs))}
	for id := range jobs {
		for b := range nb {
			rt.pmf[id*nb+b] = 1 / float32(nb)
		}
		rt.ok[id] = true
		rt.MedianSec[id] = max(1, int64(jobruntime.Quantile(edges, rt.pmf[id*nb:(id+1)*nb], 0.5)*float64(jobs[id].LimitSec)))
	}
	return rt
}

// decisionAt builds a simulation of jobs, submits a chain's P of 4 nodes
// and 12 h at day0 + 3 days and returns the decision context 6 h later.
func decisionAt(t testing.TB, jobs []sim.Job) *DecisionContext {
	t.Helper()
	ctx := context.Background()
	cfg := sim.DefaultConfig()
	cfg.Nodes = 8
	s, err := sim.New(cfg, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	pSubmit := int64(day0 + 3*86400)
	if err := s.RunBefore(ctx, pSubmit); err != nil {
		t.Fatal(err)
	}
	p := sim.Job{Name: "P", User: features.ChainUser(jobs), Nodes: 4, Submit: pSubmit, After: sim.NoJob, LimitSec: 12 * 3600, RunSec: 12 * 3600}
	pid, err := s.Submit(p)
	if err != nil {
		t.Fatal(err)
	}
	now := pSubmit + 6*3600
	if err := s.RunBefore(ctx, now); err != nil {
		t.Fatal(err)
	}
	st, started := s.Started(pid)
	q := p
	q.Name, q.Submit = "Q", now
	return &DecisionContext{Now: now, Sim: s, P: s.Job(pid), PID: pid, Q: q, PStarted: started, PStart: st}
}

func TestForecast_Causal(t *testing.T) {
	jobs := busyJobs(100, 8, 1) // P(r > 0) strictly between 0 and 1 there
	rt := testRunTimes(jobs)
	f := &Forecaster{RT: rt, K: 16, Seed: 7, Correlation: 0.5}
	dc := decisionAt(t, jobs)
	want, err := f.ProbLate(context.Background(), dc)
	if err != nil {
		t.Fatal(err)
	}
	// The true run times of the jobs running at the decision are
	// unknowable then: change every one (keeping it running past now).
	changed := slices.Clone(jobs)
	n := 0
	rng := rand.New(rand.NewPCG(1, 2))
	for _, l := range dc.Sim.Live(nil) {
		if !l.Running || int(l.ID) >= len(jobs) {
			continue
		}
		j := &changed[l.ID]
		el := dc.Now - l.Start
		j.RunSec = min(j.LimitSec, el+1+rng.Int64N(max(j.LimitSec-el, 1)))
		j.LimitSec = max(j.LimitSec, j.RunSec)
		if j.RunSec != jobs[l.ID].RunSec {
			n++
		}
	}
	if n == 0 {
		t.Fatal("no running job to change at the decision")
	}
	dc2 := decisionAt(t, changed)
	got, err := f.ProbLate(context.Background(), dc2)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("P(r > 0) = %v after changing %d running jobs' true run times, %v before", got, n, want)
	}
	// With arrivals resampled from the past days (drawn run times too).
	fr := &Forecaster{RT: rt, K: 16, Seed: 7, ResampleDays: 2}
	a, err := fr.ProbLate(context.Background(), decisionAt(t, jobs))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := fr.ProbLate(context.Background(), dc2); a != b {
		t.Fatalf("resampled arrivals: P(r > 0) = %v after changing the running jobs, %v before", b, a)
	}
	for _, tau := range []float64{0.1, 0.5, 0.9} {
		p := &Forecast{Label: "forecast", F: f, Tau: &tau}
		a, _ := p.Decide(decisionAt(t, jobs))
		b, _ := p.Decide(decisionAt(t, changed))
		if a != b {
			t.Errorf("τ = %v: decision %v with the true run times, %v with changed ones", tau, a, b)
		}
	}
	if want <= 0 || want >= 1 {
		t.Fatalf("P(r > 0) = %v: degenerate, the test shows nothing", want)
	}
}

func TestForecast_Deterministic(t *testing.T) {
	jobs := busyJobs(700, 8, 1)
	rt := testRunTimes(jobs)
	f := &Forecaster{RT: rt, K: 8, Seed: 3, ResampleDays: 2, Correlation: 0.5}
	a, err := f.ProbLate(context.Background(), decisionAt(t, jobs))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := f.ProbLate(context.Background(), decisionAt(t, jobs))
	if a != b {
		t.Fatalf("same seed: P(r > 0) %v then %v", a, b)
	}
	// Through Replay: the same decisions with 1 and 3 workers, twice.
	opts := testOptions(sim.WindowWarm, 1)
	ps := func() []Policy {
		tau := 0.3
		return []Policy{Reactive{}, &Forecast{Label: "forecast", F: f, Tau: &tau}, &RuntimeEstimate{Label: "runtime-estimate", RT: rt}}
	}
	r1, err := Replay(context.Background(), jobs, ps(), opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Workers = 3
	r2, err := Replay(context.Background(), jobs, ps(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r1.Rows, r2.Rows) {
		t.Fatal("forecast replay differs between runs and worker counts")
	}
	if _, err := Replay(context.Background(), jobs, []Policy{&Forecast{Label: "forecast", F: &Forecaster{}}}, opts); err == nil {
		t.Fatal("a forecast without run-time predictions replayed")
	}
}

func TestRunTimes_DrawConditioned(t *testing.T) {
	jobs := busyJobs(10, 1, 1)
	rt := testRunTimes(jobs)
	rng := rand.New(rand.NewPCG(1, 1))
	lim := jobs[0].LimitSec
	for _, el := range []int64{0, 1, lim / 3, lim - 1, lim} {
		for range 200 {
			r := rt.Draw(rng, 0, el, lim)
			if r < el || r > lim {
				t.Fatalf("elapsed %d of %d: drew %d", el, lim, r)
			}
		}
	}
	for _, u := range []float64{0, 0.3, 0.999} {
		if r := rt.At(u, 0, lim/2, lim); r < lim/2 || r > lim {
			t.Fatalf("u = %v, elapsed %d of %d: %d", u, lim/2, lim, r)
		}
	}
	if a, b := rt.At(0.2, 0, 0, lim), rt.At(0.8, 0, 0, lim); a > b {
		t.Fatalf("At is not monotone in u: %d at 0.2, %d at 0.8", a, b)
	}
	if r := rt.Draw(rng, sim.JobID(len(jobs)+5), 10, 100); r != 100 {
		t.Fatalf("a job without prediction drew %d, want its limit 100", r)
	}
}

// BenchmarkForecast reports the forecast's rollouts per second at one
// decision: a synthetic busy queue (8 nodes), and LS6 (ls6-val's first
// window, 8-node chain, 12 h before P's expected end) with a log-uniform
// run-time distribution per job.
func BenchmarkForecast(b *testing.B) {
	run := func(b *testing.B, dc *DecisionContext, rt *RunTimes, days int) {
		f := &Forecaster{RT: rt, K: DefaultRollouts, Seed: 1, ResampleDays: days}
		if _, err := f.ProbLate(context.Background(), dc); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		began := time.Now()
		for range b.N {
			if _, err := f.ProbLate(context.Background(), dc); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N*f.K)/time.Since(began).Seconds(), "rollouts/s")
	}
	b.Run("busy", func(b *testing.B) {
		jobs := busyJobs(700, 8, 1)
		run(b, decisionAt(b, jobs), testRunTimes(jobs), 0)
	})
	b.Run("ls6", func(b *testing.B) {
		tjobs := ls6test.Jobs(b)
		p, err := features.LookupProtocol("ls6-val")
		if err != nil {
			b.Fatal(err)
		}
		jobs, fo, err := p.Prepare(tjobs)
		if err != nil {
			b.Fatal(err)
		}
		if err := features.Normalise(&fo); err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		tl, err := features.NewTimeline(ctx, jobs, &fo, 0, 8, features.ChainUser(jobs))
		if err != nil {
			b.Fatal(err)
		}
		s, pid, pj := tl.Sim(), tl.PID(), tl.P()
		pre := s.Clone(nil)
		pStart, err := pre.RunUntilStarted(ctx, pid)
		if err != nil {
			b.Fatal(err)
		}
		now := pStart + pj.LimitSec - 12*3600
		if err := tl.Advance(ctx, now); err != nil {
			b.Fatal(err)
		}
		st, started := s.Started(pid)
		q := tl.Q()
		q.Submit = now
		dc := &DecisionContext{Now: now, Sim: s, P: pj, PID: pid, Q: q, PStarted: started, PStart: st}
		rt := testRunTimes(jobs)
		b.Run("no-arrivals", func(b *testing.B) { run(b, dc, rt, 0) })
		b.Run("resample-7d", func(b *testing.B) { run(b, dc, rt, 7) })
	})
}
