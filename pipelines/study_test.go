package pipelines_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/ingest/ls6test"
	"github.com/mirage-hpc/mirage/pipelines"
)

// TestBuiltin_MatchesPresets: each built-in study gives exactly the
// features protocols of the preset of its name and of NAME-val.
func TestBuiltin_MatchesPresets(t *testing.T) {
	names := pipelines.BuiltinNames()
	if !gocmp.Equal(names, []string{"ls6", "mirage-ls6", "synth"}) {
		t.Fatalf("built-in studies %v", names)
	}
	for _, name := range []string{"ls6", "mirage-ls6"} { // synth has no preset: TestBuiltin_Synth
		s, _, err := pipelines.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		train, val, err := s.Protocols()
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			got    features.Protocol
			preset string
		}{{train, name}, {val, name + "-val"}} {
			want, err := features.LookupProtocol(tt.preset)
			if err != nil {
				t.Fatal(err)
			}
			if d := gocmp.Diff(want, tt.got); d != "" {
				t.Errorf("study %s vs preset %s (-preset +study):\n%s", name, tt.preset, d)
			}
		}
	}
}

// TestBuiltin_Synth: the synth study (make run) is the mirage-ls6 preset
// with the windows make run used before it was a pipeline: 300 training
// windows every 6 h from 2022-11-02, the last 60 before the synthetic
// trace's end, 1-node chains, the decision grid.
func TestBuiltin_Synth(t *testing.T) {
	s, _, err := pipelines.Builtin("synth")
	if err != nil {
		t.Fatal(err)
	}
	train, val, err := s.Protocols()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		got            features.Protocol
		preset, name   string
		start          string
		windows, hours int
	}{{train, "mirage-ls6", "synth", "2022-11-02T00:00:00", 300, 6}, {val, "mirage-ls6-val", "synth-val", "2023-04-08T00:00:00", 60, 6}} {
		want, err := features.LookupProtocol(tt.preset)
		if err != nil {
			t.Fatal(err)
		}
		g := features.GridOptions{}.WithDefaults()
		want.Name, want.Start, want.Windows, want.Interval = tt.name, tt.start, tt.windows, time.Duration(tt.hours)*time.Hour
		want.ChainNodes, want.Grid = []int{1}, &g
		if d := gocmp.Diff(want, tt.got); d != "" {
			t.Errorf("study synth vs preset %s with make run's windows (-want +study):\n%s", tt.preset, d)
		}
	}
	if s.Trace.Synth == nil || s.Trace.Synth.Jobs != 30000 || !s.Sweep || !s.Predictions || len(s.Models) != 6 {
		t.Errorf("synth study: trace %+v, sweep %v, predictions %v, models %v", s.Trace, s.Sweep, s.Predictions, s.Models)
	}
}

// TestBuiltin_SamplesIdentical: the ls6 study's training protocol builds
// byte-identical samples to the ls6 preset (on the first 3 windows of
// the real LS6 trace).
func TestBuiltin_SamplesIdentical(t *testing.T) {
	tjobs := ls6test.Jobs(t)
	s, _, err := pipelines.Builtin("ls6")
	if err != nil {
		t.Fatal(err)
	}
	fromStudy, _, err := s.Protocols()
	if err != nil {
		t.Fatal(err)
	}
	preset, err := features.LookupProtocol("ls6")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var files [2]string
	for i, p := range []features.Protocol{preset, fromStudy} {
		p.Windows = 3
		jobs, opts, err := p.Prepare(tjobs)
		if err != nil {
			t.Fatal(err)
		}
		samples, _, err := features.Build(context.Background(), jobs, opts)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = filepath.Join(dir, []string{"preset", "study"}[i]+".parquet")
		if err := features.WriteParquet(files[i], &samples, features.FileMeta{Protocol: p.Name}); err != nil {
			t.Fatal(err)
		}
	}
	a, b := readFile(t, files[0]), readFile(t, files[1])
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("samples differ: %d and %d bytes", len(a), len(b))
	}
}

// TestLoad_Formats: the ls6 study written as YAML, JSON and TOML loads to
// the same study.
func TestLoad_Formats(t *testing.T) {
	want, text, err := pipelines.Builtin("ls6")
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	toml := `name = "ls6"
policies = ["reactive", "avg", "slurm-estimate", "oracle", "oracle-cost"]
[trace]
zone = "America/Chicago"
cluster = "ls6"
[cluster]
profile = "ls6"
infer_dependencies = true
infer_capacity = true
[chains]
nodes = [1, 8]
[periods]
warmup = "48h"
workload = "120h"
mode = "warm"
[periods.train]
start = "2022-11-01T00:00:00"
windows = 684
stride = "4h"
[periods.validation]
start = "2023-03-01T00:00:00"
windows = 156
stride = "4h"
[grid]
probes = "grid"
decision = "10m"
dense = "24h"
sparse = "1h"
[budget]
overlap = "1h"

[[models]]
kind = "xgboost"
target = "interrupt"
[[models]]
kind = "estimate"
[[models]]
kind = "estimate-rt"
`
	out, err := want.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		data []byte
	}{{"s.yaml", text}, {"s.yml", out}, {"s.json", js}, {"s.toml", []byte(toml)}} {
		got, err := pipelines.Load(tt.path, tt.data)
		if err != nil {
			t.Errorf("%s: %v", tt.path, err)
			continue
		}
		if d := gocmp.Diff(want, got, cmpopts.IgnoreUnexported(pipelines.Study{})); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.path, d)
		}
	}
}

