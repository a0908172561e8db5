package evaluate_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/trace"
)

// chainTrace is a two-node cluster where alice's 48 h service P is
// continued by Q, which really waited 10 h: bob's 72 h job took the other
// node an hour after P started, and carol's 10 h job, queued an hour
// later, got P's node at P's end before Q. Times from t0 (Unix seconds).
func chainTrace(t0 int64) []trace.Job {
	at := func(h float64) time.Time { return time.Unix(t0+int64(h*3600), 0).UTC() }
	job := func(id, user, name string, submit, start, end float64, limitH int64, st trace.State) trace.Job {
		return trace.Job{JobID: id, User: user, Account: "acct", JobName: name, NNodes: 1, NCPUs: 1,
			TimelimitSec: limitH * 3600, Submit: at(submit), Start: at(start), End: at(end), State: st,
			ElapsedSec: int64((end - start) * 3600), Partition: "normal"}
	}
	return []trace.Job{
		job("1", "alice", "svc", 0, 0, 48, 48, trace.StateTimeout),
		job("2", "bob", "big", 1, 1, 73, 72, trace.StateCompleted),
		job("3", "carol", "short", 2, 48, 58, 10, trace.StateCompleted),
		job("4", "alice", "svc", 48+1.0/60, 58, 106, 48, trace.StateTimeout),
	}
}

// chainProtocol simulates chainTrace on two nodes, warm windows with a
// 6 h warm-up.
func chainProtocol(t *testing.T) features.Protocol {
	t.Helper()
	p, err := features.LookupProtocol("mirage-ls6")
	if err != nil {
		t.Fatal(err)
	}
	p.Nodes, p.Mode, p.TZ = 2, "warm", "UTC"
	p.Start, p.Windows, p.Warmup, p.Workload = "2023-01-01T00:00:00", 1, 6*time.Hour, 200*time.Hour
	p.ChainNodes = []int{1}
	return p
}

func chainOptions(workers int, out string) evaluate.RunOptions {
	return evaluate.RunOptions{
		Policies: evaluate.PolicySpec{List: "reactive,immediate,oracle"}, Lambda: evaluate.DefaultLambda,
		DecisionSec: 600, Workers: workers, NoFitCheck: true, Output: out, RealChains: &evaluate.ChainsOptions{},
	}
}

// TestRealChains: the known chain's link replays with the real 10 h
// interruption, reactive's 10 h (carol still goes first), immediate's
// zero interruption with 47 h 50 min of overlap (Q, submitted at the
// first decision after P's start, takes the node bob has not yet taken)
// and the oracle's zero (Q queued between bob and carol).
func TestRealChains(t *testing.T) {
	t0 := time.Date(2023, 1, 2, 0, 0, 0, 0, time.UTC).Unix()
	in := evaluate.In{Jobs: chainTrace(t0), Protocol: chainProtocol(t)}
	sum, err := evaluate.RealChains(context.Background(), in, chainOptions(1, ""))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Chains != 1 || sum.Links != 1 || sum.Replayed != 1 || len(sum.Skipped) != 0 {
		t.Fatalf("chains %d, links %d, replayed %d, skipped %v; want 1, 1, 1, none", sum.Chains, sum.Links, sum.Replayed, sum.Skipped)
	}
	const eps = 1e-9
	near := func(a, b float64) bool { return a-b < eps && b-a < eps }
	if !near(sum.RealInterruptionH, 10) || sum.RealOverlapH != 0 {
		t.Errorf("real interruption %v h, want 10", sum.RealInterruptionH)
	}
	if !near(sum.ReactiveH, 10) || sum.ReactiveOverlapH != 0 {
		t.Errorf("reactive %v h, overlap %v h; want 10, 0", sum.ReactiveH, sum.ReactiveOverlapH)
	}
	for _, w := range []struct {
		name              string
		interrupt, overlp float64
	}{{"reactive", 10, 0}, {"immediate", 0, 48 - 1.0/6}, {"oracle", 0, 0}} {
		p, ok := sum.Policy(w.name)
		if !ok || !near(p.InterruptionH, w.interrupt) || !near(p.OverlapH, w.overlp) {
			t.Errorf("%s: %+v, want interruption %v h, overlap %v h", w.name, p, w.interrupt, w.overlp)
		}
	}
	r := sum.Rows[0]
	if r.PJob != "1" || r.QJob != "4" || r.PSubmit != t0 || r.PStart != t0 || r.PEnd != t0+48*3600 || r.RealRSec != 10*3600 {
		t.Errorf("row %+v: want P 1 submitted and started at t0, ending 48 h later, Q 4, real r 10 h", r)
	}
}

// TestRealChains_Workers: Run with real chains writes the same bytes with
// one worker and with three, and chains.csv holds a row per link and
// policy; without the option no chains.csv and no real_chains.
func TestRealChains_Workers(t *testing.T) {
	t0 := time.Date(2023, 1, 2, 0, 0, 0, 0, time.UTC).Unix()
	var jobs []trace.Job
	for k := range 4 { // four copies of the chain, a week apart, users apart
		for _, j := range chainTrace(t0 + int64(k)*7*86400) {
			j.JobID += "-" + string(rune('a'+k))
			j.User += string(rune('a' + k))
			jobs = append(jobs, j)
		}
	}
	in := evaluate.In{Jobs: jobs, Protocol: chainProtocol(t)}
	dir := t.TempDir()
	var got [][]byte
	for _, w := range []int{1, 3} {
		out := filepath.Join(dir, "w"+string(rune('0'+w)))
		if _, err := evaluate.Run(context.Background(), in, chainOptions(w, out)); err != nil {
			t.Fatal(err)
		}
		var all []byte
		for _, f := range []string{"metrics.json", "windows.csv", evaluate.ChainsCSV} {
			b, err := os.ReadFile(filepath.Join(out, f))
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, b...)
		}
		got = append(got, all)
	}
	if !bytes.Equal(got[0], got[1]) {
		t.Error("1 and 3 workers wrote different bytes")
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "w1", evaluate.ChainsCSV))
	if n := strings.Count(string(csv), "\n"); n != 1+4*3 {
		t.Errorf("chains.csv: %d lines, want a header and 12 rows", n)
	}
	if !bytes.Contains(got[0], []byte(`"real_chains"`)) {
		t.Error("metrics.json has no real_chains")
	}
	plain := filepath.Join(dir, "plain")
	o := chainOptions(1, plain)
	o.RealChains = nil
	if _, err := evaluate.Run(context.Background(), in, o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(plain, evaluate.ChainsCSV)); !os.IsNotExist(err) {
		t.Errorf("without real chains: chains.csv %v, want none", err)
	}
	if b, _ := os.ReadFile(filepath.Join(plain, "metrics.json")); bytes.Contains(b, []byte("real_chains")) {
		t.Error("without real chains: metrics.json has real_chains")
	}
}
