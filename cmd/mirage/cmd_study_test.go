package main

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/pipelines"
	"github.com/mirage-hpc/mirage/train"
)

// TestStudy_Show: a built-in study prints as YAML that loads back, and as
// JSON; an unknown study or a bad file is a usage error naming it.
func TestStudy_Show(t *testing.T) {
	stdout, stderr, code := run(t, "study", "show", "ls6")
	if code != 0 || !strings.Contains(stdout, "zone: America/Chicago") {
		t.Fatalf("show ls6: exit %d: %s%s", code, stdout, stderr)
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(f, []byte(strings.Replace(stdout, "name: ls6", "name: mine", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	js, stderr, code := run(t, "study", "show", f, "--json")
	var s struct {
		Name string `json:"name"`
	}
	if code != 0 || json.Unmarshal([]byte(js), &s) != nil || s.Name != "mine" {
		t.Errorf("show %s --json: exit %d: %s%s", f, code, js, stderr)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte(stdout+"colour: blue\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{"nope", bad, filepath.Join(dir, "absent.yaml")} {
		if _, stderr, code := run(t, "study", "show", arg); code != exitUsage || !strings.Contains(stderr, filepath.Base(arg)) {
			t.Errorf("show %s: exit %d, want %d naming it: %s", arg, code, exitUsage, stderr)
		}
	}
}

// TestFeatures_Study: --study gives the study's zone, partition and
// period to features build; a trace ingested in another zone is refused
// before any work. The study: data/synth-500.sacct's span, Europe/Berlin
// refused, then America/Chicago with 40 nodes.
func TestFeatures_Study(t *testing.T) {
	dir := t.TempDir()
	tr := ingestSynth500(t, dir) // America/Chicago
	study := func(zone string) string {
		f := filepath.Join(dir, "s-"+strings.ReplaceAll(zone, "/", "-")+".yaml")
		text := `name: small
trace: {zone: ` + zone + `}
cluster: {profile: default, nodes: 40, infer_dependencies: false, infer_capacity: false}
chains: {nodes: [1]}
periods:
  train: {start: "2022-11-01T12:00:00", windows: 2, stride: 6h}
  validation: {start: "2022-11-02T12:00:00", windows: 1, stride: 6h}
  warmup: 6h
  workload: 24h
  mode: cold
grid: {probes: "3"}
`
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	out := filepath.Join(dir, "s.parquet")
	if _, stderr, code := run(t, "features", "build", "--trace", tr, "--study", study("Europe/Berlin"), "-o", out); code != exitUsage || !strings.Contains(stderr, "Europe/Berlin") {
		t.Errorf("zone mismatch: exit %d, want %d: %s", code, exitUsage, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused run wrote %s", out)
	}
	stdout, stderr, code := run(t, "features", "build", "--trace", tr, "--study", study("America/Chicago"), "-o", out, "--json")
	if code != 0 {
		t.Fatalf("features build --study: exit %d: %s", code, stderr)
	}
	var sum struct {
		Windows int `json:"windows"`
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil || sum.Windows != 2 {
		t.Errorf("summary %s: %v", stdout, err)
	}
	_, meta, err := train.ReadSamples(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Nodes int `json:"nodes"`
	}
	var opts struct {
		Name string `json:"name"`
		TZ   string `json:"tz"`
	}
	if json.Unmarshal(meta.SimConfig, &cfg) != nil || cfg.Nodes != 40 || json.Unmarshal(meta.Options, &opts) != nil ||
		opts.Name != "small" || opts.TZ != "America/Chicago" {
		t.Errorf("samples simulated %d nodes, protocol %+v; want the study's 40 nodes, small, America/Chicago", cfg.Nodes, opts)
	}
	if _, stderr, code := run(t, "features", "build", "--trace", tr, "--study", study("America/Chicago"), "--period", "later", "-o", out); code != exitUsage {
		t.Errorf("--period later: exit %d, want %d: %s", code, exitUsage, stderr)
	}
}

// TestStudy_InitEndToEnd: a synthetic trace of another zone
// (Europe/Berlin) and partition (40 nodes) runs from study init through
// features build --study with no other setting: the study takes the
// trace's zone and peak nodes, the samples simulate that partition, and
// hour_of_day is the Berlin hour of each probe. An existing study is
// kept unless --force. The study, its windows cut short as a user would,
// then runs as a pipeline to the report on the same partition and zone.
func TestStudy_InitEndToEnd(t *testing.T) {
	dir := t.TempDir()
	sacct, tr, st := filepath.Join(dir, "b.sacct"), filepath.Join(dir, "b.parquet"), filepath.Join(dir, "b.yaml")
	for _, args := range [][]string{
		{"synth", "--partition-nodes", "40", "--jobs", "8000", "--tz", "Europe/Berlin", "-o", sacct},
		{"ingest", "--tz", "Europe/Berlin", "-o", tr, sacct},
		{"study", "init", "--trace", tr, "-o", st, "--name", "berlin"},
	} {
		if _, stderr, code := run(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	if _, stderr, code := run(t, "study", "init", "--trace", tr, "-o", st); code != exitUsage || !strings.Contains(stderr, "--force") {
		t.Errorf("init over an existing study: exit %d: %s", code, stderr)
	}
	if _, stderr, code := run(t, "study", "init", "--trace", tr, "-o", st, "--name", "berlin", "--force"); code != 0 {
		t.Errorf("init --force: exit %d: %s", code, stderr)
	}
	js, _, _ := run(t, "study", "show", st, "--json")
	var s struct {
		Trace   struct{ Zone string } `json:"trace"`
		Cluster struct{ Nodes int }   `json:"cluster"`
	}
	if err := json.Unmarshal([]byte(js), &s); err != nil || s.Trace.Zone != "Europe/Berlin" || s.Cluster.Nodes < 2 || s.Cluster.Nodes > 40 {
		t.Fatalf("proposed study: zone %q, %d nodes (%v): want Europe/Berlin and at most 40", s.Trace.Zone, s.Cluster.Nodes, err)
	}
	out := filepath.Join(dir, "s.parquet")
	if _, stderr, code := run(t, "features", "build", "--trace", tr, "--study", st, "--windows", "2", "-o", out); code != 0 {
		t.Fatalf("features build --study: exit %d: %s", code, stderr)
	}
	samples, meta, err := train.ReadSamples(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Nodes int `json:"nodes"`
	}
	if json.Unmarshal(meta.SimConfig, &cfg) != nil || cfg.Nodes != s.Cluster.Nodes {
		t.Errorf("samples simulated %d nodes, the study says %d", cfg.Nodes, s.Cluster.Nodes)
	}
	hour := slices.Index(samples.Names, "hour_of_day")
	berlin, _ := time.LoadLocation("Europe/Berlin")
	if hour < 0 || samples.Len() == 0 {
		t.Fatalf("no hour_of_day or no samples (%d)", samples.Len())
	}
	for i, at := range samples.ProbeTime {
		tm := time.Unix(at, 0).In(berlin)
		want := float64(tm.Hour()) + float64(tm.Minute())/60 + float64(tm.Second())/3600
		if got := samples.Features[hour][i]; math.Abs(got-want) > 1e-9 {
			t.Fatalf("row %d: hour_of_day %v, want Berlin's %v", i, got, want)
		}
	}
	ev := filepath.Join(dir, "eval")
	if _, stderr, code := run(t, "evaluate", "--trace", tr, "--study", st, "--windows", "1", "--policy", "reactive,slurm-estimate", "-o", ev); code != 0 {
		t.Fatalf("evaluate --study: exit %d: %s", code, stderr)
	}
	var m evaluate.Metrics
	if err := json.Unmarshal(readFile(t, filepath.Join(ev, "metrics.json")), &m); err != nil {
		t.Fatal(err)
	}
	if m.SimConfig == nil || m.SimConfig.Nodes != s.Cluster.Nodes || m.Protocol == nil || m.Protocol.TZ != "Europe/Berlin" || m.Protocol.Name != "berlin-val" {
		t.Errorf("evaluated %+v on %+v; want the study's validation period in Europe/Berlin on %d nodes", m.Protocol, m.SimConfig, s.Cluster.Nodes)
	}

	// The same study runs as a pipeline to the report, after the edit a
	// user makes to keep it short (fewer windows).
	edited, err := pipelines.Resolve(st)
	if err != nil {
		t.Fatal(err)
	}
	edited.Periods.Train.Windows, edited.Periods.Validation.Windows = 2, 1
	b, err := edited.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(st, b, 0o644); err != nil {
		t.Fatal(err)
	}
	pout := filepath.Join(dir, "pipeline")
	stdout, stderr, code := run(t, "pipeline", "run", st, "--trace", tr, "-o", pout)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != 0 || !strings.HasSuffix(lines[len(lines)-1], "report.html") {
		t.Fatalf("pipeline run: exit %d: %s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(lines[len(lines)-1]); err != nil {
		t.Error(err)
	}
	evals, _ := filepath.Glob(filepath.Join(pout, "stages", "evaluate-*", "metrics.json"))
	if len(evals) != 1 {
		t.Fatalf("evaluate stages %v", evals)
	}
	m = evaluate.Metrics{}
	if err := json.Unmarshal(readFile(t, evals[0]), &m); err != nil {
		t.Fatal(err)
	}
	if m.SimConfig == nil || m.SimConfig.Nodes != s.Cluster.Nodes || m.Protocol == nil || m.Protocol.TZ != "Europe/Berlin" {
		t.Errorf("pipeline evaluated %+v on %+v; want Europe/Berlin on %d nodes", m.Protocol, m.SimConfig, s.Cluster.Nodes)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStudy_ShowRefusesWhatRunRefuses: a hostile or mistyped study (a
// model kind or target that is a path or a typo, an unknown policy, a
// line break in a field that reaches a batch script or a command line) is
// refused by the one validation that pipelines.Load, study show,
// pipeline run, features build --study, evaluate --study and train
// --study share, with the same message naming the field, exit 3.
func TestStudy_ShowRefusesWhatRunRefuses(t *testing.T) {
	_, text, err := pipelines.Builtin("synth")
	if err != nil {
		t.Fatal(err)
	}
	synth := string(text)
	models := "  - {kind: dqn, episodes: 100}\n"
	policies := "policies: [reactive, immediate, avg, slurm-estimate, oracle, oracle-cost]\n"
	dir := t.TempDir()
	for _, tt := range []struct{ name, old, new, field string }{
		{"KindPath", models, "  - {kind: \"../../evil\"}\n", "models[0].kind"},
		{"KindTypo", models, "  - {kind: forrest}\n", "models[0].kind"},
		{"TargetPath", models, "  - {kind: forest, target: \"../../evil\"}\n", "models[0].target"},
		{"TargetTypo", models, "  - {kind: xgboost, target: interupt}\n", "models[0].target"},
		{"TargetOfEstimate", models, "  - {kind: estimate-rt, target: r}\n", "models[0].target"},
		{"EpisodesOfForest", "  - {kind: forest}\n", "  - {kind: forest, episodes: 3}\n", "models[1].episodes"},
		{"DQNField", models, "  - {kind: dqn, dqn: {learning_speed: 2}}\n", "models[0].dqn"},
		{"ModelTwice", "  - {kind: forest}\n", "  - {kind: forest}\n  - {kind: forest}\n", "models[2]"},
		{"PolicyTypo", policies, "policies: [reactive, oracle-cots]\n", "policies"},
		{"PolicyNoDir", policies, "policies: [reactive, \"forest:\"]\n", "policies"},
		{"PolicyTwice", policies, "policies: [reactive, reactive]\n", "policies"},
		{"PolicyLambda", policies, "policies: [\"oracle-cost@λ=-1\"]\n", "policies"},
		{"NameNewline", "name: synth\n", "name: \"synth\\ntouch PWNED #\"\n", "name"},
		{"AccountNewline", "predictions: true\n", "predictions: true\nslurm: {account: \"proj\\ntouch PWNED #\"}\n", "slurm.account"},
		{"PartitionCR", "predictions: true\n", "predictions: true\nslurm: {partition: \"gpu\\rx\"}\n", "slurm.partition"},
		{"ExtraArgNewline", "predictions: true\n", "predictions: true\nslurm: {extra_args: [\"--qos=a\\ntouch PWNED\"]}\n", "slurm.extra_args[0]"},
		{"InputNUL", "  synth: {jobs: 30000, seed: 1}\n", "  inputs: [\"a\\0b.sacct\"]\n", "trace.inputs[0]"},
		{"ClusterNewline", "  cluster: synth\n", "  cluster: \"synth\\nx\"\n", "trace.cluster"},
		{"RuntimeModelNewline", "predictions: true\n", "predictions: true\nfeatures: {runtime_model: \"m\\nx\"}\n", "features.runtime_model"},
		{"DQNValueNewline", models, "  - {kind: dqn, dqn: {hidden: \"a\\nb\"}}\n", "models[0].dqn.hidden"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(synth, tt.old) {
				t.Fatalf("synth study has no %q", tt.old)
			}
			data := strings.Replace(synth, tt.old, tt.new, 1)
			path := filepath.Join(dir, tt.name+".yaml")
			if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := pipelines.Load(path, []byte(data))
			if !errors.Is(err, pipelines.ErrStudy) || !strings.Contains(err.Error(), ": "+tt.field+": ") {
				t.Fatalf("Load: %v, want ErrStudy naming %s", err, tt.field)
			}
			tr, out := filepath.Join(dir, "t.parquet"), filepath.Join(dir, tt.name)
			for _, args := range [][]string{{"study", "show", path}, {"pipeline", "run", path, "-o", out},
				{"features", "build", "--study", path, "--trace", tr, "-o", out + ".parquet"},
				{"evaluate", "--study", path, "--trace", tr, "-o", out},
				{"train", "--model", "dqn", "--study", path, "--trace", tr, "-o", out}} {
				if _, stderr, code := run(t, args...); code != exitUsage || !strings.Contains(stderr, err.Error()) {
					t.Errorf("%s: exit %d, want %d with %q: %s", strings.Join(args[:2], " "), code, exitUsage, err, stderr)
				}
			}
			for _, p := range []string{out, out + ".parquet"} {
				if _, err := os.Stat(p); !os.IsNotExist(err) {
					t.Errorf("%s was created", p)
				}
			}
		})
	}
}
