package sim_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/simtest"
)

// TestNewFromTable: the simulation of an adopted table is New's, the
// table is normalised in place (RunSec capped at the limit) where New
// leaves its input as it was, and the jobs keep their names.
func TestNewFromTable(t *testing.T) {
	cfg := simtest.Cluster(4)
	mk := func() []sim.Job {
		js := []sim.Job{simtest.Job(2, 0, 600, 9000), simtest.Job(4, 10, 1200, 300), simtest.Job(1, 20, 300, 100)}
		for i := range js {
			js[i].Name = fmt.Sprintf("job-%d", i)
		}
		return js
	}
	copied := mk()
	tab := sim.TableOf(mk())
	want, _ := schedule(t, sim.New, cfg, copied)
	fromTable := func(cfg sim.Config, _ []sim.Job, rec sim.Recorder) (*sim.Sim, error) {
		return sim.NewFromTable(cfg, tab, rec)
	}
	if got, _ := schedule(t, fromTable, cfg, copied); !slices.Equal(got, want) {
		t.Errorf("NewFromTable schedule %v, New %v", got, want)
	}
	if copied[0].RunSec != 9000 || tab.Job(0).RunSec != 600 {
		t.Errorf("RunSec after New %d (want 9000, unchanged), in the adopted table %d (want 600, capped)", copied[0].RunSec, tab.Job(0).RunSec)
	}
	for i := range copied {
		if got := tab.Job(i).Name; got != copied[i].Name {
			t.Errorf("table job %d is named %q, want %q", i, got, copied[i].Name)
		}
	}
}

// TestTable_Names: a table returns every job as given, names included,
// across the name blocks' boundaries, for empty names and for one longer
// than a block; so do a simulation of it and one it adds jobs to.
func TestTable_Names(t *testing.T) {
	var jobs []sim.Job
	for i := range 20000 { // about 200 KB of names: four blocks
		j := simtest.Job(1, int64(i), 60, 30)
		switch {
		case i%97 == 0:
			j.Name = ""
		case i == 12345:
			j.Name = strings.Repeat("x", 70000) // a block of its own
		default:
			j.Name = fmt.Sprintf("%d_%s", 1000000+i, strings.Repeat("a", i%7))
		}
		jobs = append(jobs, j)
	}
	tab := sim.TableOf(jobs)
	if tab.Len() != len(jobs) {
		t.Fatalf("table holds %d jobs, want %d", tab.Len(), len(jobs))
	}
	all := tab.Jobs()
	for i := range jobs {
		if all[i] != jobs[i] || tab.Job(i) != jobs[i] {
			t.Fatalf("job %d: table has %+v / %+v, want %+v", i, tab.Job(i).Name, all[i].Name, jobs[i].Name)
		}
	}
	s, err := sim.New(simtest.Cluster(4), jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Clone(nil)
	p, err := c.Submit(sim.Job{Name: "P", Nodes: 1, After: sim.NoJob, LimitSec: 60, RunSec: 60})
	if err != nil {
		t.Fatal(err)
	}
	q, err := c.SubmitBatch([]sim.Job{{Name: "Q1", Nodes: 1, After: sim.NoJob, LimitSec: 60}, {Nodes: 1, After: sim.NoJob, LimitSec: 60}, {Name: "Q3", Nodes: 1, After: sim.NoJob, LimitSec: 60}})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"P", "Q1", "", "Q3"} {
		id := p + sim.JobID(i)
		if i > 0 {
			id = q + sim.JobID(i-1)
		}
		if got := c.Job(id).Name; got != want {
			t.Errorf("added job %d is named %q, want %q", id, got, want)
		}
	}
	if s.NumJobs() != len(jobs) || s.Job(12345).Name != jobs[12345].Name || s.Job(19999).Name != jobs[19999].Name {
		t.Errorf("the original simulation changed with its clone: %d jobs", s.NumJobs())
	}
}
