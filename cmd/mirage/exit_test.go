package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/dqn"
)

// TestExit_Usage: an unknown command and a bad flag are usage errors
// (exit 3), printed as JSON when the command line asks for --json, even
// though the configuration was never resolved.
func TestExit_Usage(t *testing.T) {
	tests := []struct {
		Name string
		Args []string
		JSON bool
		Msg  string
	}{
		{"UnknownCommand", []string{"bogus"}, false, `unknown command "bogus" for "mirage"`},
		{"Suggestion", []string{"ingst"}, false, "did you mean ingest?"},
		{"UnknownCommandJSON", []string{"--json", "bogus"}, true, `unknown command \"bogus\"`},
		{"BadFlagJSONAfter", []string{"ingest", "--bogus", "--json"}, true, "unknown flag: --bogus"},
		{"BadFlagJSONBefore", []string{"ingest", "--json", "--bogus"}, true, "unknown flag: --bogus"},
		{"BadFlagValueJSON", []string{"ingest", "--row-group-rows", "x", "--json=true"}, true, "--row-group-rows"},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			_, stderr, code := run(t, tt.Args...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d; stderr %s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, tt.Msg) {
				t.Errorf("stderr %q lacks %q", stderr, tt.Msg)
			}
			var e struct {
				Error    string `json:"error"`
				ExitCode int    `json:"exit_code"`
			}
			err := json.Unmarshal([]byte(stderr), &e)
			if tt.JSON && (err != nil || e.ExitCode != exitUsage) {
				t.Errorf("stderr is not the JSON error: %q (%v)", stderr, err)
			}
			if !tt.JSON && err == nil {
				t.Errorf("stderr is JSON without --json: %q", stderr)
			}
		})
	}
}

func TestJSONRequested(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	for _, c := range []struct {
		args []string
		env  string
		want bool
	}{
		{[]string{"ingest", "--json"}, "", true},
		{[]string{"ingest", "--json=false"}, "", false},
		{[]string{"ingest", "--", "--json"}, "", false},
		{[]string{"ingest"}, "true", true},
		{[]string{"ingest"}, "", false},
	} {
		if got := jsonRequested(c.args, env(c.env)); got != c.want {
			t.Errorf("jsonRequested(%q, MIRAGE_JSON=%q) = %v, want %v", c.args, c.env, got, c.want)
		}
	}
}

// TestExit_TruncatedCompressed: a gzip input cut short exits 2 and says so.
func TestExit_TruncatedCompressed(t *testing.T) {
	dir := t.TempDir()
	var body strings.Builder
	body.WriteString("JobID|JobName|User|Partition|State|ExitCode|Submit|Start|End|TimelimitRaw|NNodes\n")
	for i := range 5000 {
		body.WriteString(strings.Replace(strings.Split(sample, "\n")[1], "1|a|", strconv.Itoa(i+1)+"|a|", 1) + "\n")
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(body.String()))
	zw.Close()
	in := filepath.Join(dir, "cut.sacct.gz")
	if err := os.WriteFile(in, gz.Bytes()[:gz.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := run(t, "ingest", "-o", filepath.Join(dir, "o.parquet"), in)
	if code != exitBadInput || !strings.Contains(stderr, "truncated compressed input") {
		t.Errorf("exit %d, stderr %q; want %d and \"truncated compressed input\"", code, stderr, exitBadInput)
	}
}

// writeDQN writes a small DQN model directory and returns it.
func writeDQN(t *testing.T) string {
	t.Helper()
	fs := features.Schema()
	net, err := dqn.NewMLP([]int{len(fs), 4, dqn.NumActions}, 1)
	if err != nil {
		t.Fatal(err)
	}
	m := &dqn.Manifest{Features: fs, FeatureSchemaVersion: features.FeatureSchemaVersion, Standardisation: dqn.NewStats(nil, len(fs))}
	dir := filepath.Join(t.TempDir(), "dqn")
	if err := dqn.WriteArtifact(dir, net, nil, m); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestExit_DQNModelErrors: DQN model errors exit 2, as XGBoost ones do,
// and predict on a DQN directory says how DQN models are evaluated.
func TestExit_DQNModelErrors(t *testing.T) {
	dir := writeDQN(t)
	m, err := dqn.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := features.Names()
	names[2], names[3] = names[3], names[2]
	if err := m.Check(names, features.FeatureSchemaVersion); exitCode(err) != exitBadInput || !strings.Contains(err.Error(), names[2]) {
		t.Errorf("reordered features: exit %d for %v, want %d naming %s", exitCode(err), err, exitBadInput, names[2])
	}
	if err := m.Check(features.Names(), features.FeatureSchemaVersion+1); exitCode(err) != exitBadInput {
		t.Errorf("schema version: exit %d for %v, want %d", exitCode(err), err, exitBadInput)
	}
	w := filepath.Join(dir, dqn.WeightsFile)
	b, _ := os.ReadFile(w)
	b[len(b)-1] ^= 1
	os.WriteFile(w, b, 0o644)
	if _, err := dqn.Open(dir); exitCode(err) != exitBadInput {
		t.Errorf("digest: exit %d for %v, want %d", exitCode(err), err, exitBadInput)
	}

	dir = writeDQN(t)
	_, stderr, code := run(t, "predict", "--model", dir, "--samples", "s.parquet", "-o", filepath.Join(t.TempDir(), "p.parquet"))
	if code != exitBadInput || !strings.Contains(stderr, "evaluate --policy dqn:"+dir) {
		t.Errorf("predict on a DQN directory: exit %d, stderr %q; want %d and evaluate --policy dqn:DIR", code, stderr, exitBadInput)
	}
}

// TestExit_StageSentinels: the stages' usage sentinels are exit 3
// however deep they are wrapped, and a policy list error keeps its
// cause's code.
func TestExit_StageSentinels(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want int
	}{
		{"ErrPolicy", fmt.Errorf("window 0: %w: x given twice", evaluate.ErrPolicy), exitUsage},
		{"ErrOptions", fmt.Errorf("evaluate: %w: zone", features.ErrOptions), exitUsage},
		{"PolicyListError", &evaluate.PolicyListError{Err: fmt.Errorf("%w: bogus", evaluate.ErrPolicy)}, exitUsage},
		{"PolicyListErrorModel", &evaluate.PolicyListError{Err: errors.New("open model")}, exitFailure},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := exitCode(tt.err); got != tt.want {
				t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}

// TestExitCode_TrainSentinels: a bad device, cuda without CUDA and a bad
// DQN hyper-parameter document are usage errors; a model directory that
// fails to open is bad input even when its cause is a bad device name.
func TestExitCode_TrainSentinels(t *testing.T) {
	tests := []struct {
		Name string
		Err  error
		Want int
	}{
		{"Device", fmt.Errorf("device %q: %w", "gpu", train.ErrDevice), exitUsage},
		{"NoCUDA", fmt.Errorf("device cuda: %w", train.ErrNoCUDA), exitUsage},
		{"DQNConfig", fmt.Errorf("train --dqn-config x.json: %w", &dqn.ConfigError{Err: errors.New("json: unknown field")}), exitUsage},
		{"BadModelDevice", fmt.Errorf("open model m: %w: %w", train.ErrBadModel, train.ErrDevice), exitBadInput},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			if got := exitCode(tt.Err); got != tt.Want {
				t.Errorf("exitCode(%v) = %d, want %d", tt.Err, got, tt.Want)
			}
		})
	}
}
