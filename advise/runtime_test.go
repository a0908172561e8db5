package advise

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/jobruntime"
	"github.com/mirage-hpc/mirage/train/modeltest"
	"github.com/mirage-hpc/mirage/train/xgboost"
)

// parityStart is the parity workload's first submission (parityTimeline).
const parityStart = int64(1_700_006_400)

// traceJobOf returns the trace job of simulation job j (ID id in the
// simulation the renderers print, job i of the trace) as ingest would
// read renderSacct's runtime rows of it, ended at its TraceStart plus its
// RunSec when it started.
func traceJobOf(j *sim.Job, id sim.JobID, i int) trace.Job {
	account, qos, cpus, gpus := runtimeAttrs(j, id)
	t := trace.Job{JobID: strconv.Itoa(i), JobName: hostileName(id), User: userName(j.User), UID: trace.NoID,
		GID: trace.NoID, CancelledBy: trace.NoID, Account: account, Partition: "normal", QOS: qos,
		NNodes: j.Nodes, NCPUs: cpus, NGPUs: gpus, TimelimitSec: j.LimitSec, Submit: time.Unix(j.Submit, 0).UTC()}
	if j.TraceStart > 0 {
		t.Start = time.Unix(j.TraceStart, 0).UTC()
		t.End = t.Start.Add(time.Duration(j.RunSec) * time.Second)
	}
	return t
}

// mustRuntimeModel trains a small run-time model (softprob, 15 rounds of
// depth 3) into a temporary directory on 1,200 jobs of the parity
// workload's users, names, accounts and QOS, each user with a typical
// run-time ratio, over the 40 days before the parity workload (so none of
// its jobs is a training row). It skips without libxgboost.
func mustRuntimeModel(tb testing.TB) string {
	tb.Helper()
	if !xgboost.Available {
		tb.Skip("skipping: libxgboost not linked (a run-time model is trained with it)")
	}
	const span = 40 * 86400
	rng := rand.New(rand.NewPCG(11, 2))
	typical := []float64{0.05, 0.3, 0.9, 0.5, 0.1, 0.7, 0.2, 0.6, 0.4, 0.8}
	jobs := make([]trace.Job, 1200)
	for i := range jobs {
		limit := 60 * (10 + rng.Int64N(24*60))
		j := sim.Job{User: rng.Int32N(10), Nodes: 1 + rng.Int32N(8), LimitSec: limit,
			Submit: parityStart - span + rng.Int64N(span-2*86400)}
		ratio := min(1, typical[j.User]*math.Exp(0.3*rng.NormFloat64()))
		j.TraceStart, j.RunSec = j.Submit+rng.Int64N(3600), int64(ratio*float64(limit))
		jobs[i] = traceJobOf(&j, sim.JobID(rng.IntN(10)), i)
	}
	slices.SortStableFunc(jobs, func(a, b trace.Job) int { return cmp.Compare(a.Submit.Unix(), b.Submit.Unix()) })
	p := jobruntime.DefaultParams()
	p.MaxDepth, p.Eta, p.Rounds, p.EarlyStopping, p.Threads = 3, 0.3, 15, 5, 1
	dir := tb.TempDir()
	_, err := jobruntime.Train(context.Background(), jobs, dir, jobruntime.Options{
		TrainFrom: parityStart - span, TrainTo: parityStart, Zone: "America/Chicago", K: 3, GapSec: 86400,
		Approaches: []jobruntime.Approach{jobruntime.ApproachSoftprob}, Params: p, Version: "test",
	})
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}

