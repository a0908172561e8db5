package replay

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/internal/testenv"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

var synth struct {
	once sync.Once
	path string
	err  error
}

// synth500 returns data/synth-500.sacct ingested (America/Chicago), once
// per test binary.
func synth500(t *testing.T) string {
	t.Helper()
	synth.once.Do(func() {
		dir, err := mkdirTemp()
		if err != nil {
			synth.err = err
			return
		}
		loc, err := time.LoadLocation("America/Chicago")
		if err != nil {
			synth.err = err
			return
		}
		synth.path = filepath.Join(dir, "t.parquet")
		_, synth.err = ingest.Run(context.Background(), []string{filepath.Join(testenv.Root(), "data", "synth-500.sacct")}, synth.path,
			ingest.Options{Location: loc})
	})
	if synth.err != nil {
		t.Fatal(synth.err)
	}
	return synth.path
}

// mustProfile loads the built-in profile name with its partition at nodes
// (0: the profile's).
func mustProfile(t *testing.T, name string, nodes int) sim.Profile {
	t.Helper()
	p, err := sim.LoadProfile(name)
	if err != nil {
		t.Fatal(err)
	}
	o := sim.KeepProfile()
	o.PartitionNodes = nodes
	if p, err = o.Apply(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReplayProgress_SameAsReplayWork checks that the replay with progress
// gives sim.ReplayWork's starts, events and work, and reports its clock.
func TestReplayProgress_SameAsReplayWork(t *testing.T) {
	tjobs, err := trace.ReadAll(synth500(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, profile := range []string{"default", "mirage-compat"} { // mirage-compat rounds Submit
		cfg := mustProfile(t, profile, 0).Config
		jobs, _, err := sim.FromTrace(tjobs, sim.FromTraceOptions{MaxNodes: cfg.Nodes})
		if err != nil {
			t.Fatal(err)
		}
		want, wantEvents, wantWork, err := sim.ReplayWork(context.Background(), cfg, jobs)
		if err != nil {
			t.Fatal(err)
		}
		tab := sim.TableOf(jobs)
		calls := 0
		r, err := replayProgress(context.Background(), cfg, tab, func(at int64, started, total int) {
			calls++
			if total != len(jobs) || started > total || at < jobs[0].Submit {
				t.Errorf("progress at %d: %d of %d started", at, started, total)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.starts, want) || r.events != wantEvents || r.work != wantWork {
			t.Errorf("replayProgress (%s): %d events, work %+v; ReplayWork: %d events, work %+v; starts equal: %v",
				profile, r.events, r.work, wantEvents, wantWork, slices.Equal(r.starts, want))
		}
		if calls == 0 { // the first report comes at the 256th event
			t.Errorf("%s: no progress reported", profile)
		}
		for i := range jobs {
			if got := r.job(tab, i); got.Submit != jobs[i].Submit || got.Name != jobs[i].Name {
				t.Fatalf("%s: job %d is %s submitted at %d after the replay, was %s at %d", profile, i, got.Name, got.Submit, jobs[i].Name, jobs[i].Submit)
			}
		}
		if profile == "default" {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, err := replayProgress(ctx, cfg, sim.TableOf(jobs), nil); !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled replay: %v, want context.Canceled", err)
			}
		}
	}
}

// TestRun: a replay of the synthetic trace compares every job that ran,
// per month; a partition narrower than the widest jobs is refused with
// sim.ErrUnfit unless AllowSkip; a cancelled context stops it.
func TestRun(t *testing.T) {
	tr := synth500(t)
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		sum, err := Run(ctx, In{Trace: tr, Profile: mustProfile(t, "ls6", 16)}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Jobs == 0 || sum.Compared == 0 || sum.Compared > sum.Jobs || sum.WaitMAESec == nil || len(sum.PerMonth) == 0 {
			t.Errorf("summary %+v", sum)
		}
		if sum.InferredDependencies == nil || sum.CapacitySteps == 0 || sum.CapacitySteps != len(sum.Config.Capacity) {
			t.Errorf("ls6 infers: dependencies %v, %d capacity steps", sum.InferredDependencies, sum.CapacitySteps)
		}
		months := 0
		for _, m := range sum.PerMonth {
			months += m.Jobs
		}
		if months != sum.Compared {
			t.Errorf("per month %d jobs, compared %d", months, sum.Compared)
		}
	})
	t.Run("ErrUnfit", func(t *testing.T) {
		in := In{Trace: tr, Profile: mustProfile(t, "default", 4)}
		if _, err := Run(ctx, in, Options{}); !errors.Is(err, sim.ErrUnfit) {
			t.Errorf("4 nodes: %v, want sim.ErrUnfit", err)
		}
		sum, err := Run(ctx, in, Options{AllowSkip: true})
		if err != nil || len(sum.Warnings) == 0 || sum.Fit.WideJobs == 0 {
			t.Errorf("4 nodes, AllowSkip: %v, warnings %q, fit %+v", err, sum.Warnings, sum.Fit)
		}
	})
	t.Run("Canceled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := Run(cctx, In{Trace: tr, Profile: mustProfile(t, "default", 16)}, Options{}); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled: %v", err)
		}
	})
}

// TestStarts: the starts are scored for the same jobs by every
// predictor, and starts.parquet has one row per scored job.
func TestStarts(t *testing.T) {
	out := filepath.Join(t.TempDir(), "starts")
	sum, err := Starts(context.Background(), In{Trace: synth500(t), Profile: mustProfile(t, "default", 16)}, StartsOptions{OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range sum.Predictors {
		names = append(names, p.Name)
		if p.Jobs != sum.Scored || p.Jobs == 0 {
			t.Errorf("%s scored %d jobs of %d", p.Name, p.Jobs, sum.Scored)
		}
	}
	if !slices.Equal(names, []string{"slurm", "history", "replay"}) {
		t.Errorf("predictors %v", names)
	}
	rows, err := ReadStarts(filepath.Join(out, "starts.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if name := startsSchema.Name(); name != "startRow" { // the file's bytes name it
		t.Errorf("starts.parquet schema %q, want startRow", name)
	}
	if len(rows) != sum.Scored || sum.Replayed < sum.Scored {
		t.Errorf("%d rows, %d scored of %d replayed", len(rows), sum.Scored, sum.Replayed)
	}
	if _, err := Starts(context.Background(), In{Trace: synth500(t)}, StartsOptions{RuntimeModel: t.TempDir()}); err == nil {
		t.Error("an empty run-time model directory: no error")
	}
}
