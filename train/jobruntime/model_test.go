package jobruntime_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/ingest/ls6test"
	"github.com/mirage-hpc/mirage/trace"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/jobruntime"
	"github.com/mirage-hpc/mirage/train/modeltest"
	"github.com/mirage-hpc/mirage/train/xgboost"
)

// fastOptions are small models for tests: the training period is the
// first trainHours hours of synthJobs, validation the rest.
func fastOptions(jobs []trace.Job, trainHours int64) jobruntime.Options {
	t0 := jobs[0].Submit.Truncate(time.Hour).Unix()
	p := jobruntime.DefaultParams()
	p.MaxDepth, p.Eta, p.Rounds, p.EarlyStopping, p.Threads = 3, 0.3, 15, 5, 1
	return jobruntime.Options{
		TrainFrom: t0, TrainTo: t0 + trainHours*3600, ValidFrom: t0 + trainHours*3600, ValidTo: t0 + 1<<30,
		Zone: "America/Chicago", K: 3, GapSec: 86400, Params: p, Version: "test",
	}
}

func mustTrain(tb testing.TB, jobs []trace.Job, dir string, o jobruntime.Options) *jobruntime.Result {
	tb.Helper()
	if !xgboost.Available {
		tb.Skip("skipping: libxgboost not linked")
	}
	res, err := jobruntime.Train(context.Background(), jobs, dir, o)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

func TestTrain_Deterministic(t *testing.T) {
	jobs := synthJobs(1500, 3)
	o := fastOptions(jobs, 1200)
	a, b := t.TempDir(), t.TempDir()
	mustTrain(t, jobs, a, o)
	mustTrain(t, jobs, b, o)
	ents, err := os.ReadDir(a)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) < 5 {
		t.Fatalf("%d files in the artifact, want manifest, model(s), encoding, metrics and plot", len(ents))
	}
	for _, e := range ents {
		x, err := os.ReadFile(filepath.Join(a, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(b, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs with the same seed", e.Name())
		}
	}
}

func TestOpen_RoundTrip(t *testing.T) {
	jobs := synthJobs(1500, 5)
	for _, a := range jobruntime.Approaches {
		t.Run(a.String(), func(t *testing.T) {
			o := fastOptions(jobs, 1200)
			o.Approaches = []jobruntime.Approach{a}
			dir := t.TempDir()
			res := mustTrain(t, jobs, dir, o)
			m, err := jobruntime.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			want := *res.Manifest
			want.Params.Threads = 0 // not written: results do not depend on it
			if !reflect.DeepEqual(m.Manifest, want) {
				t.Errorf("manifest read back:\n got %+v\nwant %+v", m.Manifest, *res.Manifest)
			}
			if m.Manifest.Approach != a.String() {
				t.Errorf("approach %s, want %s", m.Manifest.Approach, a)
			}
			qs := jobruntime.Predict(jobs, m)
			for i, q := range qs {
				if !q.OK {
					t.Fatalf("job %d not predicted", i)
				}
				if lim := float64(jobs[i].TimelimitSec); !(0 <= q.P10Sec && q.P10Sec <= q.P50Sec && q.P50Sec <= q.P90Sec && q.P90Sec <= lim) {
					t.Fatalf("job %d: quantiles %+v not ordered within [0, %v]", i, q, lim)
				}
			}
			// The validation figures were computed from the written model:
			// they must be what Predict gives.
			if len(res.Metrics.Validation) != 3 || res.Metrics.Validation[0].Predictor != a.String() {
				t.Fatalf("validation figures %+v", res.Metrics.Validation)
			}
		})
	}
}

func TestOpen_Errors(t *testing.T) {
	jobs := synthJobs(800, 9)
	dir := t.TempDir()
	o := fastOptions(jobs, 600)
	o.Approaches = []jobruntime.Approach{jobruntime.ApproachHeads}
	mustTrain(t, jobs, dir, o)
	t.Run("ErrDigest", func(t *testing.T) {
		d := t.TempDir()
		modeltest.CopyDir(t, dir, d)
		p := filepath.Join(d, jobruntime.EncodingFile)
		b, _ := os.ReadFile(p)
		if err := os.WriteFile(p, append(b, ' '), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := jobruntime.Open(d); !errors.Is(err, jobruntime.ErrDigest) {
			t.Errorf("got %v, want ErrDigest", err)
		}
	})
	t.Run("EveryFile", func(t *testing.T) {
		// Every file the directory ships is sealed: a byte flipped in any
		// (metrics.json and calibration.png included), or an edit of the
		// manifest, is refused naming the file.
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		for _, want := range []string{jobruntime.ManifestFile, jobruntime.EncodingFile, jobruntime.MetricsFile, jobruntime.CalibrationFile, "head_00.json"} {
			if !slices.Contains(names, want) {
				t.Fatalf("the trained directory has %v, no %s", names, want)
			}
		}
		for _, name := range names {
			d := t.TempDir()
			modeltest.CopyDir(t, dir, d)
			p := filepath.Join(d, name)
			b, _ := os.ReadFile(p)
			if name == jobruntime.ManifestFile {
				b = bytes.Replace(b, []byte(`"smoothing_rows": 10`), []byte(`"smoothing_rows": 11`), 1)
			} else {
				b[len(b)/2] ^= 1
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := jobruntime.Open(d); !errors.Is(err, train.ErrDigest) || !strings.Contains(err.Error(), name) {
				t.Errorf("%s changed: %v; want train.ErrDigest naming it", name, err)
			}
		}
	})
	t.Run("ErrArtifact", func(t *testing.T) {
		d := t.TempDir()
		modeltest.CopyDir(t, dir, d)
		p := filepath.Join(d, jobruntime.ManifestFile)
		b, _ := os.ReadFile(p)
		if err := os.WriteFile(p, bytes.Replace(b, []byte(`"kind": "runtime"`), []byte(`"kind": "xgboost"`), 1), 0o644); err != nil {
			t.Fatal(err)
		}
		var ke *train.KindError
		if _, err := jobruntime.Open(d); !errors.As(err, &ke) || !errors.Is(err, train.ErrBadModel) {
			t.Errorf("got %v, want a *train.KindError", err)
		}
	})
}

// TestPredict_Causal checks the model end to end: changing the outcome of
// jobs that end after a job's submission does not change its prediction.
func TestPredict_Causal(t *testing.T) {
	jobs := synthJobs(800, 11)
	m := softprobModel(t, jobs)
	want := jobruntime.Predict(jobs, m)
	i := 700
	alt := append([]trace.Job(nil), jobs...)
	rng := rand.New(rand.NewPCG(3, 4))
	changed := 0
	for k := range alt {
		if k != i && alt[k].End.After(jobs[i].Submit) {
			alt[k] = futureOutcome(alt[k], jobs[i].Submit, rng)
			changed++
		}
	}
	if changed < 50 {
		t.Fatalf("only %d jobs end after job %d's submission", changed, i)
	}
	if got := jobruntime.Predict(alt, m)[i]; got != want[i] {
		t.Errorf("job %d: %+v with the real future, %+v with another", i, want[i], got)
	}
}

// TestDistributionOf_Rows checks that DistributionOf gives each chosen
// job the row Distribution gives it (history from all the jobs), and
// that MedianSec is the median of that row in seconds within the limit.
func TestDistributionOf_Rows(t *testing.T) {
	jobs := synthJobs(800, 11)
	m := softprobModel(t, jobs)
	all, allOK := m.Distribution(jobs)
	rows := []int{799, 3, 700, 3}
	got, ok := m.DistributionOf(jobs, rows)
	edges := m.Manifest.Edges
	nb := len(edges) - 1
	for k, i := range rows {
		if !ok[k] || !allOK[i] || !slices.Equal(got[k*nb:(k+1)*nb], all[i*nb:(i+1)*nb]) {
			t.Errorf("row %d (job %d): %v (ok %v), Distribution's %v (ok %v)", k, i, got[k*nb:(k+1)*nb], ok[k], all[i*nb:(i+1)*nb], allOK[i])
		}
		lim := jobs[i].TimelimitSec
		med := jobruntime.MedianSec(edges, got[k*nb:(k+1)*nb], lim)
		if want := jobruntime.Quantile(edges, got[k*nb:(k+1)*nb], 0.5) * float64(lim); med < 1 || med > lim || math.Abs(float64(med)-want) > 1 {
			t.Errorf("job %d: MedianSec %d, want about %v within [1, %d]", i, med, want, lim)
		}
	}
	unlimited := slices.Clone(jobs)
	unlimited[5].TimelimitSec = trace.NoLimit
	if p, ok := m.DistributionOf(unlimited, []int{5}); ok[0] || slices.ContainsFunc(p, func(v float32) bool { return v != 0 }) {
		t.Errorf("job without a limit: ok %v, %v; want false and zeros", ok[0], p)
	}
}

// TestTrain_LS6 trains a small model on the real trace's ls6 periods and
// checks that it beats the limit baseline's MAE by far, in CV and on
// validation, and that its quantiles are roughly calibrated.
func TestTrain_LS6(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: -short")
	}
	jobs := ls6test.Jobs(t)
	loc, err := time.LoadLocation("America/Chicago")
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2022, 11, 1, 0, 0, 0, 0, loc).Unix()
	val := time.Date(2023, 3, 1, 0, 0, 0, 0, loc).Unix()
	p := jobruntime.DefaultParams()
	p.MaxDepth, p.Eta, p.Rounds, p.EarlyStopping, p.Threads = 4, 0.3, 25, 5, 1
	o := jobruntime.Options{TrainFrom: from, TrainTo: val, ValidFrom: val, ValidTo: val + 31*86400, Zone: "America/Chicago",
		K: 2, Params: p, Approaches: []jobruntime.Approach{jobruntime.ApproachHeads}}
	res := mustTrain(t, jobs, t.TempDir(), o)
	for _, set := range [][]jobruntime.Figures{res.Metrics.CV, res.Metrics.Validation} {
		model, limit := set[0], set[1]
		if limit.Predictor != jobruntime.BaselineLimit {
			t.Fatalf("figures %+v", set)
		}
		t.Logf("%s: MAE %.2f h (limit %.2f h), within 2x %.3f, coverage %.3f", model.Predictor, model.MAEH, limit.MAEH, model.Within2x, model.Coverage)
		if model.MAEH > 0.6*limit.MAEH {
			t.Errorf("model MAE %.2f h, limit %.2f h: want at most 60%% of the limit's", model.MAEH, limit.MAEH)
		}
		for l, q := range jobruntime.Levels {
			if c := model.Coverage[l]; c < q-0.08 || c > q+0.08 {
				t.Errorf("coverage of the %.0f %% quantile %.3f, want within 0.08", 100*q, c)
			}
		}
	}
}

func BenchmarkPredict(b *testing.B) {
	jobs := synthJobs(2000, 13)
	dir := b.TempDir()
	o := fastOptions(jobs, 1500)
	o.Approaches = []jobruntime.Approach{jobruntime.ApproachSoftprob}
	mustTrain(b, jobs, dir, o)
	m, err := jobruntime.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	if q := jobruntime.Predict(jobs, m); !q[0].OK {
		b.Fatal("job 0 not predicted")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		jobruntime.Predict(jobs, m)
	}
	b.ReportMetric(float64(len(jobs)*b.N)/b.Elapsed().Seconds(), "jobs/s")
}

// softprobModel trains a fast softprob run-time model on jobs (the first
// 600 for training) and opens it.
func softprobModel(t *testing.T, jobs []trace.Job) *jobruntime.Model {
	t.Helper()
	dir := t.TempDir()
	o := fastOptions(jobs, 600)
	o.Approaches = []jobruntime.Approach{jobruntime.ApproachSoftprob}
	mustTrain(t, jobs, dir, o)
	m, err := jobruntime.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