// TestParity_RuntimeModel is TestParity_SimulatorAndLive for a model with
// a run-time model: the simulator's main timeline computes every feature
// and features.ModelEstimateName with the medians evaluate.FeatureRunTimes
// predicts from the whole trace (what features build writes and evaluate
// recomputes), the live path predicts them from squeue and sacct
// (SacctRuntimeArgs' columns) at the decision time; all 82 features must
// be bit for bit the same.
func TestParity_RuntimeModel(t *testing.T) {
	ctx := context.Background()
	rtDir := mustRuntimeModel(t)
	sha, err := jobruntime.ModelDigest(rtDir)
	if err != nil {
		t.Fatal(err)
	}
	rtm, err := jobruntime.Open(rtDir)
	if err != nil {
		t.Fatal(err)
	}
	tl, opts := parityTimeline(t, 150, func(jobs []sim.Job, idx []int) *features.RunTimes {
		if len(idx) != len(jobs) {
			t.Fatalf("the window holds %d of the %d jobs: the live sacct would not show the others", len(idx), len(jobs))
		}
		// The trace: the renderers print window job k, trace job idx[k].
		tjobs := make([]trace.Job, len(jobs))
		for k, i := range idx {
			tjobs[i] = traceJobOf(&jobs[i], sim.JobID(k), i)
		}
		rt, err := evaluate.FeatureRunTimes(rtDir, sha, tjobs, jobs)
		if err != nil {
			t.Fatal(err)
		}
		return rt
	})
	p := tl.P()
	names := opts.FeatureNames()
	if names[len(names)-1] != features.ModelEstimateName {
		t.Fatalf("feature names end with %s, want %s", names[len(names)-1], features.ModelEstimateName)
	}
	want := make([]float64, len(names))
	got := make([]float64, len(names))
	col := len(names) - 1
	checked, started, predicted, differs := 0, 0, 0, 0
	for k := int64(1); k < 14*6*6; k += 6 + k%5 {
		at := p.Submit + k*600
		if err := tl.Advance(ctx, at); err != nil {
			t.Fatal(err)
		}
		if err := tl.Features(ctx, want); err != nil {
			t.Fatal(err)
		}
		s := tl.Sim()
		if _, ok := s.Ended(tl.PID()); ok {
			break
		}
		snap := s.Snapshot()
		queue, err := ParseSqueueJSON(bytes.NewReader(renderSqueueJSON(s, &snap, k%2 == 0)))
		if err != nil {
			t.Fatal(err)
		}
		hist, bad, err := ParseSacct(ctx, bytes.NewReader(renderSacct(s, true)), time.UTC)
		if err != nil || bad != 0 {
			t.Fatalf("sacct: %d bad rows, %v", bad, err)
		}
		obs := &Observation{Now: at, Queue: queue, History: hist, Nodes: opts.Config.Nodes, Capacity: snap.Capacity}
		st, ch, err := BuildState(obs, strconv.FormatInt(jobRaw(tl.PID()), 10), LiveOptions{
			Config: opts.Config, Location: opts.Location, RecentStarts: opts.RecentStarts, PredictRunTimes: true,
			RuntimeModel: rtm,
		})
		if err != nil {
			t.Fatalf("at %d: %v", at, err)
		}
		if err := features.Vector(ctx, got, st); err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Errorf("at P.submit+%dmin (%d pending, %d running): %s: live %v, simulator %v",
					k*10, len(snap.Pending), len(snap.Running), names[i], got[i], want[i])
			}
		}
		for id, m := range st.MedianRunSec {
			if m > 0 && m < st.Sim.Job(sim.JobID(id)).LimitSec {
				predicted++
			}
		}
		// The column must depend on the medians: planned with the limits
		// (no medians) it differs at some decisions.
		if features.ModelEstimateR(st.Sim, st.PID, st.P, st.Q, make([]int64, len(st.MedianRunSec))) != got[col] {
			differs++
		}
		if ch.Started {
			started++
		}
		checked++
	}
	if checked < 20 || started == 0 || checked == started || predicted == 0 || differs == 0 {
		t.Fatalf("checked %d decisions, %d with P started, %d medians below the limit, %d columns that differ from the limit-planned one: want every case",
			checked, started, predicted, differs)
	}
	t.Logf("%d decisions (%d with P running, %d columns differ from the limit-planned estimate), %d features each, bit for bit",
		checked, started, differs, len(names))
}

