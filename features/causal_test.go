package features

import (
	"context"
	"testing"

	"github.com/mirage-hpc/mirage/ingest/ls6test"
	"github.com/mirage-hpc/mirage/sim"
)

// truncateAt returns what is known of jobs (sorted by Submit, as
// sim.FromTrace returns them) at time t: sims holds the jobs submitted at
// or before t, unchanged, for the simulation; capIn holds the same jobs
// with the trace's future hidden for capacity inference: a job that had
// not started by t loses its TraceStart, and one not cancelled by t its
// Cancel.
func truncateAt(tb testing.TB, jobs []sim.Job, t int64) (sims, capIn []sim.Job) {
	tb.Helper()
	n := 0
	for n < len(jobs) && jobs[n].Submit <= t {
		n++
	}
	for i := n; i < len(jobs); i++ {
		if jobs[i].Submit <= t {
			tb.Fatalf("jobs are not sorted by Submit: job %d", i)
		}
	}
	sims = jobs[:n:n]
	capIn = make([]sim.Job, n)
	copy(capIn, sims)
	for i := range capIn {
		j := &capIn[i]
		if j.After != sim.NoJob && int(j.After) >= n {
			tb.Fatalf("job %d submitted by %d waits for job %d submitted later", i, t, j.After)
		}
		if j.TraceStart > t {
			j.TraceStart = 0
		}
		if j.Cancel > t {
			j.Cancel = 0
		}
	}
	return sims, capIn
}

// featuresAt builds window w's timeline for a chain of nodes nodes, runs
// it to t and returns the features there. It adds to jobs a placeholder
// job of user user-1 at the window's end, after t, so that the
// simulation's user universe (sim counts the user indices of a window's
// jobs, which scales the fair-share factor) is the same whatever jobs
// after t are removed: that count is a property of the site's accounts,
// not something this test is about.
func featuresAt(tb testing.TB, jobs []sim.Job, o *Options, w, nodes int, user int32, t int64) []float64 {
	tb.Helper()
	ctx := context.Background()
	end := o.Start + int64(w)*o.IntervalSec + o.WorkloadSec
	if t >= end {
		tb.Fatalf("t %d not before the window's end %d", t, end)
	}
	jobs = append(jobs[:len(jobs):len(jobs)], sim.Job{Name: "placeholder", User: user - 1, Nodes: 1,
		Submit: end, After: sim.NoJob, LimitSec: 60, RunSec: 60})
	tl, err := NewTimeline(ctx, jobs, o, w, nodes, user)
	if err != nil {
		tb.Fatal(err)
	}
	if err := tl.Advance(ctx, t); err != nil {
		tb.Fatal(err)
	}
	dst := make([]float64, len(o.FeatureNames()))
	if err := tl.Features(ctx, dst); err != nil {
		tb.Fatal(err)
	}
	return dst
}

// TestFeatures_CapacityCausal is the leakage test for the
// ls6 protocol's inferred capacity: the features at a time t must be the
// same whether capacity is inferred from the whole LS6 trace or from what
// was known at t (jobs submitted after t removed, trace starts and
// cancellations after t hidden). With the ls6 profile's capacity inference (Causal) they are;
// the "lookahead" sub-test shows that the old inference (Causal false)
// leaks, so the comparison can fail. Dependencies are inferred from the
// whole trace in both cases: the test is about capacity.
func TestFeatures_CapacityCausal(t *testing.T) {
	tjobs := ls6test.Jobs(t)
	p, err := LookupProtocol("ls6")
	if err != nil {
		t.Fatal(err)
	}
	jobs, o, err := p.Prepare(tjobs)
	if err != nil {
		t.Fatal(err)
	}
	if err := Normalise(&o); err != nil {
		t.Fatal(err)
	}
	o.Wide = true // the wide columns too: they read the queue at t only
	user := ChainUser(jobs)
	names := o.FeatureNames()
	type probe struct {
		w, nodes int
		offSec   int64 // t - P's submission
	}
	probes := []probe{
		{0, 8, 0}, {0, 1, 3*3600 + 17*60}, {37, 8, 5 * 3600}, {120, 1, 11*3600 + 600},
		{250, 8, 2*3600 + 1}, {400, 8, 20 * 3600}, {555, 1, 7 * 3600}, {683, 8, 30*60 + 7},
		{90, 8, 14 * 3600}, {180, 1, 26 * 3600}, {333, 8, 9*3600 + 1800}, {470, 8, 16 * 3600},
	}
	// And at the exact second of a causal capacity step (a new busy level
	// seen in the trace): the ahead_* fork processes that second.
	ls6, err := sim.LoadProfile("ls6")
	if err != nil {
		t.Fatal(err)
	}
	co := ls6.CapacityOptions(o.Config.Nodes)
	steps := sim.InferCapacity(jobs, co)
	for _, w := range []int{10, 300, 600} {
		pSubmit := o.Start + int64(w)*o.IntervalSec + o.WarmupSec
		for _, st := range steps {
			if st.At > pSubmit && st.At < pSubmit+40*3600 {
				probes = append(probes, probe{w, 8, st.At - pSubmit})
				break
			}
		}
	}
	for _, tt := range []struct {
		name   string
		causal bool
	}{{"causal", true}, {"lookahead", false}} {
		t.Run(tt.name, func(t *testing.T) {
			co := ls6.CapacityOptions(o.Config.Nodes)
			co.Causal = tt.causal
			full := o
			full.Config.Capacity = sim.InferCapacity(jobs, co)
			differ := 0
			for _, pr := range probes {
				at := o.Start + int64(pr.w)*o.IntervalSec + o.WarmupSec + pr.offSec
				want := featuresAt(t, jobs, &full, pr.w, pr.nodes, user, at)
				sims, capIn := truncateAt(t, jobs, at)
				known := o
				known.Config.Capacity = sim.InferCapacity(capIn, co)
				got := featuresAt(t, sims, &known, pr.w, pr.nodes, user, at)
				var diffs []string
				for i := range want {
					if got[i] != want[i] {
						diffs = append(diffs, names[i])
					}
				}
				if len(diffs) > 0 {
					differ++
					if tt.causal {
						t.Errorf("window %d, %d nodes, t = P.submit%+d s: features differ with the trace after t removed: %v", pr.w, pr.nodes, pr.offSec, diffs)
					} else {
						t.Logf("window %d, %d nodes, t = P.submit%+d s: leaks into %v", pr.w, pr.nodes, pr.offSec, diffs)
					}
				}
			}
			if !tt.causal && differ == 0 {
				t.Errorf("the lookahead inference gave identical features at all %d probes: the test cannot detect a leak", len(probes))
			}
		})
	}
}
