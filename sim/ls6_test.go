package sim_test

import (
	"context"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/ingest/ls6test"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// ls6Replay replays tjobs with the ls6 protocol (the ls6 profile, inferred
// dependencies, and capacity unless noCapacity) and returns the fidelity,
// per month in America/Chicago.
func ls6Replay(tb testing.TB, tjobs []trace.Job, mod func(*sim.Config), noCapacity bool) sim.Fidelity {
	tb.Helper()
	p, err := sim.LoadProfile("ls6")
	if err != nil {
		tb.Fatal(err)
	}
	cfg := p.Config
	if mod != nil {
		mod(&cfg)
	}
	jobs, _, err := sim.FromTrace(tjobs, sim.FromTraceOptions{MaxNodes: cfg.Nodes, Infer: p.DependencyOptions()})
	if err != nil {
		tb.Fatal(err)
	}
	if !noCapacity {
		cfg.Capacity = sim.InferCapacity(jobs, p.CapacityOptions(cfg.Nodes))
	}
	starts, _, err := sim.Replay(context.Background(), cfg, jobs)
	if err != nil {
		tb.Fatal(err)
	}
	loc, err := time.LoadLocation("America/Chicago")
	if err != nil {
		tb.Fatal(err)
	}
	var actual, simulated []int64
	var months []string
	for i, j := range jobs {
		if j.TraceStart == 0 || starts[i] < 0 {
			continue
		}
		actual = append(actual, j.TraceStart-j.Submit)
		simulated = append(simulated, starts[i]-j.Submit)
		months = append(months, time.Unix(j.Submit, 0).In(loc).Format("2006-01"))
	}
	return sim.CompareWaits(actual, simulated, months)
}

// TestLS6_Fidelity guards the fidelity documented in sim/FIDELITY.md and
// LS6's doc comment: replaying the LS6 trace with the ls6 protocol must
// stay at least as faithful as documented (within a small tolerance), so
// a change to the simulator that loses fidelity fails here. A change that
// gains fidelity should update the documented figures.
func TestLS6_Fidelity(t *testing.T) {
	tjobs := ls6test.Jobs(t)
	got := ls6Replay(t, tjobs, nil, false)
	t.Logf("ls6 protocol: %d jobs, MAE %.2f h, Spearman %.3f, within 2x %.3f", got.Jobs, got.MAESec/3600, got.Spearman, got.Within2x)

	// Documented figures (FIDELITY.md, "The ls6 protocol").
	const (
		wantJobs     = 21449
		wantMAEh     = 3.30
		wantSpearman = 0.645
		wantWithin2x = 0.344
		tol          = 0.01 // Spearman and within-2x; MAE gets 0.1 h
	)
	if got.Jobs != wantJobs {
		t.Errorf("compared %d jobs, want %d", got.Jobs, wantJobs)
	}
	if got.MAESec/3600 > wantMAEh+0.1 {
		t.Errorf("MAE %.2f h, documented %.2f h", got.MAESec/3600, wantMAEh)
	}
	if got.Spearman < wantSpearman-tol {
		t.Errorf("Spearman %.3f, documented %.3f", got.Spearman, wantSpearman)
	}
	if got.Within2x < wantWithin2x-tol {
		t.Errorf("within 2x %.3f, documented %.3f", got.Within2x, wantWithin2x)
	}
	// Per month (Spearman, within 2x), with a wider tolerance: a month has
	// a few thousand jobs.
	wantMonth := map[string][2]float64{
		"2022-11": {0.48, 0.41},
		"2022-12": {0.55, 0.49},
		"2023-01": {0.64, 0.40},
		"2023-02": {0.50, 0.20},
		"2023-03": {0.61, 0.37},
	}
	for _, m := range got.PerMonth {
		w, ok := wantMonth[m.Month]
		if !ok {
			continue
		}
		if m.Spearman < w[0]-0.03 || m.Within2x < w[1]-0.03 {
			t.Errorf("%s: Spearman %.3f, within 2x %.3f; documented %.2f, %.2f", m.Month, m.Spearman, m.Within2x, w[0], w[1])
		}
	}

	// The two inferred effects each carry much of it (the ablation).
	noCap := ls6Replay(t, tjobs, nil, true)
	if noCap.Spearman > got.Spearman-0.05 || noCap.Within2x > got.Within2x-0.05 {
		t.Errorf("without capacity: Spearman %.3f, within 2x %.3f; want both at least 0.05 below the protocol's", noCap.Spearman, noCap.Within2x)
	}
}