// runtimeModelFixture copies the fixture model (testdata/model-synth)
// into a temporary directory with a manifest naming the run-time model
// rtDir of model file SHA-256 sha; with column, the model also takes the
// features.ModelEstimateName column (82 features; its trees never read
// it), as `mirage train` writes a model trained on such samples.
func runtimeModelFixture(tb testing.TB, rtDir, sha string, column bool) string {
	tb.Helper()
	dir := tb.TempDir()
	model, err := os.ReadFile(filepath.Join("testdata", "model-synth", "model.json"))
	if err != nil {
		tb.Fatal(err)
	}
	mb, err := os.ReadFile(filepath.Join("testdata", "model-synth", train.ManifestFile))
	if err != nil {
		tb.Fatal(err)
	}
	var man map[string]any
	if err := json.Unmarshal(mb, &man); err != nil {
		tb.Fatal(err)
	}
	man["runtime_model"], man["runtime_model_sha256"] = rtDir, sha
	if column {
		n := strconv.Itoa(features.NumFeatures())
		model = bytes.ReplaceAll(model, []byte(`"num_feature":"`+n+`"`), []byte(`"num_feature":"`+strconv.Itoa(features.NumFeatures()+1)+`"`))
		man["features"] = append(man["features"].([]any), map[string]any{"name": features.ModelEstimateName, "unit": features.ModelEstimateUnit})
		sum := sha256.Sum256(model)
		man["model_sha256"] = hex.EncodeToString(sum[:])
	}
	if mb, err = json.Marshal(man); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "model.json"), model, 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, train.ManifestFile), mb, 0o644); err != nil {
		tb.Fatal(err)
	}
	modeltest.Reseal(tb, dir)
	return dir
}

// TestOpen_RuntimeModelRefused checks that a model whose run-time model
// is missing, or whose model file has another SHA-256 than the model's
// manifest says, is refused with an error naming the run-time model's
// directory and both digests.
func TestOpen_RuntimeModelRefused(t *testing.T) {
	want := strings.Repeat("ab", 32)
	changed := t.TempDir()
	man := fmt.Sprintf(`{"kind": %q, "schema_version": %d, "models": [{"name": "model.json", "sha256": %q}]}`,
		jobruntime.Kind, jobruntime.SchemaVersion, strings.Repeat("cd", 32))
	if err := os.WriteFile(filepath.Join(changed, jobruntime.ManifestFile), []byte(man), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		Name, RuntimeDir string
		Mentions         []string
	}{
		{"Missing", filepath.Join(t.TempDir(), "gone"), []string{want}},
		{"Changed", changed, []string{want, strings.Repeat("cd", 32)}},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			_, err := Open(runtimeModelFixture(t, tt.RuntimeDir, want, true))
			if !errors.Is(err, ErrRuntimeModel) || !errors.Is(err, train.ErrDigest) {
				t.Fatalf("Open: %v, want ErrRuntimeModel and train.ErrDigest", err)
			}
			for _, s := range append(tt.Mentions, tt.RuntimeDir) {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("Open: %q does not name %s", err, s)
				}
			}
		})
	}
}

