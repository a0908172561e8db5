package advise_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/advise"
	"github.com/mirage-hpc/mirage/train/jobruntime"
)

// benchSlurm serves a large live cluster: squeue --json of `jobs` jobs
// (every job a copy of a real 22.05.8 job object, about 100 fields, with
// its own ID, user, state and times), 24 h of sacct with steps, and
// sinfo's nodes.
type benchSlurm struct {
	squeue, sacct, sinfo []byte
}

func (b *benchSlurm) Run(_ context.Context, name string, _ ...string) ([]byte, error) {
	switch name {
	case "squeue":
		return b.squeue, nil
	case "sacct":
		return b.sacct, nil
	}
	return b.sinfo, nil
}

const benchNow = int64(1_796_163_150)

func newBenchSlurm(tb testing.TB, jobs, ended, nodes int) *benchSlurm {
	tb.Helper()
	raw, err := os.ReadFile("testdata/squeue-22.05.8-b.json")
	if err != nil {
		tb.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		tb.Fatal(err)
	}
	tmpl := doc["jobs"].([]any)[1].(map[string]any)
	rng := rand.New(rand.NewPCG(1, 2))
	list := make([]any, jobs)
	running := jobs / 10
	for i := range list {
		j := make(map[string]any, len(tmpl))
		for k, v := range tmpl {
			j[k] = v
		}
		id := 100000 + i
		limit := 10 + rng.IntN(48*60)
		submit := benchNow - 60 - rng.Int64N(3*86400)
		j["job_id"], j["name"], j["user_name"], j["time_limit"] = id, fmt.Sprintf(`job %d "x" | y`, i), fmt.Sprintf("u%d", rng.IntN(200)), limit
		j["node_count"], j["submit_time"], j["eligible_time"] = 1+rng.IntN(8), submit, submit
		if i < running {
			start := min(submit+rng.Int64N(3600), benchNow-1)
			j["job_state"], j["state_reason"], j["start_time"] = "RUNNING", "None", start
		} else {
			j["job_state"], j["state_reason"], j["start_time"] = "PENDING", "Priority", benchNow+3600
		}
		list[i] = j
	}
	doc["jobs"] = list
	sq, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	var sa strings.Builder
	sa.WriteString("JobID|JobIDRaw|User|Partition|State|Submit|Eligible|Start|End|Timelimit|NNodes\n")
	ts := func(t int64) string { return time.Unix(t, 0).Format("2006-01-02T15:04:05") }
	for i := range ended {
		end := benchNow - rng.Int64N(24*3600)
		start := end - 60 - rng.Int64N(6*3600)
		submit := start - rng.Int64N(4*3600)
		fmt.Fprintf(&sa, "%d|%d|u%d|debug|COMPLETED|%s|%s|%s|%s|12:00:00|%d\n", 50000+i, 50000+i, rng.IntN(200), ts(submit), ts(submit), ts(start), ts(end), 1+rng.IntN(8))
		fmt.Fprintf(&sa, "%d.batch|%d||debug|COMPLETED|%s|%s|%s|%s||1\n", 50000+i, 50000+i, ts(submit), ts(submit), ts(start), ts(end))
	}
	var si strings.Builder
	for n := range nodes {
		fmt.Fprintf(&si, "n%04d|mixed\n", n)
	}
	return &benchSlurm{squeue: sq, sacct: []byte(sa.String()), sinfo: []byte(si.String())}
}

// BenchmarkDecide_10kQueue is one decision from a 10,000-job squeue
// --json (9,000 pending, 1,000 running; about 33 MB) plus 24 h of sacct
// (20,000 ended jobs with steps) on a 2,000-node partition: read and
// parse, rebuild the queue and its 24-hour history, compute the features
// (the simulator's start estimates and the ahead-of-Q fork) and score them
// with the fixture model. The budget is 1 s on 2 cores (-cpu 2).
func BenchmarkDecide_10kQueue(b *testing.B) {
	m, err := advise.Open(fixtureModel)
	if err != nil {
		b.Fatal(err)
	}
	benchDecide(b, m, false)
}

// benchDecide times m's decisions on newBenchSlurm's 10,000-job queue;
// runtimeFields asks sacct for the run-time model's fields.
func benchDecide(b *testing.B, m advise.Model, runtimeFields bool) {
	s := newBenchSlurm(b, 10000, 20000, 2000)
	src := &advise.SlurmSource{Runner: s, Location: time.UTC, Clock: func() time.Time { return time.Unix(benchNow, 0) },
		RuntimeFields: runtimeFields}
	a := advise.New(m, src)
	b.ReportAllocs()
	b.SetBytes(int64(len(s.squeue) + len(s.sacct)))
	b.ResetTimer()
	for range b.N {
		d, err := a.Decide(context.Background(), "100000")
		if err != nil || d.Reason != "model" {
			b.Fatalf("%+v %v", d.Reason, err)
		}
	}
}

// BenchmarkDecide_10kQueueRuntimeModel is BenchmarkDecide_10kQueue with a
// model whose features take the run-time model's column
// (features.ModelEstimateName): each decision also predicts the median
// run time of every running and pending job (10,000) from the queue and
// the 24 h of sacct history, and plans the scheduler's estimate with them.
// The run-time model is a small one trained in the setup (15 rounds of
// depth 3, softprob over its ratio bins).
func BenchmarkDecide_10kQueueRuntimeModel(b *testing.B) {
	rt := advise.MustRuntimeModel(b)
	sha, err := jobruntime.ModelDigest(rt)
	if err != nil {
		b.Fatal(err)
	}
	m, err := advise.Open(advise.RuntimeModelFixture(b, rt, sha, true))
	if err != nil {
		b.Fatal(err)
	}
	benchDecide(b, m, true)
}
