package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/pipelines"
	"github.com/mirage-hpc/mirage/trace"
)

// wantExit runs args and fails unless the exit status is code and stderr
// holds every want.
func wantExit(t *testing.T, code int, want []string, args ...string) string {
	t.Helper()
	_, stderr, got := run(t, args...)
	if got != code {
		t.Errorf("mirage %s: exit %d, want %d; stderr:\n%s", strings.Join(args, " "), got, code, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("mirage %s: stderr %q lacks %q", strings.Join(args, " "), stderr, w)
		}
	}
	return stderr
}

// TestInputs_NotATrace checks that a file that is no Parquet given as a
// trace is bad input (exit 2) naming mirage ingest, and that ingest of a
// Parquet file says it is one instead of quoting its bytes.
func TestInputs_NotATrace(t *testing.T) {
	dir, in := writeSample(t)
	wantExit(t, exitBadInput, []string{"not a Parquet file", "mirage ingest -o in.parquet " + in}, "trace", "stats", in)
	tr := filepath.Join(dir, "t.parquet")
	if _, stderr, code := run(t, "ingest", "-o", tr, in); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	stderr := wantExit(t, exitBadInput, []string{"already a Parquet file"}, "ingest", "-o", filepath.Join(dir, "u.parquet"), tr)
	if strings.Contains(stderr, `\x`) || strings.Contains(stderr, "PAR1\\") {
		t.Errorf("ingest of a Parquet file quotes its bytes: %q", stderr)
	}
}

// TestExitCode_TraceFit checks that a study refusal caused by the
// trace's data (its jobs wider than the study's cluster) is bad input,
// exit 2, where other study errors are usage, exit 3.
func TestExitCode_TraceFit(t *testing.T) {
	s, _, err := pipelines.Builtin("synth")
	if err != nil {
		t.Fatal(err)
	}
	s.Cluster.Nodes = 4
	t0 := time.Date(2022, 11, 1, 0, 0, 0, 0, time.UTC)
	var jobs []trace.Job
	for i := range 100 {
		sub := t0.Add(time.Duration(i) * time.Hour)
		jobs = append(jobs, trace.Job{JobID: strconv.Itoa(i + 1), JobIDRaw: int64(i + 1), User: "u", State: trace.StateCompleted,
			Submit: sub, Start: sub, End: sub.Add(30 * time.Minute), TimelimitSec: 48 * 3600, NNodes: 16, NCPUs: 16})
	}
	err = s.CheckFit(jobs)
	if !errors.Is(err, pipelines.ErrTraceFit) || !errors.Is(err, pipelines.ErrStudy) {
		t.Fatalf("CheckFit of jobs wider than the cluster = %v, want ErrTraceFit and ErrStudy", err)
	}
	if got := exitCode(err); got != exitBadInput {
		t.Errorf("%v: exit %d, want %d", err, got, exitBadInput)
	}
	if got := exitCode(fmt.Errorf("wrapped: %w", pipelines.ErrStudy)); got != exitUsage {
		t.Errorf("ErrStudy: exit %d, want %d", got, exitUsage)
	}
}

// TestStudyShow_Checks checks that study show refuses unknown kinds,
// policies and keys and bad durations, naming the key and line.
func TestStudyShow_Checks(t *testing.T) {
	_, text, err := pipelines.Builtin("synth")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		name, old, new string
		want           []string
	}{
		{"Kind", "{kind: forest}", "{kind: forrest}", []string{"models[1].kind", `"forrest"`, "did you mean forest?", ": line "}},
		{"Policy", "oracle-cost]", "oracle-cots]", []string{"policies", "did you mean oracle-cost?", ": line "}},
		{"Key", "    windows: 300", "    windws: 300", []string{"unknown key periods.train.windws", "did you mean windows?", ": line 28:"}},
		{"Duration", "    stride: 6h", "    stride: 6hours", []string{"periods.train.stride", `"6hours"`, ": line 29:"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name+".yaml")
			data := strings.Replace(string(text), tt.old, tt.new, 1)
			if data == string(text) {
				t.Fatalf("the synth study lacks %q", tt.old)
			}
			if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			stderr := wantExit(t, exitUsage, tt.want, "study", "show", path)
			if strings.Contains(stderr, "pipelines.") {
				t.Errorf("names a Go type: %s", stderr)
			}
		})
	}
}

