package sim_test

import (
	"context"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/simtest"
)

// TestSim_RunBefore_SubmitGetsPasses: a job submitted at t after
// RunBefore(t) is queued with t's events and gets t's main pass; after
// RunUntil(t) it comes too late. On 2 nodes with size priority, a (2
// nodes) runs [0, 100) and b (1 node) waits behind it; x (2 nodes,
// external, submitted at 100) outranks b.
func TestSim_RunBefore_SubmitGetsPasses(t *testing.T) {
	cfg := simtest.Cluster(2)
	cfg.Priority.SizeWeight = 100
	jobs := []sim.Job{simtest.Job(2, 0, 100, 100), simtest.Job(1, 10, 100, 100)}
	x := simtest.Job(2, 100, 100, 100)
	ctx := context.Background()
	for _, tt := range []struct {
		name           string
		run            func(*sim.Sim) error
		wantX, wantB   int64
		wantAEndedAtT0 bool
	}{
		{"RunBefore", func(s *sim.Sim) error { return s.RunBefore(ctx, 100) }, 100, 200, false},
		{"RunUntil", func(s *sim.Sim) error { return s.RunUntil(ctx, 100) }, 200, 100, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := mustSim(t, cfg, jobs)
			if err := tt.run(s); err != nil {
				t.Fatal(err)
			}
			if s.Now() != 100 {
				t.Errorf("Now = %d, want 100", s.Now())
			}
			if _, ended := s.Ended(0); ended != tt.wantAEndedAtT0 {
				t.Errorf("a ended at the clock: %v, want %v", ended, tt.wantAEndedAtT0)
			}
			xid, err := s.Submit(x)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Run(ctx); err != nil {
				t.Fatal(err)
			}
			st := startsOf(s)
			if st[xid] != tt.wantX || st[1] != tt.wantB {
				t.Errorf("x starts at %d, b at %d; want %d, %d", st[xid], st[1], tt.wantX, tt.wantB)
			}
		})
	}
}

// TestProperty_RunBefore checks RunBefore(t) against an uninterrupted
// run: it records exactly the run's Recorder calls before t, leaves the
// clock at t (or where it was), processes as many events as
// RunUntil(t-1), is idempotent, and RunUntil(t) or Run afterwards
// continue exactly as the uninterrupted run.
func TestProperty_RunBefore(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg, jobs := genWorkload(t, allFeatures)
		ref := runHarness(t, cfg, jobs)
		end := int64(0)
		if n := len(ref.Records); n > 0 {
			end = ref.Records[n-1].At
		}
		at := rapid.Int64Range(-10, end+10).Draw(t, "at")
		if n := len(ref.Records); n > 0 && rapid.Bool().Draw(t, "at a record") {
			at = ref.Records[rapid.IntRange(0, n-1).Draw(t, "record")].At
		}
		ctx := context.Background()
		h, err := simtest.NewHarness(cfg, jobs)
		if err != nil {
			t.Fatal(err)
		}
		start := h.Sim.Now()
		if err := h.Sim.RunBefore(ctx, at); err != nil {
			t.Fatal(err)
		}
		if want := max(start, at); h.Sim.Now() != want {
			t.Fatalf("Now = %d after RunBefore(%d), want %d", h.Sim.Now(), at, want)
		}
		var before []simtest.Record
		for _, r := range ref.Records {
			if r.At < at {
				before = append(before, r)
			}
		}
		if diff := gocmp.Diff(before, h.Records, cmpEmpty); diff != "" {
			t.Fatalf("records after RunBefore(%d) (-run before t +got):\n%s", at, diff)
		}
		u, err := simtest.NewHarness(cfg, jobs)
		if err != nil {
			t.Fatal(err)
		}
		if err := u.Sim.RunUntil(ctx, at-1); err != nil {
			t.Fatal(err)
		}
		if h.Sim.Events() != u.Sim.Events() {
			t.Fatalf("RunBefore(%d) processed %d events, RunUntil(%d) %d", at, h.Sim.Events(), at-1, u.Sim.Events())
		}
		n := h.Sim.Events()
		if err := h.Sim.RunBefore(ctx, at); err != nil || h.Sim.Events() != n || len(h.Records) != len(before) {
			t.Fatalf("second RunBefore(%d) did something (err %v)", at, err)
		}
		if rapid.Bool().Draw(t, "until t first") {
			if err := h.Sim.RunUntil(ctx, at); err != nil {
				t.Fatal(err)
			}
		}
		if err := h.Run(ctx); err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(ref.Records, h.Records, cmpEmpty); diff != "" {
			t.Fatalf("RunBefore(%d) then Run differs from the run (-run +got):\n%s", at, diff)
		}
	})
}

// cmpEmpty makes nil and empty record slices equal.
var cmpEmpty = cmpopts.EquateEmpty()