// TestAdvisor_DecideRuntimeModel opens a model with a run-time model and
// decides on a live queue: the vector has the column last, the decision
// shows it and the run-time model, and the sacct call asks for the run-time
// model's fields.
func TestAdvisor_DecideRuntimeModel(t *testing.T) {
	rtDir := mustRuntimeModel(t)
	sha, err := jobruntime.ModelDigest(rtDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(runtimeModelFixture(t, rtDir, sha, false)); !errors.Is(err, train.ErrFeatures) {
		t.Errorf("Open of a model without the column whose manifest names a run-time model: %v, want train.ErrFeatures", err)
	}
	m, err := Open(runtimeModelFixture(t, rtDir, sha, true))
	if err != nil {
		t.Fatal(err)
	}
	info := m.Info()
	if info.RuntimeModel != rtDir || info.RuntimeModelSHA256 != sha || info.Live.RuntimeModel == nil {
		t.Fatalf("info: run-time model %q %q (loaded: %v), want %q %q", info.RuntimeModel, info.RuntimeModelSHA256,
			info.Live.RuntimeModel != nil, rtDir, sha)
	}
	now := parityStart + 3600
	obs := Observation{Now: now, Nodes: 4, Capacity: 4,
		Queue: []Job{
			{ID: "10", Raw: 10, Name: "service P", User: "u001", Partition: "normal", State: JobRunning, Nodes: 1,
				LimitSec: 7200, Submit: now - 4000, Eligible: now - 4000, Start: now - 3600},
			{ID: "11", Raw: 11, Name: hostileName(1), User: "u002", Partition: "normal", State: JobRunning, Nodes: 3,
				LimitSec: 86400, Submit: now - 9000, Eligible: now - 9000, Start: now - 8000},
			{ID: "12", Raw: 12, Name: hostileName(2), User: "u003", Partition: "normal", State: JobPending, Nodes: 2,
				LimitSec: 3600, Submit: now - 600, Eligible: now - 600},
		},
		History: []Job{
			{ID: "11", Raw: 11, Name: hostileName(1), User: "u002", Partition: "normal", State: JobRunning, Nodes: 3,
				LimitSec: 86400, Submit: now - 9000, Eligible: now - 9000, Start: now - 8000, Account: "acct2", QOS: "long", CPUs: 24},
			{ID: "9", Raw: 9, Name: hostileName(1), User: "u002", Partition: "normal", State: JobEnded, Nodes: 1, LimitSec: 3600,
				Submit: now - 20000, Eligible: now - 20000, Start: now - 19000, End: now - 17000, Account: "acct2", CPUs: 8},
		},
	}
	a := New(m, &StaticSource{Obs: obs})
	d, err := a.Decide(context.Background(), "10")
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := BuildState(&obs, "10", a.Live)
	if err != nil {
		t.Fatal(err)
	}
	if st.MedianRunSec[1] <= 0 || st.MedianRunSec[1] >= 86400 || st.MedianRunSec[0] != 0 {
		t.Errorf("medians %v: want P's 0 and job 11's within its limit", st.MedianRunSec)
	}
	x := make([]float64, features.NumFeatures()+1)
	if err := features.Vector(context.Background(), x, st); err != nil {
		t.Fatal(err)
	}
	col, ok := d.Features[features.ModelEstimateName]
	if !ok || len(d.Features) != len(x) || col != x[len(x)-1] || d.FeaturesSHA256 != VectorDigest(x) {
		t.Errorf("decision has %d features, %s = %v (present: %v), digest %s; want %d, %v, %s",
			len(d.Features), features.ModelEstimateName, col, ok, d.FeaturesSHA256, len(x), x[len(x)-1], VectorDigest(x))
	}
	if d.Model.RuntimeModel != rtDir || d.Model.RuntimeModelSHA256 != sha {
		t.Errorf("decision's model names run-time model %q %q, want %q %q", d.Model.RuntimeModel, d.Model.RuntimeModelSHA256, rtDir, sha)
	}
}

// TestSlurmSource_RuntimeFields checks that a source for a model with a
// run-time model asks sacct for the run-time model's fields, tab-separated.
func TestSlurmSource_RuntimeFields(t *testing.T) {
	var got []string
	src := &SlurmSource{RuntimeFields: true, Clock: func() time.Time { return time.Unix(parityStart, 0) }}
	src.Runner = runnerFunc(func(name string, args ...string) ([]byte, error) {
		if name == "sacct" {
			got = args
		}
		if name == "squeue" {
			return []byte(`{"jobs": []}`), nil
		}
		return nil, fmt.Errorf("no %s here", name)
	})
	if _, err := src.Observe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got, "--format="+SacctRuntimeFields) || !slices.Contains(got, "--delimiter=\t") {
		t.Errorf("sacct %q: want --format=%s and a tab delimiter", got, SacctRuntimeFields)
	}
}

type runnerFunc func(name string, args ...string) ([]byte, error)

func (f runnerFunc) Run(_ context.Context, name string, args ...string) ([]byte, error) {
	return f(name, args...)
}
