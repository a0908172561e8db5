package advise_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/advise"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/modeltest"
)

// fixtureModel is a tiny xgboost model (12 rounds of depth 3) trained on
// 60 windows of the synthetic study's trace (mirage synth --jobs 30000
// --seed 1, mirage-ls6 protocol, 1-node chains, decision grid); see
// README.md, "Fixture model".
const fixtureModel = "testdata/model-synth"

// queue is a small live queue at now = 1_000_000: P (job 10, 1 node,
// running since 1 h with a 2-hour limit), a running 2-node job, and two
// pending jobs, one with a hostile name.
func queue() advise.Observation {
	now := int64(1_000_000)
	return advise.Observation{
		Now: now, Nodes: 4, Capacity: 4,
		Queue: []advise.Job{
			{ID: "10", Raw: 10, Name: "service P", User: "alice", Partition: "gpu", State: advise.JobRunning, Nodes: 1,
				LimitSec: 7200, Submit: now - 4000, Eligible: now - 4000, Start: now - 3600},
			{ID: "11", Raw: 11, Name: "big", User: "bob", Partition: "gpu", State: advise.JobRunning, Nodes: 2,
				LimitSec: 86400, Submit: now - 9000, Eligible: now - 9000, Start: now - 8000},
			{ID: "12", Raw: 12, Name: `x "y" | z`, User: "carol", Partition: "gpu", State: advise.JobPending, Nodes: 3,
				LimitSec: 3600, Submit: now - 600, Eligible: now - 600},
			{ID: "13", Raw: 13, Name: "held", User: "carol", Partition: "gpu", State: advise.JobHeld, Nodes: 1,
				LimitSec: 3600, Submit: now - 600},
		},
		History: []advise.Job{
			{ID: "9", Raw: 9, User: "bob", Partition: "gpu", State: advise.JobEnded, Nodes: 1, LimitSec: 3600,
				Submit: now - 20000, Eligible: now - 20000, Start: now - 19000, End: now - 17000},
		},
	}
}

// Example use: a deployment tool decides with a fake source.
func TestAdvisor_Decide(t *testing.T) {
	m, err := advise.Open(fixtureModel)
	if err != nil {
		t.Fatal(err)
	}
	var audit bytes.Buffer
	a := advise.New(m, &advise.StaticSource{Obs: queue()})
	a.Audit = &audit
	d, err := a.Decide(context.Background(), "10")
	if err != nil {
		t.Fatal(err)
	}
	if d.Reason != "model" || !d.PStarted || d.PExpectedEndUnix != 1_000_000-3600+7200 || d.PRemainingSec != 3600 {
		t.Fatalf("decision %+v", d)
	}
	if d.Pending != 1 || d.Running != 2 {
		t.Errorf("rebuilt queue: %d pending, %d running; want 1 and 2 (the held job left out)", d.Pending, d.Running)
	}
	if got := d.Features["p_elapsed_sec"]; got != 3600 {
		t.Errorf("p_elapsed_sec = %v, want 3600", got)
	}
	if got := d.Features["free_nodes"]; got != 1 {
		t.Errorf("free_nodes = %v, want 1", got)
	}
	// The synthetic study's operating point is θ = -1e300 (waiting never
	// interrupted a chain there): the model waits until P's end.
	if d.Submit || d.Action != "wait" || d.NextAsk != 1_000_000-4000+7*600 {
		t.Errorf("action %s, next ask %d; want wait, %d", d.Action, d.NextAsk, 1_000_000-4000+7*600)
	}
	if n := strings.Count(audit.String(), "\n"); n != 1 || !strings.Contains(audit.String(), `"features_sha256":"`+d.FeaturesSHA256) {
		t.Errorf("audit log: %q", audit.String())
	}
	// Deterministic: the same observation gives the same features.
	d2, err := a.Decide(context.Background(), "10")
	if err != nil || d2.FeaturesSHA256 != d.FeaturesSHA256 {
		t.Errorf("second decision: %v, digest %s vs %s", err, d2.FeaturesSHA256, d.FeaturesSHA256)
	}
}

func TestAdvisor_Decide_PEnded(t *testing.T) {
	m, err := advise.Open(fixtureModel)
	if err != nil {
		t.Fatal(err)
	}
	obs := queue()
	obs.Queue[0].State, obs.Queue[0].End = advise.JobEnded, obs.Now-5
	d, err := advise.New(m, &advise.StaticSource{Obs: obs}).Decide(context.Background(), "10")
	if err != nil || !d.Submit || d.Reason != "p-ended" {
		t.Fatalf("decision %+v, %v; want submit, p-ended", d, err)
	}
	_, err = advise.New(m, &advise.StaticSource{Obs: obs}).Decide(context.Background(), "999")
	if !errors.Is(err, advise.ErrNoJob) {
		t.Fatalf("unknown job: %v, want ErrNoJob", err)
	}
}

