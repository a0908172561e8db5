package sim_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/simtest"
)

// denseCausal is InferCapacity with Causal by brute force over every
// second: in bucket b at t, the most busy in buckets b-1-Smooth..b-1 or
// in b up to t, plus Headroom, capped; Nodes outside the span and, with
// MinPendingSec, in buckets at whose start no job had been pending that
// long.
func denseCausal(jobs []sim.Job, o sim.CapacityOptions) []sim.CapacityStep {
	b := o.BucketSec
	div := func(a int64) int64 {
		q := a / b
		if a%b != 0 && a < 0 {
			q--
		}
		return q
	}
	ran := func(j sim.Job) bool { return j.TraceStart > 0 && j.RunSec > 0 }
	lo, hi, any := int64(1)<<62, int64(-1)<<62, false
	for _, j := range jobs {
		lo = min(lo, div(j.Submit))
		if ran(j) {
			lo = min(lo, div(j.TraceStart))
			hi = max(hi, div(j.TraceStart+j.RunSec))
			any = true
		}
	}
	if !any {
		return nil
	}
	busyAt := func(t int64) int {
		n := 0
		for _, j := range jobs {
			if ran(j) && j.TraceStart <= t && t < j.TraceStart+j.RunSec {
				n += int(j.Nodes)
			}
		}
		return n
	}
	peak := map[int64]int{}
	for x := lo; x <= hi; x++ {
		for t := x * b; t < (x+1)*b; t++ {
			peak[x] = max(peak[x], busyAt(t))
		}
	}
	raw := func(t int64) int { // before Headroom and the cap
		x, v := div(t), 0
		for y := x - 1 - int64(o.Smooth); y < x; y++ {
			v = max(v, peak[y]) // 0 outside the span
		}
		for s := x * b; s <= t; s++ {
			v = max(v, busyAt(s))
		}
		return v
	}
	nodes := o.Nodes
	if nodes <= 0 {
		for t := lo * b; t < (hi+1)*b; t++ {
			nodes = max(nodes, raw(t)+o.Headroom)
		}
	}
	starved := func(x int64) bool {
		for _, j := range jobs {
			if j.After != sim.NoJob {
				continue
			}
			until := int64(1) << 62
			if j.TraceStart > 0 {
				until = j.TraceStart
			} else if j.Cancel > 0 {
				until = j.Cancel
			}
			if max(j.Submit, j.Eligible)+o.MinPendingSec <= x*b && x*b < until {
				return true
			}
		}
		return false
	}
	var steps []sim.CapacityStep
	cur := nodes
	for t := lo * b; t <= (hi+1)*b; t++ {
		v := nodes
		if t < (hi+1)*b && (o.MinPendingSec == 0 || starved(div(t))) {
			v = max(0, min(raw(t)+o.Headroom, nodes))
		}
		if v != cur {
			steps = append(steps, sim.CapacityStep{At: t, Nodes: v, Unannounced: true})
			cur = v
		}
	}
	return steps
}

func TestInferCapacity_CausalDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 0))
	for round := range 400 {
		n := rng.IntN(10)
		jobs := make([]sim.Job, n)
		for i := range jobs {
			submit := rng.Int64N(300) - 100
			j := capJob(submit, submit+rng.Int64N(150), rng.Int64N(120), 1+rng.Int32N(5))
			switch rng.IntN(6) {
			case 0:
				j.TraceStart = 0 // never ran
			case 1:
				j.TraceStart, j.Cancel = 0, j.Submit+rng.Int64N(200)
			case 2:
				j.After = 0
			}
			jobs[i] = j
		}
		opts := sim.CapacityOptions{
			Nodes:     rng.IntN(14),
			BucketSec: 10 + rng.Int64N(50),
			Smooth:    rng.IntN(3),
			Headroom:  rng.IntN(3),
			Causal:    true,
		}
		if rng.IntN(2) == 0 {
			opts.MinPendingSec = 1 + rng.Int64N(150)
		}
		want := denseCausal(jobs, opts)
		got := sim.InferCapacity(jobs, opts)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("round %d, opts %+v, jobs %+v: steps mismatch (-dense +got):\n%s", round, opts, jobs, diff)
		}
	}
}

// TestInferCapacity_CausalPrefix: the causal capacity up to t depends only
// on what is known at t: inferring it from the jobs with every start
// after t hidden gives the same steps up to t.
func TestInferCapacity_CausalPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 0))
	jobs := make([]sim.Job, 300)
	for i := range jobs {
		submit := rng.Int64N(86400 * 4)
		jobs[i] = capJob(submit, submit+rng.Int64N(7200), 60+rng.Int64N(20000), 1+rng.Int32N(4))
	}
	opts := sim.CapacityOptions{Nodes: 40, BucketSec: 3600, Smooth: 1, Causal: true}
	full := sim.InferCapacity(jobs, opts)
	upTo := func(steps []sim.CapacityStep, t int64) []sim.CapacityStep {
		var out []sim.CapacityStep
		for _, s := range steps {
			if s.At <= t {
				out = append(out, s)
			}
		}
		return out
	}
	for range 50 {
		at := capBase + rng.Int64N(86400*4)
		known := make([]sim.Job, 0, len(jobs))
		for _, j := range jobs {
			if j.Submit > at {
				continue
			}
			if j.TraceStart > at {
				j.TraceStart = 0
			}
			known = append(known, j)
		}
		if diff := cmp.Diff(upTo(full, at), upTo(sim.InferCapacity(known, opts), at)); diff != "" {
			t.Fatalf("steps up to %d differ with the future hidden (-full +known):\n%s", at, diff)
		}
	}
}

// TestEstimatedStart_Unannounced: the planner plans with an announced
// capacity step to come but not with an unannounced one. On 4 nodes, 2
// busy until 1000 (limit), capacity 0 from 500 to 2000: a 2-node job
// fits now only for what the planner knows.
func TestEstimatedStart_Unannounced(t *testing.T) {
	for _, tt := range []struct {
		unannounced bool
		want        int64
	}{{false, 2000}, {true, 0}} {
		cfg := simtest.Cluster(4)
		cfg.Backfill.ResolutionSec = 1
		cfg.Capacity = []sim.CapacityStep{{At: 500, Nodes: 0, Unannounced: tt.unannounced}, {At: 2000, Nodes: 4, Unannounced: tt.unannounced}}
		s := mustSim(t, cfg, []sim.Job{simtest.Job(2, 0, 1000, 1000)})
		if err := s.RunUntil(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		got, ok := s.EstimatedStart(simtest.Job(2, 0, 1000, 1000))
		if !ok || got != tt.want {
			t.Errorf("unannounced %v: EstimatedStart = %d, %v; want %d", tt.unannounced, got, ok, tt.want)
		}
	}
}
