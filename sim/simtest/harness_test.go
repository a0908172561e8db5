package simtest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/simtest"
)

func TestHarness_Records(t *testing.T) {
	cfg := simtest.Cluster(2)
	cfg.Backfill.Flavour = sim.BackfillNone
	g := simtest.Job(1, 5, 10, 0)
	g.Cancel = 7
	jobs := []sim.Job{simtest.Job(2, 0, 100, 50), simtest.Job(1, 1, 100, 20), g}
	h := simtest.MustHarness(t, cfg, jobs)
	if err := h.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := h.Complete(); err != nil {
		t.Fatal(err)
	}
	want := []simtest.Record{
		{Kind: simtest.RecordStarted, ID: 0, At: 0},
		{Kind: simtest.RecordLeft, ID: 2, At: 7},
		{Kind: simtest.RecordFinished, ID: 0, At: 50},
		{Kind: simtest.RecordStarted, ID: 1, At: 50},
		{Kind: simtest.RecordFinished, ID: 1, At: 70},
	}
	if diff := cmp.Diff(want, h.Records); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{0, 50, simtest.NotYet}, h.Starts()); diff != "" {
		t.Errorf("Starts (-want +got):\n%s", diff)
	}
	if at, ok := h.LeftAt(2); !ok || at != 7 {
		t.Errorf("LeftAt(2) = %d, %v; want 7, true", at, ok)
	}
	if _, ok := h.End(2); ok {
		t.Error("End(2) ok for a job that left")
	}
	if end, ok := h.End(1); !ok || end != 70 {
		t.Errorf("End(1) = %d, %v; want 70, true", end, ok)
	}
	if got := h.Records[0].String(); got != "start 0 at=0" {
		t.Errorf("Record.String = %q", got)
	}
	if tab := h.Table(); !strings.Contains(tab, "left@7") {
		t.Errorf("Table lacks the leave:\n%s", tab)
	}
}

// TestHarness_Invariants feeds the Harness impossible Recorder calls and
// checks that each is reported.
func TestHarness_Invariants(t *testing.T) {
	cfg := simtest.Cluster(4)
	cfg.Capacity = []sim.CapacityStep{{At: 100, Nodes: 2}}
	dep := simtest.Job(1, 0, 100, 10)
	dep.After = 0
	late := simtest.Job(1, 50, 100, 10)
	late.Eligible = 60
	jobs := []sim.Job{simtest.Job(3, 0, 100, 10), dep, late, simtest.Job(2, 0, 100, 10)}
	tests := []struct {
		Name  string
		Calls func(h *simtest.Harness)
		Msg   string
	}{
		{"OK", func(h *simtest.Harness) {
			h.Started(0, 0)
			h.Finished(0, 10)
			h.Started(1, 10)
		}, ""},
		{"OverAllocation", func(h *simtest.Harness) { h.Started(0, 0); h.Started(3, 0) }, "5 nodes busy > capacity 4"},
		{"OverCapacityStep", func(h *simtest.Harness) { h.Started(0, 100) }, "3 nodes busy > capacity 2"},
		{"BeforeSubmit", func(h *simtest.Harness) { h.Started(2, 40) }, "before its submission at 50"},
		{"BeforeEligible", func(h *simtest.Harness) { h.Started(2, 55) }, "before it was eligible at 60"},
		{"BeforePredecessor", func(h *simtest.Harness) { h.Started(0, 0); h.Started(1, 5) }, "before its predecessor 0 ended"},
		{"TwiceStarted", func(h *simtest.Harness) { h.Started(2, 60); h.Started(2, 60) }, "started twice"},
		{"TimeGoesBack", func(h *simtest.Harness) { h.Started(3, 10); h.Started(0, 5) }, "after a record at 10"},
		{"WrongRunTime", func(h *simtest.Harness) { h.Started(0, 0); h.Finished(0, 11) }, "ran 11 s"},
		{"FinishedUnstarted", func(h *simtest.Harness) { h.Finished(0, 11) }, "without starting"},
		{"LeftAfterStart", func(h *simtest.Harness) { h.Started(0, 0); h.Left(0, 1) }, "left at 1 after starting"},
		{"StartAfterLeave", func(h *simtest.Harness) { h.Left(2, 60); h.Started(2, 61) }, "after leaving"},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			h := simtest.MustHarness(t, cfg, jobs)
			tt.Calls(h)
			err := h.Err()
			if tt.Msg == "" {
				if err != nil {
					t.Fatalf("Err = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, simtest.ErrInvariant) || !strings.Contains(err.Error(), tt.Msg) {
				t.Errorf("Err = %v\nwant ErrInvariant containing %q", err, tt.Msg)
			}
		})
	}
}

func TestHarness_CompleteReportsUnfinished(t *testing.T) {
	h := simtest.MustHarness(t, simtest.Cluster(1), []sim.Job{simtest.Job(1, 0, 10, 10)})
	err := h.Complete()
	if !errors.Is(err, simtest.ErrInvariant) || !strings.Contains(err.Error(), "job 0 () neither finished nor left") {
		t.Errorf("Complete = %v", err)
	}
}

func TestHarness_Clone(t *testing.T) {
	cfg := simtest.Cluster(1)
	jobs := []sim.Job{simtest.Job(1, 0, 100, 100), simtest.Job(1, 10, 100, 100)}
	h := simtest.MustHarness(t, cfg, jobs)
	ctx := context.Background()
	if err := h.Sim.RunUntil(ctx, 50); err != nil {
		t.Fatal(err)
	}
	c := h.Clone()
	id, err := c.Submit(simtest.Job(1, 60, 10, 10))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(h.Complete(), c.Complete()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{0, 100}, h.Starts()); diff != "" {
		t.Errorf("original starts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{0, 100, 200}, c.Starts()); diff != "" {
		t.Errorf("clone starts (-want +got):\n%s", diff)
	}
	if id != 2 || len(h.Records) != 4 || len(c.Records) != 6 {
		t.Errorf("id %d, records %d and %d; want 2, 4 and 6", id, len(h.Records), len(c.Records))
	}
}
