package sim_test

import (
	"context"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/google/go-cmp/cmp"

	"github.com/mirage-hpc/mirage/sim"
)

// TestSnapshot_HeldInSnapshot: a job held on its predecessor and one held
// until its Eligible time are listed after the eligible jobs, by
// submission, marked Held, when Config.HeldInSnapshot is set, and left
// out otherwise.
func TestSnapshot_HeldInSnapshot(t *testing.T) {
	jobs := []sim.Job{
		{Name: "a", User: 0, Nodes: 2, LimitSec: 1000, RunSec: 1000, Submit: 0, After: sim.NoJob},
		{Name: "dep", User: 0, Nodes: 1, LimitSec: 100, RunSec: 100, Submit: 20, After: 0},
		{Name: "begin", User: 1, Nodes: 1, LimitSec: 100, RunSec: 100, Submit: 10, Eligible: 5000, After: sim.NoJob},
		{Name: "wait", User: 1, Nodes: 2, LimitSec: 100, RunSec: 100, Submit: 30, After: sim.NoJob},
	}
	tests := []struct {
		Name string
		Show bool
		Want []sim.PendingJob
	}{
		{Name: "Off", Want: []sim.PendingJob{{ID: 3, User: 1, Nodes: 2, LimitSec: 100, Submit: 30, Eligible: 30}}},
		{Name: "On", Show: true, Want: []sim.PendingJob{
			{ID: 3, User: 1, Nodes: 2, LimitSec: 100, Submit: 30, Eligible: 30},
			{ID: 2, User: 1, Nodes: 1, LimitSec: 100, Submit: 10, Held: true},
			{ID: 1, User: 0, Nodes: 1, LimitSec: 100, Submit: 20, Held: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			cfg := sim.Config{Nodes: 2, Backfill: sim.Backfill{Flavour: sim.BackfillNone}, HeldInSnapshot: tt.Show}
			s, err := sim.New(cfg, jobs, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.RunUntil(context.Background(), 40); err != nil {
				t.Fatal(err)
			}
			got := s.Snapshot().Pending
			for i := range got {
				got[i].Priority = 0
			}
			if d := cmp.Diff(tt.Want, got); d != "" {
				t.Errorf("pending (-want +got):\n%s", d)
			}
		})
	}
}

// TestFromQueue_Held: a held live job stays held (never starts) and is
// listed as held.
func TestFromQueue_Held(t *testing.T) {
	cfg := sim.Config{Nodes: 4, Backfill: sim.Backfill{Flavour: sim.BackfillNone}, HeldInSnapshot: true}
	q := sim.Queue{Now: 1000, Jobs: []sim.Job{
		{Name: "run", Nodes: 1, LimitSec: 600, Submit: 100, TraceStart: 500},
		{Name: "held", Nodes: 1, LimitSec: 600, Submit: 900},
	}, Held: []bool{false, true}}
	s, err := sim.FromQueue(cfg, q)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunUntil(context.Background(), 5000); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Started(1); ok {
		t.Fatal("the held job started")
	}
	p := s.Snapshot().Pending
	if len(p) != 1 || p[0].ID != 1 || !p[0].Held {
		t.Errorf("pending %+v, want job 1 held", p)
	}
}

// TestPriority_FairShareSeenUsers: with FairShareSeenUsers, a user who
// submits only later does not change the fair-share factors before; with
// the scale over every user, it does.
func TestPriority_FairShareSeenUsers(t *testing.T) {
	jobs := []sim.Job{
		{Name: "u0", User: 0, Nodes: 1, LimitSec: 10000, RunSec: 10000, Submit: 0, After: sim.NoJob},
		{Name: "u1", User: 1, Nodes: 2, LimitSec: 100, RunSec: 100, Submit: 1000, After: sim.NoJob},
		{Name: "u0b", User: 0, Nodes: 2, LimitSec: 100, RunSec: 100, Submit: 1000, After: sim.NoJob},
		{Name: "late", User: 5, Nodes: 1, LimitSec: 100, RunSec: 100, Submit: 50000, After: sim.NoJob},
	}
	prio := func(seen bool, n int) []float64 {
		cfg := sim.DefaultConfig()
		cfg.Nodes = 2
		cfg.Priority.FairShareSeenUsers = seen
		s, err := sim.New(cfg, jobs[:n], nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.RunUntil(context.Background(), 2000); err != nil {
			t.Fatal(err)
		}
		var ps []float64
		for _, p := range s.Snapshot().Pending {
			ps = append(ps, p.Priority)
		}
		return ps
	}
	if a, b := prio(true, 4), prio(true, 3); !cmp.Equal(a, b) {
		t.Errorf("seen users: priorities %v with the late user, %v without", a, b)
	}
	if a, b := prio(false, 4), prio(false, 3); cmp.Equal(a, b) {
		t.Errorf("every user: priorities %v equal with and without the late user: the test cannot see the scale", a)
	}
}

// TestInferDependencies_RequireIdle: a job that waited while nodes were
// idle keeps its predecessor; one that waited on a full partition, and
// started when its user's job freed the nodes, does not.
func TestInferDependencies_RequireIdle(t *testing.T) {
	run := func(user int32, nodes int32, submit, start, runSec int64) sim.Job {
		return sim.Job{User: user, Nodes: nodes, Submit: submit, After: sim.NoJob, LimitSec: 1 << 20, RunSec: runSec, TraceStart: start}
	}
	tests := []struct {
		Name      string
		Jobs      []sim.Job
		WantAfter []sim.JobID
		Want      sim.Inference
	}{
		{
			// 4 nodes: K holds 1, J (1 node) waits with 3 idle.
			Name:      "Idle",
			Jobs:      []sim.Job{run(0, 1, 0, 10, 5000), run(0, 1, 0, 5010, 10)},
			WantAfter: []sim.JobID{sim.NoJob, 0},
			Want:      sim.Inference{Jobs: 1, Waited: 1, WaitedOverHour: 1, Candidates: 1},
		},
		{
			// Another user's job holds the other 3 nodes until after K ends.
			Name:      "Full",
			Jobs:      []sim.Job{run(0, 1, 0, 10, 5000), run(1, 3, 0, 10, 9000), run(0, 1, 0, 5010, 10)},
			WantAfter: []sim.JobID{sim.NoJob, sim.NoJob, sim.NoJob},
			Want:      sim.Inference{Waited: 1, Candidates: 1, NotIdle: 1},
		},
		{
			// The job filling the partition was submitted after J: not
			// counted, J keeps its predecessor.
			Name:      "FullLater",
			Jobs:      []sim.Job{run(0, 1, 0, 10, 5000), run(0, 1, 0, 5010, 10), run(1, 3, 5, 10, 9000)},
			WantAfter: []sim.JobID{sim.NoJob, 0, sim.NoJob},
			Want:      sim.Inference{Jobs: 1, Waited: 1, WaitedOverHour: 1, Candidates: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			jobs := append([]sim.Job(nil), tt.Jobs...)
			got := sim.InferDependencies(jobs, sim.InferOptions{RequireIdle: true, Nodes: 4})
			var after []sim.JobID
			for _, j := range jobs {
				after = append(after, j.After)
			}
			if d := cmp.Diff(tt.WantAfter, after); d != "" {
				t.Errorf("After (-want +got):\n%s", d)
			}
			if got != tt.Want {
				t.Errorf("inference %+v, want %+v", got, tt.Want)
			}
		})
	}
}

// TestProperty_SeenUsersEqualsReference: with the fair-share scale over
// the users seen so far (a scale that grows as users arrive), the
// priority index and its bounds still give the schedule of the plain
// passes.
func TestProperty_SeenUsersEqualsReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg, jobs := genWorkload(t, allFeatures)
		cfg.Priority.FairShareSeenUsers = true
		got, _ := schedule(t, sim.New, cfg, jobs)
		want, _ := schedule(t, sim.New, cfg, jobs, sim.ForceReference)
		if !slices.Equal(got, want) {
			t.Fatalf("schedule (start, end per job) %v, reference %v", got, want)
		}
	})
}
