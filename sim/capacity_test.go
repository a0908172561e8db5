package sim_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mirage-hpc/mirage/sim"
)

// capBase is the time origin of the capacity tests (TraceStart 0 means
// "never ran"), a multiple of every bucket they use.
const capBase = 1_000_000

// capJob builds a job that ran in the trace: submitted at capBase+submit,
// started at capBase+start, ran for run seconds on nodes nodes.
func capJob(submit, start, run int64, nodes int32) sim.Job {
	return sim.Job{User: 0, Nodes: nodes, Submit: capBase + submit, After: sim.NoJob, LimitSec: 1 << 20, RunSec: run, TraceStart: capBase + start}
}

// capSteps builds steps from (at - capBase, nodes) pairs.
func capSteps(pairs ...int64) []sim.CapacityStep {
	var s []sim.CapacityStep
	for i := 0; i < len(pairs); i += 2 {
		s = append(s, sim.CapacityStep{At: capBase + pairs[i], Nodes: int(pairs[i+1]), Unannounced: true})
	}
	return s
}

func TestInferCapacity(t *testing.T) {
	waited := capJob(0, 250, 100, 6) // pending through buckets 0..2
	tests := []struct {
		Name string
		Jobs []sim.Job
		Opts sim.CapacityOptions
		Want []sim.CapacityStep
	}{
		{Name: "Empty", Opts: sim.CapacityOptions{Nodes: 10}},
		{
			Name: "NothingRan",
			Jobs: []sim.Job{{Nodes: 1, Submit: capBase, After: sim.NoJob, LimitSec: 60, Cancel: capBase + 30}},
			Opts: sim.CapacityOptions{Nodes: 10, BucketSec: 100},
		},
		{
			// Buckets [0,100) and [100,200) see 4 nodes, [200,300) and
			// [300,400) see 6; then back to Nodes.
			Name: "BucketMaxima",
			Jobs: []sim.Job{capJob(0, 0, 150, 4), capJob(0, 250, 100, 6)},
			Opts: sim.CapacityOptions{Nodes: 10, BucketSec: 100},
			Want: capSteps(0, 4, 200, 6, 400, 10),
		},
		{
			// Nothing runs in buckets 1..4: capacity 0 there.
			Name: "IdleGap",
			Jobs: []sim.Job{capJob(0, 0, 50, 1), capJob(0, 500, 50, 1)},
			Opts: sim.CapacityOptions{Nodes: 10, BucketSec: 100},
			Want: capSteps(0, 1, 100, 0, 500, 1, 600, 10),
		},
		{
			// A job submitted before anything ran waits for the first start.
			Name: "SubmittedBeforeFirstStart",
			Jobs: []sim.Job{capJob(-250, 0, 50, 3)},
			Opts: sim.CapacityOptions{Nodes: 10, BucketSec: 100},
			Want: capSteps(-300, 0, 0, 3, 100, 10),
		},
		{
			// One job ends as the other starts: 3 nodes busy, not 6.
			Name: "EndBeforeStart",
			Jobs: []sim.Job{capJob(0, 0, 100, 3), capJob(0, 100, 50, 3)},
			Opts: sim.CapacityOptions{Nodes: 10, BucketSec: 1000},
			Want: capSteps(0, 3, 1000, 10),
		},
		{
			Name: "ZeroRunIgnored",
			Jobs: []sim.Job{capJob(0, 0, 100, 3), capJob(0, 50, 0, 5)},
			Opts: sim.CapacityOptions{Nodes: 10, BucketSec: 1000},
			Want: capSteps(0, 3, 1000, 10),
		},
		{
			Name: "CappedAtNodes",
			Jobs: []sim.Job{capJob(0, 0, 100, 8), capJob(0, 0, 100, 4), capJob(0, 100, 100, 2)},
			Opts: sim.CapacityOptions{Nodes: 10, BucketSec: 100},
			Want: capSteps(100, 2, 200, 10),
		},
		{
			// Nodes 0: the most ever busy (8) is the cap.
			Name: "NodesFromTrace",
			Jobs: []sim.Job{capJob(0, 0, 100, 8), capJob(0, 100, 100, 2)},
			Opts: sim.CapacityOptions{BucketSec: 100},
			Want: capSteps(100, 2, 200, 8),
		},
		{
			Name: "NothingDiffers",
			Jobs: []sim.Job{capJob(0, 0, 100, 10)},
			Opts: sim.CapacityOptions{Nodes: 10, BucketSec: 100},
		},
		{
			Name: "Headroom",
			Jobs: []sim.Job{capJob(0, 0, 150, 4), capJob(0, 250, 100, 9)},
			Opts: sim.CapacityOptions{Nodes: 10, BucketSec: 100, Headroom: 2},
			Want: capSteps(0, 6, 200, 10),
		},
		{
			// Buckets 0..3 hold 4, 0, 0, 6: each bucket takes the most of
			// its neighbours, one bucket more on either side.
			Name: "Smooth",
			Jobs: []sim.Job{capJob(0, 0, 50, 4), capJob(0, 300, 50, 6)},
			Opts: sim.CapacityOptions{Nodes: 10, BucketSec: 100, Smooth: 1},
			Want: capSteps(-100, 4, 200, 6, 500, 10),
		},
		{
			// Only bucket 0..2 saw a job wait 250 s: bucket 3 keeps Nodes.
			Name: "MinPending",
			Jobs: []sim.Job{capJob(0, 0, 50, 1), waited, capJob(0, 300, 50, 2)},
			Opts: sim.CapacityOptions{Nodes: 10, BucketSec: 100, MinPendingSec: 200},
			Want: capSteps(0, 1, 100, 0, 200, 6, 300, 10),
		},
		{
			Name: "MinPendingNotReached",
			Jobs: []sim.Job{capJob(0, 0, 50, 1), waited},
			Opts: sim.CapacityOptions{Nodes: 10, BucketSec: 100, MinPendingSec: 251},
		},
		{
			// A job held by a predecessor did not wait for nodes.
			Name: "MinPendingIgnoresDependents",
			Jobs: []sim.Job{capJob(0, 0, 50, 1), func() sim.Job { j := waited; j.After = 0; return j }()},
			Opts: sim.CapacityOptions{Nodes: 10, BucketSec: 100, MinPendingSec: 200},
		},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			in := slices.Clone(tt.Jobs)
			got := sim.InferCapacity(in, tt.Opts)
			if diff := cmp.Diff(tt.Want, got); diff != "" {
				t.Errorf("steps mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.Jobs, in); diff != "" {
				t.Errorf("jobs changed (-before +after):\n%s", diff)
			}
		})
	}
}