// TestLoad_Errors: bad studies fail with an error that names the file,
// the field and, for YAML, the line.
func TestLoad_Errors(t *testing.T) {
	_, text, err := pipelines.Builtin("ls6")
	if err != nil {
		t.Fatal(err)
	}
	ls6 := string(text)
	for _, tt := range []struct {
		name, path, data string
		want             []string
	}{
		{"UnknownField", "a.yaml", ls6 + "colour: blue\n", []string{"a.yaml", "line 40", "colour"}},
		{"Typo", "b.yaml", strings.Replace(ls6, "  zone:", "  zoen:", 1), []string{"b.yaml", "zoen"}},
		{"BadZone", "c.yaml", strings.Replace(ls6, "America/Chicago", "Mars/Olympus", 1), []string{"c.yaml", "trace.zone", "Mars/Olympus"}},
		{"BadMode", "d.yaml", strings.Replace(ls6, "mode: warm", "mode: tepid", 1), []string{"periods.mode", "tepid"}},
		{"BadDuration", "e.yaml", strings.Replace(ls6, "stride: 4h", "stride: often", 1), []string{"e.yaml", "often"}},
		{"BadStart", "f.yaml", strings.Replace(ls6, "2023-03-01T00:00:00", "March", 1), []string{"periods.validation.start", "March"}},
		{"NoChains", "g.yaml", strings.Replace(ls6, "nodes: [1, 8]", "nodes: []", 1), []string{"chains.nodes"}},
		{"QTimeMinSeconds", "g.yaml", strings.Replace(ls6, "nodes: [1, 8]", "nodes: [1, 8]\n  q_time_min: 90s", 1), []string{"chains.q_time_min", "1m30s"}},
		{"GridFieldsWithCount", "h.yaml", strings.Replace(ls6, "probes: grid", "probes: \"7\"", 1), []string{"grid"}},
		{"JSONUnknown", "i.json", `{"name": "x", "colour": "blue"}`, []string{"i.json", "colour"}},
		{"Extension", "j.txt", ls6, []string{"j.txt", ".yaml"}},
		{"SynthAndInputs", "k.yaml", strings.Replace(ls6, "  zone:", "  inputs: [a.sacct]\n  synth: {jobs: 10}\n  zone:", 1), []string{"k.yaml", "trace.synth"}},
		{"SynthStart", "l.yaml", strings.Replace(ls6, "  zone:", "  synth: {start: soon}\n  zone:", 1), []string{"trace.synth.start", "soon"}},
		{"CVFolds", "m.yaml", strings.Replace(ls6, "  overlap: 1h", "  overlap: 1h\n  cv_folds: 1", 1), []string{"budget.cv_folds"}},
		{"BudgetRule", "m.yaml", strings.Replace(ls6, "  overlap: 1h", "  overlap: 1h\n  rule: max", 1), []string{"budget.rule"}},
		{"KindTypo", "n.yaml", strings.Replace(ls6, "{kind: xgboost, target: interrupt}", "{kind: forrest}", 1), []string{"n.yaml", "models[0].kind", "forrest"}},
		{"KindPath", "o.yaml", strings.Replace(ls6, "{kind: estimate-rt}", "{kind: \"../../evil\"}", 1), []string{"models[2].kind", "../../evil"}},
		{"TargetPath", "p.yaml", strings.Replace(ls6, "target: interrupt", "target: ../x", 1), []string{"models[0].target", "../x"}},
		{"PolicyTypo", "q.yaml", strings.Replace(ls6, "oracle-cost]", "oracle-cots]", 1), []string{"policies", "oracle-cots"}},
		{"AccountNewline", "r.yaml", ls6 + "slurm: {account: \"a\\ntouch PWNED #\"}\n", []string{"r.yaml", "slurm.account", "newline"}},
		{"ExtraArgCR", "s.json", `{"slurm": {"extra_args": ["--qos=x", "--a=\r"]}}`, []string{"s.json", "slurm.extra_args[1]"}},
		{"LifetimeHandover", "u.yaml", ls6 + "lifetime: {length: 720h, handover: soon}\n", []string{"lifetime.handover", "soon"}},
		{"LifetimeLength", "v.yaml", ls6 + "lifetime: {length: 0s}\n", []string{"lifetime.length"}},
		{"NameNUL", "t.yaml", strings.Replace(ls6, "name: ls6", `name: "ls\0x"`, 1), []string{"t.yaml", "name"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := pipelines.Load(tt.path, []byte(tt.data))
			if !errors.Is(err, pipelines.ErrStudy) {
				t.Fatalf("error %v, want ErrStudy", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// TestStudy_QTimeMin: chains.q_time_min becomes both periods' protocol's
// Q time-min; without it the protocols have none.
func TestStudy_QTimeMin(t *testing.T) {
	_, text, err := pipelines.Builtin("ls6")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		add  string
		want time.Duration
	}{{"", 0}, {"\n  q_time_min: 12h", 12 * time.Hour}} {
		s, err := pipelines.Load("a.yaml", []byte(strings.Replace(string(text), "nodes: [1, 8]", "nodes: [1, 8]"+tt.add, 1)))
		if err != nil {
			t.Fatal(err)
		}
		tr, va, err := s.Protocols()
		if err != nil {
			t.Fatal(err)
		}
		if tr.QTimeMin != tt.want || va.QTimeMin != tt.want {
			t.Errorf("q_time_min %q: protocols' %v and %v, want %v", tt.add, tr.QTimeMin, va.QTimeMin, tt.want)
		}
	}
}
