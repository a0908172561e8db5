package features

import (
	"context"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/sim"
)

// reactiveScenario is the decision-time case: on 4 nodes a 4-node
// P runs from day0+1 h to day0+3 h, a time at which a backfill pass is
// due; job x (2 nodes, 1 h) has been pending behind P for 30 minutes and
// would take P's nodes at P's end if nothing else were queued. A reactive
// Q (4 nodes, submitted at P's end) outranks x (size 100 against x's 50
// plus 30 minutes of age), so if it is queued before the passes at P's
// end, as in the Mirage artifact's simulator, it starts at once: r = 0.
func reactiveScenario() ([]sim.Job, Options) {
	h := int64(3600)
	jobs := []sim.Job{
		{Name: "a", User: 0, Nodes: 1, Submit: day0, After: sim.NoJob, LimitSec: 600, RunSec: 60},
		{Name: "x", User: 1, Nodes: 2, Submit: day0 + 3*h - 1800, After: sim.NoJob, LimitSec: h, RunSec: h},
	}
	cfg := sim.MirageCompat()
	cfg.Nodes = 4
	o := Options{
		Config: cfg, Mode: sim.WindowCold, Start: day0, Windows: 1, IntervalSec: h,
		WarmupSec: h, WorkloadSec: 6 * h, Probes: 3, ChainNodes: []int{4},
		ChainLimitSec: 2 * h, ChainRunSec: 2 * h, Location: time.UTC,
	}
	return jobs, o
}

// TestTimeline_QQueuedBeforePasses checks that Q submitted at decision
// time t is queued before t's scheduling passes: the main
// timeline at t holds the state just before t's events, and a reactive Q
// submitted at P's end gets P's nodes instead of the pending job x.
func TestTimeline_QQueuedBeforePasses(t *testing.T) {
	ctx := context.Background()
	jobs, o := reactiveScenario()
	if err := Normalise(&o); err != nil {
		t.Fatal(err)
	}
	tl, err := NewTimeline(ctx, jobs, &o, 0, 4, ChainUser(jobs))
	if err != nil {
		t.Fatal(err)
	}
	pre := tl.Sim().Clone(nil)
	pStart, err := pre.RunUntilStarted(ctx, tl.PID())
	if err != nil {
		t.Fatal(err)
	}
	pEnd := pStart + tl.P().RunSec
	if want := int64(day0 + 3*3600); pStart != day0+3600 || pEnd != want {
		t.Fatalf("P runs [%d, %d), want [%d, %d)", pStart-day0, pEnd-day0, 3600, want-day0)
	}
	if bf := o.Config.Backfill.IntervalSec; pEnd%bf != 0 {
		t.Fatalf("P's end %d is not on the backfill grid (%d s)", pEnd, bf)
	}
	if err := tl.Advance(ctx, pEnd); err != nil {
		t.Fatal(err)
	}
	s := tl.Sim()
	if s.Now() != pEnd {
		t.Fatalf("clock %d after Advance, want %d", s.Now(), pEnd)
	}
	if _, ended := s.Ended(tl.PID()); ended {
		t.Error("main timeline at P's end: P already ended; want the state just before P's end")
	}
	const x = sim.JobID(1)
	if _, started := s.Started(x); started {
		t.Error("main timeline at P's end: x already started; want the state just before the passes")
	}
	// Without Q, x takes P's nodes at P's end.
	alone := s.Clone(nil)
	if xs, err := alone.RunUntilStarted(ctx, x); err != nil || xs != pEnd {
		t.Fatalf("without Q, x starts at %d (%v), want P's end %d", xs-day0, err, pEnd-day0)
	}
	qStart, r, err := tl.QOutcome(ctx, pEnd, pEnd)
	if err != nil {
		t.Fatal(err)
	}
	if qStart != pEnd || r != 0 {
		t.Errorf("reactive Q: start %+d s after P's end, r = %d s; want 0 (Q queued before the passes at P's end)", qStart-pEnd, r)
	}

	// Build labels the same way: its last probe is at P's end.
	smp, _, err := Build(ctx, jobs, o)
	if err != nil {
		t.Fatal(err)
	}
	last := smp.Len() - 1
	if smp.ProbeTime[last] != pEnd || smp.LabelRSec[last] != 0 || smp.LabelWaitSec[last] != 0 {
		t.Errorf("Build's last probe at %+d s: r = %d s, wait %d s; want a probe at P's end (%+d s) with r = wait = 0",
			smp.ProbeTime[last]-day0, smp.LabelRSec[last], smp.LabelWaitSec[last], pEnd-day0)
	}
}