// denseCapacity is InferCapacity by brute force over every bucket, for
// small traces: the reference the property test compares against.
func denseCapacity(jobs []sim.Job, o sim.CapacityOptions) []sim.CapacityStep {
	b := o.BucketSec
	div := func(a int64) int64 { // floor division
		q := a / b
		if a%b != 0 && a < 0 {
			q--
		}
		return q
	}
	lo, hi, ran := int64(1)<<62, int64(-1)<<62, false
	for _, j := range jobs {
		lo = min(lo, div(j.Submit))
		if j.TraceStart > 0 && j.RunSec > 0 {
			hi = max(hi, div(j.TraceStart+j.RunSec-1))
			ran = true
		}
	}
	if !ran {
		return nil
	}
	// Busy nodes at second t: jobs with TraceStart <= t < TraceStart+RunSec.
	busyAt := func(t int64) int {
		n := 0
		for _, j := range jobs {
			if j.TraceStart > 0 && j.RunSec > 0 && j.TraceStart <= t && t < j.TraceStart+j.RunSec {
				n += int(j.Nodes)
			}
		}
		return n
	}
	raw := map[int64]int{}
	top := 0
	for x := lo; x <= hi; x++ {
		m := 0
		for t := x * b; t < (x+1)*b; t++ {
			m = max(m, busyAt(t))
		}
		raw[x] = m + o.Headroom
		top = max(top, raw[x])
	}
	nodes := o.Nodes
	if nodes <= 0 {
		nodes = top
	}
	k := int64(o.Smooth)
	val := func(x int64) int {
		v, in := 0, false
		for y := x - k; y <= x+k; y++ {
			if r, ok := raw[y]; ok {
				v, in = max(v, r), true
			}
		}
		if !in {
			return nodes
		}
		v = max(0, min(v, nodes))
		if o.MinPendingSec > 0 {
			starved := false
			for _, j := range jobs {
				from := max(j.Submit, j.Eligible)
				if j.TraceStart > 0 && j.After == sim.NoJob && j.TraceStart-from >= o.MinPendingSec &&
					div(from) <= x && x <= div(j.TraceStart-1) {
					starved = true
				}
			}
			if !starved {
				return nodes
			}
		}
		return v
	}
	var steps []sim.CapacityStep
	cur := nodes
	for x := lo - k - 1; x <= hi+k+1; x++ {
		if v := val(x); v != cur {
			steps = append(steps, sim.CapacityStep{At: x * b, Nodes: v, Unannounced: true})
			cur = v
		}
	}
	return steps
}

