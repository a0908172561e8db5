package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/train/dqn"
	"github.com/mirage-hpc/mirage/train/modeltest"
)

// adviseFixture is advise's checked-in tiny model trained on the
// synthetic study.
const adviseFixture = "../../advise/testdata/model-synth"

// fakeSlurm answers squeue, sacct, sinfo and sbatch from fixed text and
// records every argv.
type fakeSlurm struct {
	squeue []byte
	calls  [][]string
}

func (f *fakeSlurm) Run(_ context.Context, name string, args ...string) ([]byte, error) {
	f.calls = append(f.calls, append([]string{name}, args...))
	switch name {
	case "squeue":
		return f.squeue, nil
	case "sinfo":
		return []byte("vm|mixed\n"), nil
	case "sbatch":
		return []byte("777\n"), nil
	}
	return nil, errors.New("sacct: Slurm accounting storage is disabled")
}

// captureAt is just after the capture testdata/squeue-22.05.8-b.json was
// taken (job 275 running since 1796162932, 2026-12-01T22:08:52Z).
func captureAt() time.Time { return time.Unix(1796163150, 0) }

func TestAdvise_DecideText(t *testing.T) {
	sq, err := os.ReadFile("../../advise/testdata/squeue-22.05.8-b.json")
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	g := &globalOptions{stdout: &out, stderr: &errb}
	o := adviseOptions{Model: adviseFixture, Job: "275", Audit: "-"}
	if err := runAdvise(context.Background(), g, o, &fakeSlurm{squeue: sq}, captureAt); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"job 275: WAIT (xgboost model, r: score", "P running", "ask again at"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	var line map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(errb.Bytes()), &line); err != nil || line["action"] != "wait" || line["features_sha256"] == "" {
		t.Errorf("audit line %q: %v", errb.String(), err)
	}
}

func TestAdvise_SubmitDryRunWhenPEnded(t *testing.T) {
	sq, err := os.ReadFile("../../advise/testdata/squeue-22.05.8-a.json")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	g := &globalOptions{stdout: &out, stderr: &bytes.Buffer{}}
	name := `Q "it's" | x`
	o := adviseOptions{Model: adviseFixture, Job: "271", Successor: "next job.sbatch", Name: name, Submit: true,
		DryRun: true, Dependency: true, JSON: true}
	f := &fakeSlurm{squeue: sq}
	if err := runAdvise(context.Background(), g, o, f, captureAt); err != nil {
		t.Fatal(err)
	}
	var r adviseResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	want := []string{"sbatch", "--parsable", "--job-name=" + name, "--dependency=afterany:271", "next job.sbatch"}
	if !r.DryRun || r.Decision.Reason != "p-ended" || strings.Join(r.Command, "\x00") != strings.Join(want, "\x00") {
		t.Fatalf("result %+v, want a dry run of %q", r, want)
	}
	for _, c := range f.calls {
		if c[0] == "sbatch" {
			t.Fatalf("dry run ran %q", c)
		}
	}
}

func TestAdvise_Usage(t *testing.T) {
	_, stderr, code := run(t, "advise", "--model", adviseFixture)
	if code != 3 || !strings.Contains(stderr, "--job") {
		t.Fatalf("exit %d, stderr %q; want 3 naming --job", code, stderr)
	}
	_, _, code = run(t, "advise", "--model", adviseFixture, "--job", "1", "--submit")
	if code != 3 {
		t.Fatalf("--submit without --successor: exit %d, want 3", code)
	}
}