// TestBadValues checks that bad values fail instead of passing silently,
// and that a bad config-file value is named as its key.
func TestBadValues(t *testing.T) {
	dir, in := writeSample(t)
	out := filepath.Join(dir, "o.parquet")
	wantExit(t, exitUsage, []string{"--windows -5"}, "features", "build", "--study", "synth", "--trace", in, "--windows", "-5", "-o", out)
	wantExit(t, exitUsage, []string{"--workers -2"}, "features", "build", "--study", "synth", "--trace", in, "--workers", "-2", "-o", out)
	cfg := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	c1 := cfg("c1.yaml", "ingest:\n  tzz: UTC\n")
	wantExit(t, exitUsage, []string{"unknown key ingest.tzz", "did you mean tz?", c1}, "--config", c1, "ingest", "-o", out, in)
	c2 := cfg("c2.yaml", "featurse:\n  windows: 3\n")
	wantExit(t, exitUsage, []string{"no section featurse", "did you mean features?"}, "--config", c2, "trace", "stats", in)
	c3 := cfg("c3.yaml", "ingest:\n  tz: Mars/Olympus\n")
	stderr := wantExit(t, exitUsage, []string{"ingest.tz (config " + c3 + ") \"Mars/Olympus\""}, "--config", c3, "ingest", "-o", out, in)
	if strings.Contains(stderr, "--tz") {
		t.Errorf("a zone from the config file is blamed on --tz: %s", stderr)
	}
	wantExit(t, exitUsage, []string{`--tz "Mars/Venus"`}, "--config", c3, "ingest", "--tz", "Mars/Venus", "-o", out, in)
	// Old key names of renamed flags are still settings.
	c4 := cfg("c4.yaml", "sim:\n  nodes: 4\n")
	if _, stderr, code := run(t, "--config", c4, "ingest", "-o", out, in); code != 0 {
		t.Errorf("a renamed key (sim.nodes) is refused: exit %d: %s", code, stderr)
	}
}

