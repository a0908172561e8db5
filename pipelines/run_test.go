package pipelines_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/ingest/synth"
	"github.com/mirage-hpc/mirage/pipelines"
)

// smallTrace writes a synthetic 3,000-job, 24-node trace in
// Europe/Berlin and returns its Parquet path.
func smallTrace(t *testing.T, dir string) string {
	t.Helper()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	opts := synth.DefaultOptions()
	opts.Jobs, opts.Nodes, opts.Location = 3000, 24, berlin
	in := filepath.Join(dir, "t.sacct")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := synth.WriteSacct(f, opts); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "t.parquet")
	if _, err := ingest.Run(context.Background(), []string{in}, out, ingest.Options{Location: berlin, Cluster: "small"}); err != nil {
		t.Fatal(err)
	}
	return out
}

func smallStudy(valWindows int) *pipelines.Study {
	return &pipelines.Study{
		Name:    "small",
		Trace:   pipelines.TraceSpec{Zone: "Europe/Berlin"},
		Cluster: pipelines.ClusterSpec{Profile: "default", Nodes: 24},
		Chains:  pipelines.ChainSpec{Nodes: []int{1}},
		Periods: pipelines.PeriodsSpec{
			Train:      pipelines.Period{Start: "2022-11-03T00:00:00", Windows: 24, Stride: pipelines.Duration(6 * time.Hour)},
			Validation: pipelines.Period{Start: "2022-11-12T00:00:00", Windows: valWindows, Stride: pipelines.Duration(6 * time.Hour)},
			Warmup:     pipelines.Duration(6 * time.Hour), Workload: pipelines.Duration(24 * time.Hour), Mode: "cold",
		},
		Grid:     pipelines.GridSpec{Probes: "4"},
		Models:   []pipelines.ModelSpec{{Kind: "forest", Target: "interrupt"}, {Kind: "estimate"}},
		Policies: []string{"reactive", "slurm-estimate", "oracle"},
	}
}

// TestRun_Cache: a first run runs every stage and writes the report; a
// second is all cache hits; changing only the validation period reruns
// only evaluate and report; a stage whose meta.json is missing (killed
// before it finished) is redone, and only it; --force reruns a stage.
func TestRun_Cache(t *testing.T) {
	dir := t.TempDir()
	tr := smallTrace(t, dir)
	out := filepath.Join(dir, "out")
	ctx := context.Background()
	ran := func(s *pipelines.Study, force ...string) map[string]bool {
		t.Helper()
		res, err := pipelines.Run(ctx, s, pipelines.RunOptions{Trace: tr, Out: out, Version: "test", Workers: 2, Force: force})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]bool{}
		for _, r := range res {
			m[r.Name] = !r.Cached
		}
		return m
	}
	want := func(name string, got map[string]bool, stages ...string) {
		t.Helper()
		if len(got) != 5 {
			t.Fatalf("%s: stages %v, want 5", name, got)
		}
		for s, r := range got {
			if r != contains(stages, s) {
				t.Errorf("%s: stage %s ran %v", name, s, r)
			}
		}
	}
	all := []string{"features-train", "train-forest-interrupt", "train-estimate", "evaluate", "report"}
	want("first run", ran(smallStudy(3)), all...)
	reports, _ := filepath.Glob(filepath.Join(out, "stages", "report-*", "report.html"))
	if len(reports) != 1 {
		t.Fatalf("report.html: %v", reports)
	}
	want("second run", ran(smallStudy(3)))
	want("validation changed", ran(smallStudy(2)), "evaluate", "report")
	evals, _ := filepath.Glob(filepath.Join(out, "stages", "evaluate-*", "meta.json"))
	if len(evals) != 2 {
		t.Fatalf("evaluate stages %v", evals)
	}
	for _, m := range evals { // both evaluations "killed" before they finished
		if err := os.Remove(m); err != nil {
			t.Fatal(err)
		}
	}
	want("unfinished evaluate", ran(smallStudy(2)), "evaluate")
	want("forced", ran(smallStudy(2), "train-estimate"), "train-estimate")

	// The models trained in parallel are the same files as trained one
	// after the other (evaluate and report name the policies by their
	// directories, which differ between the two output directories).
	seq, par := filepath.Join(dir, "seq"), filepath.Join(dir, "par")
	var metas [2][]string
	for i, o := range []pipelines.RunOptions{{Trace: tr, Out: seq, Version: "test", Jobs: 1}, {Trace: tr, Out: par, Version: "test", Jobs: 2}} {
		res, err := pipelines.Run(ctx, smallStudy(2), o)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Name == "evaluate" || r.Name == "report" {
				continue
			}
			m := readFile(t, filepath.Join(r.Dir, "meta.json"))
			metas[i] = append(metas[i], r.Name+" "+outputsOf(t, m))
		}
	}
	if !slices.Equal(metas[0], metas[1]) {
		t.Errorf("sequential and parallel runs differ:\n%v\n%v", metas[0], metas[1])
	}

	res, err := pipelines.Run(ctx, smallStudy(3), pipelines.RunOptions{Trace: tr, Out: out, Version: "test", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if stale := !r.Cached; stale != (r.Name == "evaluate") {
			t.Errorf("status: %s stale %v (only the evaluate of 3 windows, killed, is stale)", r.Name, stale)
		}
	}
}

