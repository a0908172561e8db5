package sim_test

import (
	"context"
	"testing"

	"github.com/mirage-hpc/mirage/sim"
)

// windowJobs: A ran [0, 1000) on 2 nodes; B was submitted at 100 and ran
// from 1000; C was submitted at 600; D was cancelled at 700 without
// running; E ran [0, 200) and is over before the window.
func windowJobs() []sim.Job {
	return []sim.Job{
		{Name: "A", User: 0, Nodes: 2, Submit: 0, LimitSec: 2000, RunSec: 1000, TraceStart: 1, After: sim.NoJob},
		{Name: "B", User: 1, Nodes: 2, Submit: 100, LimitSec: 500, RunSec: 300, TraceStart: 1000, After: sim.NoJob},
		{Name: "C", User: 2, Nodes: 1, Submit: 600, LimitSec: 100, RunSec: 50, TraceStart: 1300, After: sim.NoJob},
		{Name: "D", User: 2, Nodes: 1, Submit: 300, LimitSec: 100, Cancel: 700, After: sim.NoJob},
		{Name: "E", User: 3, Nodes: 1, Submit: 0, LimitSec: 300, RunSec: 199, TraceStart: 1, After: sim.NoJob},
	}
}

func TestNewWindow(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Nodes = 2
	cfg.Backfill.Flavour = sim.BackfillNone
	tests := []struct {
		Name      string
		Mode      sim.WindowMode
		WantNames []string
		Running   int
		Pending   int
		Starts    map[string]int64
	}{
		{"Cold", sim.WindowCold, []string{"C"}, 0, 0, map[string]int64{"C": 600}},
		// Warm: A keeps running until its real end 1001; B (pending since
		// 100) starts then; C waits behind B (head-of-line) until 1301.
		{"Warm", sim.WindowWarm, []string{"A", "B", "C", "D"}, 1, 2, map[string]int64{"A": 1, "B": 1001, "C": 1301}},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			jobs := windowJobs()
			s, idx, err := sim.NewWindow(cfg, jobs, 500, 1000, tt.Mode, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, i := range idx {
				names = append(names, jobs[i].Name)
			}
			if len(names) != len(tt.WantNames) {
				t.Fatalf("window jobs = %v, want %v", names, tt.WantNames)
			}
			for i := range names {
				if names[i] != tt.WantNames[i] {
					t.Fatalf("window jobs = %v, want %v", names, tt.WantNames)
				}
			}
			if s.Now() != 500 {
				t.Errorf("Now = %d, want 500", s.Now())
			}
			snap := s.Snapshot()
			if len(snap.Running) != tt.Running || len(snap.Pending) != tt.Pending {
				t.Errorf("snapshot at start: %d running, %d pending; want %d, %d", len(snap.Running), len(snap.Pending), tt.Running, tt.Pending)
			}
			if err := s.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			for k, i := range idx {
				want, ok := tt.Starts[jobs[i].Name]
				got, started := s.Started(sim.JobID(k))
				if ok != started || ok && got != want {
					t.Errorf("%s: start %d (started %v), want %d (%v)", jobs[i].Name, got, started, want, ok)
				}
			}
		})
	}
}
