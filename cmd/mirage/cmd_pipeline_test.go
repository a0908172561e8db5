package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPipeline_Slurm: --executor slurm submits each stage with sbatch
// (fakes on PATH: sbatch numbers the jobs, squeue knows none), after the
// jobs of the stages it reads; status shows each job and, as a job left
// no exit status, its state UNKNOWN; run-stage (what a job runs) runs one
// stage into the shared cache, which status then finds fresh.
func TestPipeline_Slurm(t *testing.T) {
	dir := t.TempDir()
	tr := ingestSynth500(t, dir)
	study := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(study, []byte(tinyStudy+"slurm: {partition: batch, time: {features: 2h}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	calls := filepath.Join(dir, "sbatch.calls")
	fakes := map[string]string{
		"sbatch": "#!/bin/sh\necho \"$*\" >>'" + calls + "'\nwc -l <'" + calls + "' | tr -d ' '\n",
		"squeue": "#!/bin/sh\necho 'slurm_load_jobs error: Invalid job id specified' >&2\nexit 1\n",
	}
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range fakes {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out := filepath.Join(dir, "out")
	stdout, stderr, code := run(t, "pipeline", "run", study, "--trace", tr, "-o", out, "--executor", "slurm")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	for i, stage := range []string{"features-train", "train-estimate", "evaluate", "report"} {
		if !strings.Contains(stdout, stage) || !strings.Contains(stdout, "slurm job "+string(rune('1'+i))) {
			t.Errorf("run output has no %s as job %d:\n%s", stage, i+1, stdout)
		}
	}
	b, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "--partition=batch --time=0-02:00:00") ||
		!strings.Contains(lines[1], "--dependency=afterok:1 ") || !strings.Contains(lines[3], "--dependency=afterok:3 ") {
		t.Errorf("sbatch calls:\n%s", b)
	}
	if _, _, code := run(t, "pipeline", "run", study, "--trace", tr, "-o", out, "--executor", "pbs"); code != exitUsage {
		t.Errorf("--executor pbs: exit %d, want %d", code, exitUsage)
	}

	if _, stderr, code := run(t, "pipeline", "run-stage", "features-train", study, "--trace", tr, "-o", out); code != 0 {
		t.Fatalf("run-stage: exit %d: %s", code, stderr)
	}
	stdout, stderr, code = run(t, "pipeline", "status", study, "--trace", tr, "-o", out)
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, stderr)
	}
	got := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(got) != 4 || !strings.HasPrefix(got[0], "features-train") || !strings.Contains(got[0], "cached") ||
		!strings.Contains(got[1], "stale") || !strings.Contains(got[1], "slurm job 2 UNKNOWN") {
		t.Errorf("status:\n%s", stdout)
	}
	if _, _, code := run(t, "pipeline", "run-stage", "train-nope", study, "--trace", tr, "-o", out); code != exitUsage {
		t.Errorf("run-stage of no stage: exit %d, want %d", code, exitUsage)
	}
}