// TestRun_BadStudy: a bad model or policy is refused before any stage.
func TestRun_BadStudy(t *testing.T) {
	dir := t.TempDir()
	tr := smallTrace(t, dir)
	for name, mutate := range map[string]func(*pipelines.Study){
		"Model":  func(s *pipelines.Study) { s.Models = append(s.Models, pipelines.ModelSpec{Kind: "oracle"}) },
		"Target": func(s *pipelines.Study) { s.Models = []pipelines.ModelSpec{{Kind: "xgboost", Target: "luck"}} },
		"Policy": func(s *pipelines.Study) { s.Policies = append(s.Policies, "psychic") },
		"Folds":  func(s *pipelines.Study) { s.Periods.Train.Windows = 3 },
		"Twice":  func(s *pipelines.Study) { s.Models = append(s.Models, s.Models[0]) },
		"DQNTarget": func(s *pipelines.Study) {
			s.Models = append(s.Models, pipelines.ModelSpec{Kind: "dqn", Target: "r"})
		},
		"DQNField": func(s *pipelines.Study) {
			s.Models = append(s.Models, pipelines.ModelSpec{Kind: "dqn", DQN: map[string]any{"learning_speed": 2}})
		},
		"EpisodesOfForest": func(s *pipelines.Study) { s.Models[0].Episodes = 3 },
	} {
		s := smallStudy(2)
		mutate(s)
		out := filepath.Join(dir, name)
		if _, err := pipelines.Run(context.Background(), s, pipelines.RunOptions{Trace: tr, Out: out}); !errors.Is(err, pipelines.ErrStudy) {
			t.Errorf("%s: error %v, want ErrStudy", name, err)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: %s was created", name, out)
		}
	}
}

