package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// twoPartitions makes a seeded trace of jobs in partitions "a" (a busy
// pool of 8 nodes) and "b" (16 nodes), with real starts: each job's wait
// is random, so the fidelity figures are defined.
func twoPartitions(seed uint64, perPart int) []trace.Job {
	rng := rand.New(rand.NewPCG(seed, 1))
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var jobs []trace.Job
	for k, part := range []struct {
		name  string
		nodes int
	}{{"a", 8}, {"b", 16}} {
		for i := range perPart {
			j := trace.NewJob()
			j.JobID = fmt.Sprintf("%s%d", part.name, i)
			j.User, j.Partition = fmt.Sprintf("u%d", rng.IntN(5)), part.name
			j.NNodes = int32(1 + rng.IntN(part.nodes/2))
			j.Submit = t0.Add(time.Duration(i*600+k*7) * time.Second)
			j.Eligible = j.Submit
			j.TimelimitSec = 4 * 3600
			j.Start = j.Submit.Add(time.Duration(rng.IntN(7200)) * time.Second)
			j.End = j.Start.Add(time.Duration(600+rng.IntN(3*3600)) * time.Second)
			j.State = trace.StateCompleted
			jobs = append(jobs, j)
		}
	}
	return jobs
}

func partProfile(t *testing.T, parts ...sim.Partition) sim.Profile {
	t.Helper()
	p := mustProfile(t, "default", 32)
	p.Partitions = parts
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRun_Partitions: a multi-partition trace replays each partition
// independently, on its own nodes: a partition's figures are those of
// its jobs replayed alone, and the other partition's jobs do not change
// them; the counts add up.
func TestRun_Partitions(t *testing.T) {
	ctx := context.Background()
	jobs := twoPartitions(1, 300)
	prof := partProfile(t, sim.Partition{Name: "a", Nodes: 8}, sim.Partition{Name: "b", Nodes: 16})
	sum, err := Run(ctx, In{Trace: "two", Jobs: jobs, Profile: prof}, Options{AllowSkip: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Partitions) != 2 || sum.Partitions[0].Name != "a" || sum.Partitions[1].Name != "b" {
		t.Fatalf("partitions %v", sum.Partitions)
	}
	if sum.Jobs != len(jobs) || sum.Partitions[0].Jobs+sum.Partitions[1].Jobs != sum.Jobs || sum.Nodes != 24 {
		t.Errorf("jobs %d (a %d, b %d), nodes %d; want %d jobs on 24 nodes", sum.Jobs, sum.Partitions[0].Jobs, sum.Partitions[1].Jobs, sum.Nodes, len(jobs))
	}
	if sum.WaitSpearman == nil || sum.Compared != sum.Partitions[0].Compared+sum.Partitions[1].Compared {
		t.Errorf("pooled fidelity: %d compared, Spearman %v", sum.Compared, sum.WaitSpearman)
	}
	// Partition a alone, as one pool of 8 nodes.
	var aJobs []trace.Job
	for _, j := range jobs {
		if j.Partition == "a" {
			aJobs = append(aJobs, j)
		}
	}
	alone, err := Run(ctx, In{Trace: "a", Jobs: aJobs, Profile: mustProfile(t, "default", 8)}, Options{AllowSkip: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := figures(sum.Partitions[0].Summary), figures(alone); got != want {
		t.Errorf("partition a in the cluster:\n%s\nalone:\n%s", got, want)
	}
	// More jobs in b change nothing in a.
	more := append(twoPartitions(1, 300), twoPartitions(2, 300)[300:]...)
	for i := 600; i < len(more); i++ {
		more[i].JobID += "x"
	}
	sum2, err := Run(ctx, In{Trace: "more", Jobs: more, Profile: prof}, Options{AllowSkip: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := figures(sum2.Partitions[0].Summary), figures(sum.Partitions[0].Summary); got != want {
		t.Errorf("partition a changed with b's load:\n%s\nwas\n%s", got, want)
	}
	if sum2.Partitions[1].Jobs == sum.Partitions[1].Jobs {
		t.Error("partition b did not get the extra jobs")
	}
}

// TestRun_PartitionsInferredAndDefault: a partition of nodes 0 is sized
// from the trace; jobs of no listed partition run in the default one.
func TestRun_PartitionsInferredAndDefault(t *testing.T) {
	jobs := twoPartitions(3, 200)
	prof := partProfile(t, sim.Partition{Name: "a"})
	sum, err := Run(context.Background(), In{Trace: "two", Jobs: jobs, Profile: prof}, Options{AllowSkip: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Partitions) != 2 || sum.Partitions[1].Name != sim.DefaultPartition || sum.Partitions[1].Nodes != 32 {
		t.Fatalf("partitions: %+v", sum.Partitions)
	}
	a := sum.Partitions[0]
	var idx []int
	for i, j := range jobs {
		if j.Partition == "a" {
			idx = append(idx, i)
		}
	}
	if !a.NodesInferred || a.Nodes != sim.PeakBusy(jobs, idx) {
		t.Errorf("partition a: %d nodes (inferred %v), want the trace's peak %d", a.Nodes, a.NodesInferred, sim.PeakBusy(jobs, idx))
	}
}

// figures is a summary's simulated outcome, the wall time left out.
func figures(s Summary) string {
	s.WallSec, s.EventsPerSec = 0, 0
	b, _ := json.Marshal(s)
	return string(b)
}

// TestRun_JobsAsFile: a trace given as its jobs replays as the file.
func TestRun_JobsAsFile(t *testing.T) {
	path := synth500(t)
	jobs, err := trace.ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	prof := mustProfile(t, "default", 0)
	a, err := Run(context.Background(), In{Trace: path, Profile: prof}, Options{AllowSkip: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(context.Background(), In{Trace: path, Jobs: jobs, Profile: prof}, Options{AllowSkip: true})
	if err != nil {
		t.Fatal(err)
	}
	if figures(a) != figures(b) {
		t.Errorf("file:\n%s\njobs:\n%s", figures(a), figures(b))
	}
}