// TestPipeline_RunStatus: pipeline run on a small study runs every stage
// once; status and a second run find them all cached; a bad study or a
// trace of another zone is a usage error before any stage.
func TestPipeline_RunStatus(t *testing.T) {
	dir := t.TempDir()
	tr := ingestSynth500(t, dir) // America/Chicago, 2022-11-01 .. 2022-11-03
	study := filepath.Join(dir, "s.yaml")
	text := tinyStudy
	if err := os.WriteFile(study, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	testPipelineRunStatus(t, dir, tr, study, text)
}

// tinyStudy is a study of ingestSynth500's trace.
const tinyStudy = `name: tiny
trace: {zone: America/Chicago}
cluster: {profile: default, nodes: 88, infer_dependencies: false, infer_capacity: false}
chains: {nodes: [1]}
periods:
  train: {start: "2022-11-01T06:00:00", windows: 8, stride: 2h}
  validation: {start: "2022-11-02T12:00:00", windows: 2, stride: 3h}
  warmup: 2h
  workload: 12h
  mode: cold
grid: {probes: "3"}
models: [{kind: estimate}]
policies: [reactive, oracle]
`

func testPipelineRunStatus(t *testing.T, dir, tr, study, text string) {
	t.Helper()
	out := filepath.Join(dir, "out")
	type result struct {
		Stage  string `json:"stage"`
		Cached bool   `json:"cached"`
	}
	runJSON := func(args ...string) []result {
		t.Helper()
		stdout, stderr, code := run(t, append(args, "--json")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var sum struct {
			Grounds *struct {
				Fidelity        *struct{} `json:"fidelity"`
				Recommendations []struct {
					ChainNodes int `json:"chain_nodes"`
				} `json:"recommendations"`
			} `json:"grounds"`
			Stages []result `json:"stages"`
		}
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
			t.Fatalf("%v: %v: %s", args, err, stdout)
		}
		// The verdict opens the summary: the fidelity, then the
		// recommendations, before the stages.
		if !strings.HasPrefix(stdout, "{\n  \"grounds\": ") {
			t.Errorf("%v: the summary does not open with the grounds:\n%.200s", args, stdout)
		}
		if slices.ContainsFunc(sum.Stages, func(r result) bool { return r.Stage == "report" }) &&
			(sum.Grounds == nil || sum.Grounds.Fidelity == nil || len(sum.Grounds.Recommendations) == 0) {
			t.Errorf("%v: a run with a report stage: grounds %+v, want its fidelity and recommendations", args, sum.Grounds)
		}
		return sum.Stages
	}
	first := runJSON("pipeline", "run", study, "--trace", tr, "-o", out)
	var names []string
	for _, r := range first {
		names = append(names, r.Stage)
		if r.Cached {
			t.Errorf("first run: %s cached", r.Stage)
		}
	}
	if strings.Join(names, ",") != "features-train,train-estimate,evaluate,report" {
		t.Errorf("stages %v", names)
	}
	for _, args := range [][]string{{"pipeline", "status", study, "--trace", tr, "-o", out}, {"pipeline", "run", study, "--trace", tr, "-o", out}} {
		for _, r := range runJSON(args...) {
			if !r.Cached {
				t.Errorf("%s: %s not cached", args[1], r.Stage)
			}
		}
	}
	berlin := filepath.Join(dir, "berlin.yaml")
	if err := os.WriteFile(berlin, []byte(strings.Replace(text, "America/Chicago", "Europe/Berlin", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"pipeline", "run", berlin, "--trace", tr, "-o", out},
		{"pipeline", "run", "nope", "--trace", tr, "-o", out},
		{"pipeline", "run", study, "-o", out},
	} {
		if _, stderr, code := run(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d: %s", args, code, exitUsage, stderr)
		}
	}
}

// TestPipeline_Damaged: after a stage's samples.parquet is truncated, or
// a model's manifest.json deleted, pipeline status reports that stage
// damaged (saying which file and why) and the others cached, exit 0;
// pipeline run redoes it, logging why, and says so on its line; then
// status is all cached again, with --verify too. On Linux a byte changed
// in place with its size and mtime kept is found by its ctime.
func TestPipeline_Damaged(t *testing.T) {
	dir := t.TempDir()
	tr := ingestSynth500(t, dir)
	study := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(study, []byte(tinyStudy), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	pipeline := func(args ...string) (stdout, stderr string) {
		t.Helper()
		stdout, stderr, code := run(t, append([]string{"pipeline", args[0], study, "--trace", tr, "-o", out, "--log-level", "warn"}, args[1:]...)...)
		if code != 0 {
			t.Fatalf("pipeline %v: exit %d: %s", args, code, stderr)
		}
		return stdout, stderr
	}
	lines := func(stdout string) map[string]string {
		m := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
			if !strings.Contains(l, string(filepath.Separator)+"stages"+string(filepath.Separator)) {
				continue // the report's verdict under the stages
			}
			if name, _, ok := strings.Cut(l, " "); ok {
				m[name] = l
			}
		}
		return m
	}
	pipeline("run")
	stageDir := func(name string) string {
		t.Helper()
		dirs, _ := filepath.Glob(filepath.Join(out, "stages", name+"-*"))
		if len(dirs) != 1 {
			t.Fatalf("stage %s: directories %v", name, dirs)
		}
		return dirs[0]
	}
	samples := filepath.Join(stageDir("features-train"), "samples.parquet")
	st, err := os.Stat(samples)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		stage, why string
		damage     func() error
	}{
		{"features-train", fmt.Sprintf("samples.parquet: size 100, want %d", st.Size()), func() error { return os.Truncate(samples, 100) }},
		{"train-estimate", "estimate/manifest.json: missing", func() error {
			return os.Remove(filepath.Join(stageDir("train-estimate"), "estimate", "manifest.json"))
		}},
	}
	if runtime.GOOS == "linux" {
		cases = append(cases, struct {
			stage, why string
			damage     func() error
		}{"evaluate", "metrics.json: sha256 ", func() error {
			time.Sleep(20 * time.Millisecond) // the ctime moves on a clock tick
			path := filepath.Join(stageDir("evaluate"), "metrics.json")
			st, err := os.Stat(path)
			if err != nil {
				return err
			}
			b := readFile(t, path)
			b[len(b)/2] ^= 1
			if err := os.WriteFile(path, b, 0o644); err != nil {
				return err
			}
			return os.Chtimes(path, st.ModTime(), st.ModTime())
		}})
	}
	for _, tc := range cases {
		if err := tc.damage(); err != nil {
			t.Fatal(err)
		}
		for _, verify := range [][]string{nil, {"--verify"}} {
			stdout, _ := pipeline(append([]string{"status"}, verify...)...)
			for name, l := range lines(stdout) {
				if want := "  (" + tc.why; name == tc.stage && (!strings.Contains(l, " damaged ") || !strings.Contains(l, want)) {
					t.Errorf("status %v after damage to %s: %q, want damaged and %q", verify, tc.stage, l, want)
				} else if name != tc.stage && !strings.Contains(l, " cached ") {
					t.Errorf("status %v after damage to %s: %q, want cached", verify, tc.stage, l)
				}
			}
		}
		stdout, stderr := pipeline("run")
		if l := lines(stdout)[tc.stage]; !strings.Contains(l, " ran ") || !strings.Contains(l, "(redone: "+tc.why) {
			t.Errorf("run after damage to %s: %q", tc.stage, l)
		}
		if want := tc.stage + ": " + tc.why; !strings.Contains(stderr, want) || !strings.Contains(stderr, ": redoing") {
			t.Errorf("run after damage to %s: log has no %q ... redoing:\n%s", tc.stage, want, stderr)
		}
		for _, verify := range [][]string{nil, {"--verify"}} {
			stdout, _ := pipeline(append([]string{"status"}, verify...)...)
			for _, l := range lines(stdout) {
				if !strings.Contains(l, " cached ") {
					t.Errorf("status %v after the redo of %s: %q", verify, tc.stage, l)
				}
			}
		}
	}
}

// TestPipeline_SlurmLineBreakPath: under --executor slurm an -o or
// --trace path holding a newline or a carriage return (which sbatch
// --output and the job's records cannot hold, and which once ended the
// batch script's comment) is a usage error naming the flag, before any
// work: no sbatch runs, no output directory, nothing the path holds runs.
func TestPipeline_SlurmLineBreakPath(t *testing.T) {
	dir := t.TempDir()
	study := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(study, []byte(tinyStudy), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	calls := filepath.Join(dir, "sbatch.calls")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "sbatch"), []byte("#!/bin/sh\necho \"$*\" >>'"+calls+"'\necho 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out := filepath.Join(dir, "out\ntouch PWNED #")
	tr := filepath.Join(dir, "t\r.parquet")
	for _, tt := range []struct {
		flag string
		args []string
	}{
		{"-o", []string{"-o", out}},
		{"--trace", []string{"--trace", tr, "-o", filepath.Join(dir, "o")}},
	} {
		args := append([]string{"pipeline", "run", study, "--executor", "slurm"}, tt.args...)
		if _, stderr, code := run(t, args...); code != exitUsage || !strings.Contains(stderr, tt.flag+" ") || !strings.Contains(stderr, "newline") {
			t.Errorf("%s with a line break: exit %d, want %d naming %s: %s", tt.flag, code, exitUsage, tt.flag, stderr)
		}
	}
	for _, p := range []string{out, filepath.Join(dir, "o"), calls, filepath.Join(dir, "PWNED"), "PWNED"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%q exists", p)
		}
	}
}