// TestRun_Ingest: a study whose trace.inputs name a sacct file (relative
// to the study file) gets an ingest stage, cached like the others, and
// its features key is the one a run on the same Parquet trace gets.
func TestRun_Ingest(t *testing.T) {
	dir := t.TempDir()
	smallTrace(t, dir) // writes dir/t.sacct
	s := smallStudy(2)
	s.Trace.Inputs, s.Trace.Cluster = []string{"t.sacct"}, "small"
	s.Models = nil
	b, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "study.yaml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := pipelines.Load(path, b)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	ctx := context.Background()
	first, err := pipelines.Run(ctx, loaded, pipelines.RunOptions{Out: out, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 4 || first[0].Name != "ingest" || first[0].Cached {
		t.Fatalf("stages %+v", first)
	}
	again, err := pipelines.Run(ctx, loaded, pipelines.RunOptions{Out: out, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range again {
		if !r.Cached {
			t.Errorf("second run: %s ran", r.Name)
		}
	}
	viaTrace, err := pipelines.Run(ctx, loaded, pipelines.RunOptions{Trace: filepath.Join(first[0].Dir, "trace.parquet"), Out: out, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if viaTrace[0].Name != "features-train" || viaTrace[0].Key != first[1].Key || !viaTrace[0].Cached {
		t.Errorf("features via --trace %+v, via ingest %+v", viaTrace[0], first[1])
	}
	s.Trace.Inputs = []string{"absent.sacct"}
	if _, err := pipelines.Run(ctx, s, pipelines.RunOptions{Out: filepath.Join(dir, "out2")}); !errors.Is(err, pipelines.ErrStudy) {
		t.Errorf("absent input: %v, want ErrStudy", err)
	}
}

// outputsOf returns a stage's outputs_sha256 from its meta.json, sorted.
func outputsOf(t *testing.T, meta []byte) string {
	t.Helper()
	var m struct {
		Outputs map[string]string `json:"outputs_sha256"`
	}
	if err := json.Unmarshal(meta, &m); err != nil {
		t.Fatal(err)
	}
	var out []string
	for k, v := range m.Outputs {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestRun_DQNAndPredictions: a study with a DQN, a model of r, sweep and
// predictions trains the DQN as a stage keyed by the training period
// (not by the samples), evaluates it as dqn:DIR, predicts r on the
// validation samples and draws both in the report; changing only the
// validation period reruns only features-validation, predict, evaluate
// and report.
func TestRun_DQNAndPredictions(t *testing.T) {
	dir := t.TempDir()
	tr := smallTrace(t, dir)
	out := filepath.Join(dir, "out")
	study := func(valWindows int) *pipelines.Study {
		s := smallStudy(valWindows)
		s.Models = []pipelines.ModelSpec{{Kind: "forest"}, {Kind: "dqn", Episodes: 4,
			DQN: map[string]any{"hidden": []int{16, 8}, "stats_episodes": 2, "valid_episodes": 1, "bias_episodes": 4}}}
		s.Sweep, s.Predictions = true, true
		return s
	}
	run := func(s *pipelines.Study) []pipelines.StageResult {
		t.Helper()
		res, err := pipelines.Run(context.Background(), s, pipelines.RunOptions{Trace: tr, Out: out, Version: "test", Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	ran := func(res []pipelines.StageResult) []string {
		var names []string
		for _, r := range res {
			if !r.Cached {
				names = append(names, r.Name)
			}
		}
		return names
	}
	first := run(study(2))
	want := []string{"features-train", "train-forest", "train-dqn", "features-validation", "predict-forest", "evaluate", "report"}
	if got := ran(first); !slices.Equal(got, want) {
		t.Fatalf("first run ran %v, want %v", got, want)
	}
	stages := map[string]pipelines.StageResult{}
	for _, r := range first {
		stages[r.Name] = r
	}
	for _, f := range []string{"train-dqn/dqn/model.safetensors", "train-dqn/dqn/model.onnx", "train-dqn/dqn/curve.csv",
		"predict-forest/predictions.parquet", "report/report.html", "report/dqn-curve-dqn.png", "report/predicted-vs-actual.png"} {
		stage, name, _ := strings.Cut(f, "/")
		if _, err := os.Stat(filepath.Join(stages[stage].Dir, name)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	metrics := string(readFile(t, filepath.Join(stages["evaluate"].Dir, "metrics.json")))
	// The trained models are named relative to the output directory.
	for _, policy := range []string{`"dqn:stages/` + filepath.Base(stages["train-dqn"].Dir) + `/dqn"`, `"forest:stages/`, `@θ=`} {
		if !strings.Contains(metrics, policy) {
			t.Errorf("metrics.json has no policy %s", policy)
		}
	}
	if got := ran(run(study(2))); len(got) != 0 {
		t.Errorf("second run ran %v", got)
	}
	want = []string{"features-validation", "predict-forest", "evaluate", "report"}
	if got := ran(run(study(1))); !slices.Equal(got, want) {
		t.Errorf("validation changed: ran %v, want %v", got, want)
	}
}