// TestMessages checks the messages that used to mislead.
func TestMessages(t *testing.T) {
	stderr := wantExit(t, exitUsage, []string{"did you mean forest?"}, "train", "--model", "forrest", "--samples", "x", "-o", "y")
	for _, k := range []string{"forest", "xgboost", "estimate", "estimate-rt", "dqn", "runtime", "forecast", "fixed-lead"} {
		if !strings.Contains(stderr, " "+k+",") && !strings.Contains(stderr, " "+k+" or") && !strings.Contains(stderr, "or "+k+";") {
			t.Errorf("train --model forrest does not list %s: %s", k, stderr)
		}
	}
	dir := t.TempDir()
	model := filepath.Join(dir, "xgb")
	if err := os.Mkdir(model, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(model, "manifest.json"), []byte(`{"kind": "xgboost"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr = wantExit(t, exitUsage, []string{"model directory of kind xgboost", "mirage evaluate", "--policy reactive,xgboost:" + model, "mirage report"}, "report", model)
	if strings.Contains(stderr, "mirage evaluate -o "+model) {
		t.Errorf("report on a model directory suggests overwriting it: %s", stderr)
	}
}

// TestMessages_CVFolds checks that samples with fewer windows than --cv
// folds name --cv (exit 3).
func TestMessages_CVFolds(t *testing.T) {
	dir := t.TempDir()
	in, tr, s := filepath.Join(dir, "s.sacct"), filepath.Join(dir, "t.parquet"), filepath.Join(dir, "s.parquet")
	for _, args := range [][]string{
		{"synth", "--jobs", "800", "--partition-nodes", "16", "--seed", "3", "-o", in},
		{"ingest", "--tz", "America/Chicago", "-o", tr, in},
		append([]string{"features", "build", "--trace", tr, "--chain-nodes", "1", "--probes", "5", "-o", s}, protocolArgs...),
	} {
		if _, stderr, code := run(t, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", args[0], code, stderr)
		}
	}
	wantExit(t, exitUsage, []string{"3 windows for 5 folds", "--cv 5 now", "--cv 0 for none"}, "train", "--model", "forest", "--samples", s, "-o", filepath.Join(dir, "m"))
}

// TestProgress_Terminal checks the live line: elapsed time and ETA, and a
// log line written through liveWriter starting on a cleared line, the
// status drawn again after it.
func TestProgress_Terminal(t *testing.T) {
	var b bytes.Buffer
	lw := &liveWriter{w: &b}
	p := &progressBar{w: &b, live: lw, on: true, term: true, began: time.Now().Add(-10 * time.Second)}
	lw.attach(p)
	p.setCount(20, 100, "features %d/%d windows", 20, 100)
	if _, err := lw.Write([]byte("time=x level=INFO msg=\"features built\"\n")); err != nil {
		t.Fatal(err)
	}
	p.finish()
	if _, err := lw.Write([]byte("after\n")); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	want := regexp.MustCompile(`^\r\x1b\[Kfeatures 20/100 windows \(10s elapsed, ETA 40s\)\r\x1b\[Ktime=x level=INFO msg="features built"\n\r\x1b\[Kfeatures 20/100 windows \(10s elapsed, ETA 40s\)\r\x1b\[Kafter\n$`)
	if !want.MatchString(out) {
		t.Errorf("terminal output %q", out)
	}
	if strings.Contains(out, "windowstime=") {
		t.Errorf("a log line glued to the status: %q", out)
	}
}

// TestProgress_Stages checks pipeline run's status line: each running
// stage with its count, and an ETA once it has advanced.
func TestProgress_Stages(t *testing.T) {
	var b bytes.Buffer
	p := &progressBar{w: &b, on: true, term: true, began: time.Now()}
	f := stagesProgress(p)
	f("features-train", "windows", 1, 300)
	f("features-train", "windows", 2, 300)
	f("train-forest", "CV folds", 1, 3)
	p.finish()
	out := b.String()
	for _, w := range []string{"features-train 1/300 windows", "features-train 2/300 windows, ETA ", "features-train 2/300 windows, ETA 0s; train-forest 1/3 CV folds"} {
		if !strings.Contains(out, w) {
			t.Errorf("status %q lacks %q", out, w)
		}
	}
}

// TestEvaluateTable checks evaluate's table: plain headers, and long
// model paths shortened (listed in full below) so that the table is not
// as wide as they are.
func TestEvaluateTable(t *testing.T) {
	long := "xgboost:/very/long/path/to/a/pipeline/output/stages/train-xgboost-r-0123456789abcdef/xgboost-r"
	policies := []string{"reactive", "oracle-cost", long}
	m := evaluate.Metrics{ChainNodes: []int{1}, Policies: map[string]evaluate.PolicyMetrics{}}
	for _, p := range policies {
		var cm evaluate.ChainMetrics
		cm.Windows, cm.MeanInterruptionH = 60, 1.25
		m.Policies[p] = evaluate.PolicyMetrics{ByChain: map[string]evaluate.ChainMetrics{"1": cm}}
	}
	var b bytes.Buffer
	printEvaluateTables(&b, policies, m)
	out := b.String()
	for _, bad := range []string{"mean_i_h", "reduct ", "waste_nh", "ovl_h", "vs_ocost"} {
		if strings.Contains(out, bad) {
			t.Errorf("table has the cryptic header %q:\n%s", bad, out)
		}
	}
	for _, w := range []string{"interruption h", "mean (h)", "reduction", "overlap", "wasted", "node-h", "windows with", "policies in full:", "= " + long} {
		if !strings.Contains(out, w) {
			t.Errorf("table lacks %q:\n%s", w, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "  ") && strings.Contains(line, " = ") {
			continue // the legend
		}
		if n := utf8.RuneCountInString(line); n > 128 {
			t.Errorf("a %d-column line, as wide as the model path:\n%s", n, line)
		}
	}
}
