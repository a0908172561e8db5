package sim_test

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mirage-hpc/mirage/ingest/ls6test"
	"github.com/mirage-hpc/mirage/sim"
)

// infJob builds a job that ran in the trace: submitted at submit, started at
// start, ran for run seconds.
func infJob(user int32, submit, start, run int64) sim.Job {
	return sim.Job{User: user, Nodes: 1, Submit: submit, After: sim.NoJob, LimitSec: 1 << 20, RunSec: run, TraceStart: start}
}

func TestInferDependencies(t *testing.T) {
	withAfter := infJob(0, 0, 5000, 10)
	withAfter.After = 0
	withEligible := infJob(0, 0, 5000, 10)
	withEligible.Eligible = 4000
	cancelled := sim.Job{User: 0, Nodes: 1, Submit: 0, After: sim.NoJob, LimitSec: 600, Cancel: 4990}

	tests := []struct {
		Name      string
		Jobs      []sim.Job
		Opts      sim.InferOptions
		WantAfter []sim.JobID
		Want      sim.Inference
	}{
		{Name: "Empty", Want: sim.Inference{}},
		{
			// Submitted together; each starts as the one before it ends.
			Name:      "Chain",
			Jobs:      []sim.Job{infJob(0, 0, 100, 5000), infJob(0, 0, 5100, 5000), infJob(0, 0, 10160, 10)},
			WantAfter: []sim.JobID{sim.NoJob, 0, 1},
			Want:      sim.Inference{Jobs: 2, Waited: 3, WaitedOverHour: 2, Candidates: 2},
		},
		{
			Name:      "GapEdges",
			Jobs:      []sim.Job{infJob(0, 0, 10, 990), infJob(0, 0, 1120, 10), infJob(1, 0, 10, 990), infJob(1, 0, 1121, 10)},
			WantAfter: []sim.JobID{sim.NoJob, 0, sim.NoJob, sim.NoJob},
			Want:      sim.Inference{Jobs: 1, Waited: 2},
		},
		{
			Name:      "OtherGap",
			Jobs:      []sim.Job{infJob(0, 0, 10, 990), infJob(0, 0, 1121, 10)},
			Opts:      sim.InferOptions{GapSec: 121},
			WantAfter: []sim.JobID{sim.NoJob, 0},
			Want:      sim.Inference{Jobs: 1, Waited: 1},
		},
		{
			Name:      "OtherUser",
			Jobs:      []sim.Job{infJob(0, 0, 10, 990), infJob(1, 0, 1000, 10), infJob(-1, 0, 10, 990), infJob(-1, 0, 1000, 10)},
			WantAfter: []sim.JobID{sim.NoJob, sim.NoJob, sim.NoJob, sim.NoJob},
			Want:      sim.Inference{Waited: 2},
		},
		{
			Name:      "SubmittedLater",
			Jobs:      []sim.Job{infJob(0, 0, 1000, 10), infJob(0, 1, 10, 990)},
			WantAfter: []sim.JobID{sim.NoJob, sim.NoJob},
			Want:      sim.Inference{Waited: 1},
		},
		{
			// K ended before J was submitted: J's wait was not K's doing.
			Name:      "EndedBeforeSubmit",
			Jobs:      []sim.Job{infJob(0, 0, 1, 999), infJob(0, 1000, 1100, 10), infJob(0, 999, 1100, 10)},
			WantAfter: []sim.JobID{sim.NoJob, sim.NoJob, 0},
			Want:      sim.Inference{Jobs: 1, Waited: 2},
		},
		{
			Name:      "MinWait",
			Jobs:      []sim.Job{infJob(0, 0, 1, 999), infJob(0, 940, 1000, 10), infJob(0, 939, 1000, 10)},
			WantAfter: []sim.JobID{sim.NoJob, sim.NoJob, 0},
			Want:      sim.Inference{Jobs: 1, Waited: 1},
		},
		{
			Name:      "MinWaitOption",
			Jobs:      []sim.Job{infJob(0, 0, 1, 999), infJob(0, 900, 1000, 10)},
			Opts:      sim.InferOptions{MinWaitSec: 100},
			WantAfter: []sim.JobID{sim.NoJob, sim.NoJob},
		},
		{
			// Jobs 0 and 2 end at 1000, job 1 at 990, job 3 at 1010 but it
			// was submitted after job 4, and job 5 ends after 4 starts.
			Name: "LatestEndLowestIndex",
			Jobs: []sim.Job{
				infJob(0, 0, 10, 990), infJob(0, 0, 10, 980), infJob(0, 0, 20, 980),
				infJob(0, 6, 20, 990), infJob(0, 5, 1050, 10), infJob(0, 0, 30, 1021),
			},
			WantAfter: []sim.JobID{sim.NoJob, sim.NoJob, sim.NoJob, sim.NoJob, 0, sim.NoJob},
			Want:      sim.Inference{Jobs: 1, Waited: 1},
		},
		{
			Name: "NotPredecessors",
			Jobs: []sim.Job{
				infJob(0, 0, 1000, 0), // ran 0 s
				cancelled,             // never ran
				infJob(0, 0, 1050, 10),
			},
			WantAfter: []sim.JobID{sim.NoJob, sim.NoJob, sim.NoJob},
			Want:      sim.Inference{Waited: 2},
		},
		{
			Name:      "LeftAlone",
			Jobs:      []sim.Job{infJob(0, 0, 10, 4980), withAfter, withEligible},
			WantAfter: []sim.JobID{sim.NoJob, 0, sim.NoJob},
			Want:      sim.Inference{Waited: 2, Candidates: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			got := sim.InferDependencies(tt.Jobs, tt.Opts)
			if diff := cmp.Diff(tt.Want, got); diff != "" {
				t.Errorf("Inference mismatch (-want +got):\n%s", diff)
			}
			after := make([]sim.JobID, len(tt.Jobs))
			for i := range tt.Jobs {
				after[i] = tt.Jobs[i].After
			}
			if len(tt.Jobs) == 0 {
				after = nil
			}
			if diff := cmp.Diff(tt.WantAfter, after); diff != "" {
				t.Errorf("After mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// inferNaive is the O(n^2) definition InferDependencies implements.
func inferNaive(jobs []sim.Job, gap, minWait int64) []sim.JobID {
	out := make([]sim.JobID, len(jobs))
	for i, j := range jobs {
		out[i] = j.After
		if j.TraceStart <= 0 || j.TraceStart-j.Submit <= minWait || j.User < 0 || j.After != sim.NoJob || j.Eligible > j.Submit {
			continue
		}
		best, bestEnd := sim.NoJob, int64(0)
		for k, p := range jobs {
			end := p.TraceStart + p.RunSec
			if k == i || p.User != j.User || p.TraceStart <= 0 || p.RunSec <= 0 || p.Submit > j.Submit ||
				end > j.TraceStart || end < j.TraceStart-gap || end <= j.Submit {
				continue
			}
			if best == sim.NoJob || end > bestEnd {
				best, bestEnd = sim.JobID(k), end
			}
		}
		out[i] = best
	}
	return out
}

func TestInferDependencies_MatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 1))
	for round := range 200 {
		n := 1 + r.IntN(60)
		jobs := make([]sim.Job, n)
		for i := range jobs {
			submit := int64(r.IntN(2000))
			start := submit + int64(r.IntN(1500))
			if r.IntN(8) == 0 {
				start = 0 // never ran
			}
			jobs[i] = infJob(int32(r.IntN(4))-1, submit, start, int64(r.IntN(400)))
			if r.IntN(10) == 0 {
				jobs[i].Eligible = submit + 10
			}
		}
		want := inferNaive(jobs, 120, 60)
		sim.InferDependencies(jobs, sim.InferOptions{})
		for i := range jobs {
			if jobs[i].After != want[i] {
				t.Fatalf("round %d job %d: After = %d, want %d\njobs: %+v", round, i, jobs[i].After, want[i], jobs)
			}
		}
	}
}

// TestInferDependencies_LS6 reproduces the dependency inference's measured figures: of the 5,941
// LS6 jobs that ran and waited over an hour, 1,757 started within two
// minutes of the end of a same-user job submitted no later than them.
func TestInferDependencies_LS6(t *testing.T) {
	tjobs := ls6test.Jobs(t)
	jobs, conv, err := sim.FromTrace(tjobs, sim.FromTraceOptions{Infer: &sim.InferOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	want := sim.Conversion{
		Jobs: 24777, Users: 367, Cancelled: 3328,
		Inference: sim.Inference{Jobs: 2433, Waited: 8938, WaitedOverHour: 1757, Candidates: 5941},
	}
	if diff := cmp.Diff(want, conv); diff != "" {
		t.Errorf("conversion mismatch (-want +got):\n%s", diff)
	}
	byName := map[string]sim.JobID{}
	for i := range jobs {
		byName[jobs[i].Name] = sim.JobID(i)
		j := &jobs[i]
		if j.After == sim.NoJob {
			continue
		}
		k := &jobs[j.After]
		if k.User != j.User || k.Submit > j.Submit || k.TraceStart >= j.TraceStart {
			t.Errorf("job %s: After %s is not an earlier same-user job", j.Name, k.Name)
		}
	}
	// The dimer chain: dimer.13 to .15 each start within a minute
	// of the previous one's end; dimer.11 and .12 started days after theirs.
	for name, pred := range map[string]string{"478730": "", "478731": "", "478732": "478731", "478733": "478732", "478734": "478733"} {
		got := jobs[byName[name]].After
		if pred == "" && got != sim.NoJob || pred != "" && (got == sim.NoJob || jobs[got].Name != pred) {
			t.Errorf("job %s: After = %d, want %q", name, got, pred)
		}
	}

	// With ends capped at the limit (InferDependencies on the converted
	// jobs alone), predecessors that overran their limit by Slurm's kill
	// grace (up to 30 s on LS6) fall out of the window.
	capped, _, err := sim.FromTrace(tjobs, sim.FromTraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := sim.InferDependencies(capped, sim.InferOptions{})
	if want := (sim.Inference{Jobs: 2418, Waited: 8938, WaitedOverHour: 1741, Candidates: 5941}); got != want {
		t.Errorf("capped-end inference = %+v, want %+v", got, want)
	}
}