func TestInferCapacity_Dense(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 0))
	for round := range 300 {
		n := rng.IntN(12)
		jobs := make([]sim.Job, n)
		for i := range jobs {
			submit := rng.Int64N(400) - 100
			j := capJob(submit, submit+rng.Int64N(200), rng.Int64N(150), 1+rng.Int32N(5))
			if rng.IntN(5) == 0 {
				j.TraceStart = 0 // never ran
			}
			if rng.IntN(6) == 0 {
				j.After = 0
			}
			jobs[i] = j
		}
		opts := sim.CapacityOptions{
			Nodes:     rng.IntN(14),
			BucketSec: 10 + rng.Int64N(60),
			Smooth:    rng.IntN(3),
			Headroom:  rng.IntN(3),
		}
		if rng.IntN(2) == 0 {
			opts.MinPendingSec = 1 + rng.Int64N(150)
		}
		want := denseCapacity(jobs, opts)
		got := sim.InferCapacity(jobs, opts)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("round %d, opts %+v, jobs %+v: steps mismatch (-dense +got):\n%s", round, opts, jobs, diff)
		}
		// Shuffled input, same steps.
		rng.Shuffle(len(jobs), func(a, b int) { jobs[a], jobs[b] = jobs[b], jobs[a] })
		if opts.MinPendingSec == 0 { // After indices move with the shuffle
			if diff := cmp.Diff(want, sim.InferCapacity(jobs, opts)); diff != "" {
				t.Fatalf("round %d: shuffled input changed the steps:\n%s", round, diff)
			}
		}
	}
}

// TestInferCapacity_TraceFeasible checks that the trace's own schedule
// fits under the inferred capacity, and that the steps form a valid
// Config a simulation accepts.
func TestInferCapacity_TraceFeasible(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 0))
	const nodes = 16
	jobs := make([]sim.Job, 400)
	for i := range jobs {
		submit := rng.Int64N(86400 * 5)
		jobs[i] = capJob(submit, submit+rng.Int64N(7200), 60+rng.Int64N(20000), 1+rng.Int32N(4))
	}
	steps := sim.InferCapacity(jobs, sim.CapacityOptions{Nodes: nodes, BucketSec: 3600})
	if len(steps) == 0 {
		t.Fatal("no steps")
	}
	for i := 1; i < len(steps); i++ {
		if steps[i].At <= steps[i-1].At || steps[i].Nodes == steps[i-1].Nodes {
			t.Fatalf("steps %d and %d: not strictly sorted or not a change: %+v %+v", i-1, i, steps[i-1], steps[i])
		}
	}
	if last := steps[len(steps)-1]; last.Nodes != nodes {
		t.Errorf("last step %+v does not return to %d nodes", last, nodes)
	}
	capAt := func(t int64) int {
		c := nodes
		for _, s := range steps {
			if s.At > t {
				break
			}
			c = s.Nodes
		}
		return c
	}
	for _, j := range jobs {
		busy := 0
		for _, k := range jobs {
			if k.TraceStart <= j.TraceStart && j.TraceStart < k.TraceStart+k.RunSec {
				busy += int(k.Nodes)
			}
		}
		if c := capAt(j.TraceStart); busy > c && busy <= nodes {
			t.Fatalf("at %d the trace has %d nodes busy, capacity %d", j.TraceStart, busy, c)
		}
	}
	cfg := sim.DefaultConfig()
	cfg.Nodes = nodes
	cfg.Capacity = steps
	if _, _, err := sim.Replay(context.Background(), cfg, jobs); err != nil {
		t.Fatalf("replay with inferred capacity: %v", err)
	}
}

func BenchmarkInferCapacity(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 0))
	jobs := make([]sim.Job, 25000)
	for i := range jobs {
		submit := rng.Int64N(86400 * 150)
		jobs[i] = capJob(submit, submit+rng.Int64N(36000), 60+rng.Int64N(86400), 1+rng.Int32N(4))
	}
	b.ReportAllocs()
	for b.Loop() {
		sim.InferCapacity(jobs, sim.CapacityOptions{Nodes: 88, Smooth: 1, MinPendingSec: 3600})
	}
}