func TestOpen_Checks(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"manifest.json", "model.json"} {
		b, err := os.ReadFile(filepath.Join(fixtureModel, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "model.json" {
			b = bytes.Replace(b, []byte("1"), []byte("2"), 1)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := advise.Open(dir); !errors.Is(err, train.ErrDigest) {
		t.Fatalf("tampered model: %v, want ErrDigest", err)
	}
	b, _ := os.ReadFile(filepath.Join(fixtureModel, "manifest.json"))
	b = bytes.Replace(b, []byte(`"feature_schema_version": 3`), []byte(`"feature_schema_version": 2`), 1)
	mb, _ := os.ReadFile(filepath.Join(fixtureModel, "model.json"))
	os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644)
	os.WriteFile(filepath.Join(dir, "model.json"), mb, 0o644)
	if _, err := advise.Open(dir); !errors.Is(err, train.ErrDigest) {
		t.Fatalf("edited manifest: %v, want ErrDigest", err)
	}
	modeltest.Reseal(t, dir)
	if _, err := advise.Open(dir); !errors.Is(err, train.ErrFeatures) {
		t.Fatalf("old schema: %v, want ErrFeatures", err)
	}
}

// fakeRunner records argv and answers from a table.
type fakeRunner struct {
	calls [][]string
	out   map[string][]byte
	fail  map[string]error
}

func (f *fakeRunner) Run(_ context.Context, name string, args ...string) ([]byte, error) {
	f.calls = append(f.calls, append([]string{name}, args...))
	key := name + " " + args[0]
	if err := f.fail[key]; err != nil {
		return nil, err
	}
	return f.out[key], nil
}

func TestSubmit_HostileName(t *testing.T) {
	r := &fakeRunner{out: map[string][]byte{"sbatch --parsable": []byte("4242;cluster\n")}}
	name := `Q "it's" | $(rm -rf /) ; x`
	id, argv, err := advise.Submit(context.Background(), r, advise.SubmitOptions{Script: "my job.sbatch", Name: name, AfterJob: "10"})
	if err != nil || id != "4242" {
		t.Fatalf("id %q, err %v", id, err)
	}
	want := []string{"sbatch", "--parsable", "--job-name=" + name, "--dependency=afterany:10", "my job.sbatch"}
	if strings.Join(argv, "\x00") != strings.Join(want, "\x00") || strings.Join(r.calls[0], "\x00") != strings.Join(want, "\x00") {
		t.Fatalf("argv %q, ran %q; want %q", argv, r.calls, want)
	}
	if _, _, err := advise.Submit(context.Background(), &fakeRunner{out: map[string][]byte{"sbatch --parsable": []byte("error\n")}}, advise.SubmitOptions{Script: "s"}); err == nil {
		t.Fatal("no job ID: want an error")
	}
}

func TestSlurmSource_Fallbacks(t *testing.T) {
	sq, err := os.ReadFile("testdata/squeue-format-22.05.8.txt")
	if err != nil {
		t.Fatal(err)
	}
	r := &fakeRunner{
		out:  map[string][]byte{"squeue --noheader": sq, "sinfo --noheader": []byte("vm|mixed\n")},
		fail: map[string]error{"squeue --json": errors.New("exit status 1"), "sacct --allusers": errors.New("accounting disabled")},
	}
	obs, err := (&advise.SlurmSource{Runner: r}).Observe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(obs.Queue) != 6 || obs.History != nil || obs.Nodes != 1 || obs.Capacity != 1 {
		t.Fatalf("queue %d jobs, history %v, nodes %d/%d", len(obs.Queue), obs.History, obs.Nodes, obs.Capacity)
	}
	if got := obs.Queue[5].Name; got != `it's "quoted" | piped` {
		t.Errorf("hostile name read as %q", got)
	}
}

// nanModel wraps a model and scores NaN or +Inf.
type nanModel struct {
	advise.Model
	v float64
}

func (m nanModel) Score(x []float64, nodes int, rem float64) advise.Score {
	s := m.Model.Score(x, nodes, rem)
	s.Prediction, s.Value = m.v, m.v
	return s
}

// TestAdvisor_NonFiniteScore: a score that is NaN or infinite is a bad
// model (train.ErrBadModel), not a "wait" nor an audit line that cannot be
// written as JSON.
func TestAdvisor_NonFiniteScore(t *testing.T) {
	m, err := advise.Open(fixtureModel)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []float64{math.NaN(), math.Inf(1)} {
		var audit bytes.Buffer
		a := advise.New(nanModel{m, v}, &advise.StaticSource{Obs: queue()})
		a.Audit = &audit
		_, err := a.Decide(context.Background(), "10")
		if !errors.Is(err, train.ErrBadModel) || !strings.Contains(err.Error(), fixtureModel) || !strings.Contains(err.Error(), "score") {
			t.Errorf("score %v: %v; want train.ErrBadModel naming the model and its score", v, err)
		}
		if audit.Len() != 0 {
			t.Errorf("score %v: audit %q, want nothing", v, audit.String())
		}
	}
}