// TestAdvise_WatchStops checks the clean stop: a cancelled context (what
// SIGINT or SIGTERM does through main's signal.NotifyContext) ends the
// watch between decisions with exit status 130.
func TestAdvise_WatchStops(t *testing.T) {
	sq, err := os.ReadFile("../../advise/testdata/squeue-22.05.8-b.json")
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	g := &globalOptions{stdout: &out, stderr: &errb}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	o := adviseOptions{Model: adviseFixture, Job: "275", Watch: true, Audit: "-"}
	err = runAdvise(ctx, g, o, &fakeSlurm{squeue: sq}, captureAt)
	if !errors.Is(err, context.Canceled) || exitCode(err) != 130 {
		t.Fatalf("err %v (exit %d), want context.Canceled, 130", err, exitCode(err))
	}
	if !strings.Contains(errb.String(), "advise: stopped") || !strings.Contains(out.String(), "WAIT") {
		t.Fatalf("stdout %q, stderr %q", out.String(), errb.String())
	}
}

// TestAdvise_RuntimeModelMissing checks that a model whose features need a
// run-time model that is gone is refused with exit status 2, naming the
// run-time model's directory and the digest the model was trained with.
func TestAdvise_RuntimeModelMissing(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"model.json", "manifest.json"} {
		b, err := os.ReadFile(filepath.Join(adviseFixture, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "manifest.json" {
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			m["runtime_model"], m["runtime_model_sha256"] = filepath.Join(dir, "rt-gone"), strings.Repeat("ab", 32)
			if b, err = json.Marshal(m); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	modeltest.Reseal(t, dir)
	_, stderr, code := run(t, "advise", "--model", dir, "--job", "1")
	if code != 2 || !strings.Contains(stderr, filepath.Join(dir, "rt-gone")) || !strings.Contains(stderr, strings.Repeat("ab", 32)) {
		t.Fatalf("exit %d, stderr %q; want 2 naming the run-time model and its digest", code, stderr)
	}
}

// TestAdvise_NonFiniteScoreJSON: advise --json with a DQN that scores
// NaN (a standardisation std of 0, refused when loaded) or infinity
// (finite weights that overflow) exits 2 with the reason, and prints no
// decision (before, it printed an empty line and exited 0).
func TestAdvise_NonFiniteScoreJSON(t *testing.T) {
	sq, err := os.ReadFile("../../advise/testdata/squeue-22.05.8-b.json")
	if err != nil {
		t.Fatal(err)
	}
	fs := features.Schema()
	write := func(sizes []int, w float64, std0 bool) string {
		net, err := dqn.NewMLP(append([]int{len(fs)}, sizes...), 1)
		if err != nil {
			t.Fatal(err)
		}
		if w != 0 {
			for _, p := range net.Params() {
				for i := range p {
					p[i] = w
				}
			}
		}
		st := dqn.NewStats(nil, len(fs))
		if std0 {
			st.Std[3] = 0
		}
		dir := filepath.Join(t.TempDir(), "dqn")
		m := &dqn.Manifest{Features: fs, FeatureSchemaVersion: features.FeatureSchemaVersion, Standardisation: st}
		if err := dqn.WriteArtifact(dir, net, nil, m); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	for name, tt := range map[string]struct {
		dir, want string
	}{
		"StdZero":  {write([]int{4, dqn.NumActions}, 0, true), "std 3 is 0"},
		"Overflow": {write([]int{4, 4, 4, 4, 4, 4, 4, 4, 4, dqn.NumActions}, 3e38, false), "prediction is NaN"},
	} {
		for _, audit := range []string{"", filepath.Join(t.TempDir(), "audit.jsonl")} {
			t.Run(fmt.Sprintf("%s/audit=%v", name, audit != ""), func(t *testing.T) {
				var out, errb bytes.Buffer
				g := &globalOptions{stdout: &out, stderr: &errb}
				o := adviseOptions{Model: tt.dir, Job: "275", JSON: true, Audit: audit}
				err := runAdvise(context.Background(), g, o, &fakeSlurm{squeue: sq}, captureAt)
				if exitCode(err) != exitBadInput || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("advise: %v (exit %d); want exit %d naming %q", err, exitCode(err), exitBadInput, tt.want)
				}
				if out.Len() != 0 {
					t.Errorf("stdout %q, want no decision", out.String())
				}
			})
		}
	}
}
