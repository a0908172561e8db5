//go:build cgo && !noxgboost

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/modeltest"
)

// kindDirs are model directories of every kind, trained with the CLI on
// the small synthetic trace of runtimeModel.
type kindDirs struct {
	tr, samples string
	dirs        map[string]string // by kind name: forest, ..., forecast
}

// kindNames are the model kinds a user can train, in table order.
var kindNames = []string{"forest", "xgboost", "estimate", "estimate-rt", "dqn", "runtime", "forecast"}

func trainKinds(t *testing.T) kindDirs {
	t.Helper()
	dir := t.TempDir()
	tr, rt := runtimeModel(t, dir)
	k := kindDirs{tr: tr, samples: filepath.Join(dir, "samples.parquet"), dirs: map[string]string{"runtime": rt}}
	buildSamples(t, tr, k.samples)
	hyper := filepath.Join(dir, "hyper.json")
	if err := os.WriteFile(hyper, []byte(`{"hidden": [8], "stats_episodes": 1, "valid_share": 0, "seed": 7}`), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := map[string][]string{
		"forest":      {"train", "--model", "forest", "--samples", k.samples, "--cv", "0", "--trees", "3", "--threads", "1"},
		"xgboost":     {"train", "--model", "xgboost", "--samples", k.samples, "--cv", "0", "--rounds", "3", "--threads", "1"},
		"estimate":    {"train", "--model", "estimate", "--samples", k.samples},
		"estimate-rt": {"train", "--model", "estimate-rt", "--samples", k.samples},
		"dqn": append([]string{"train", "--model", "dqn", "--trace", tr, "--episodes", "2", "--dqn-config", hyper,
			"--chain-nodes", "1"}, protocolArgs...),
		"forecast": append([]string{"train", "--model", "forecast", "--trace", tr, "--runtime-model", rt, "--stride", "3",
			"--rollouts", "2", "--workers", "1"}, protocolArgs...),
	}
	for _, kind := range kindNames[:len(kindNames)-2] {
		k.dirs[kind] = filepath.Join(dir, kind)
	}
	k.dirs["forecast"] = filepath.Join(dir, "forecast")
	for _, kind := range kindNames {
		args, ok := steps[kind]
		if !ok {
			continue
		}
		if _, stderr, code := run(t, append(args, "-o", k.dirs[kind])...); code != 0 {
			t.Fatalf("train %s: exit %d: %s", kind, code, stderr)
		}
	}
	return k
}

// kindLoader is a command that loads a model directory, with the kinds it
// takes.
type kindLoader struct {
	name  string
	takes []string
	// run runs the command on dir and returns its stderr and exit status.
	run func(t *testing.T, k kindDirs, dir string) (string, int)
}

func kindLoaders() []kindLoader {
	cli := func(args func(k kindDirs, dir, out string) []string) func(t *testing.T, k kindDirs, dir string) (string, int) {
		return func(t *testing.T, k kindDirs, dir string) (string, int) {
			_, stderr, code := run(t, args(k, dir, filepath.Join(t.TempDir(), "out"))...)
			return stderr, code
		}
	}
	evaluate := func(policy string, takes ...string) kindLoader {
		return kindLoader{name: "evaluate --policy " + policy + ":DIR", takes: takes, run: cli(func(k kindDirs, dir, out string) []string {
			return append(append([]string{"evaluate", "--trace", k.tr, "--policy", "reactive," + policy + ":" + dir, "--workers", "1", "-o", out},
				protocolArgs...), "--windows", "1", "--chain-nodes", "1")
		})}
	}
	return []kindLoader{
		{name: "predict --model DIR", takes: []string{"forest", "xgboost"}, run: cli(func(k kindDirs, dir, out string) []string {
			return []string{"predict", "--model", dir, "--samples", k.samples, "-o", out + ".parquet"}
		})},
		{name: "advise --model DIR", takes: []string{"forest", "xgboost", "estimate", "estimate-rt", "dqn"}, run: adviseOn},
		evaluate("forest", "forest", "xgboost"),
		evaluate("xgboost", "forest", "xgboost"),
		evaluate("slurm-estimate", "estimate", "estimate-rt"),
		evaluate("dqn", "dqn"),
		evaluate("forecast", "forecast", "runtime"),
		evaluate("runtime-estimate", "forecast", "runtime"),
		{name: "features build --runtime-model DIR", takes: []string{"runtime", "forecast"}, run: cli(func(k kindDirs, dir, out string) []string {
			return append([]string{"features", "build", "--trace", k.tr, "--runtime-model", dir, "--chain-nodes", "1", "--probes", "2", "-o", out + ".parquet"},
				append(protocolArgs, "--windows", "1")...)
		})},
		{name: "train --model forecast --runtime-model DIR", takes: []string{"runtime"}, run: cli(func(k kindDirs, dir, out string) []string {
			return append([]string{"train", "--model", "forecast", "--trace", k.tr, "--runtime-model", dir, "--stride", "3", "--rollouts", "1",
				"--workers", "1", "-o", out}, append(protocolArgs, "--windows", "1")...)
		})},
		{name: "sim starts --runtime-model DIR", takes: []string{"runtime"}, run: cli(func(k kindDirs, dir, out string) []string {
			return []string{"sim", "starts", "--trace", k.tr, "--runtime-model", dir, "--from", "2022-11-20", "--to", "2022-11-21",
				"--allow-skip", "-o", out}
		})},
	}
}

// adviseOn decides once for a job of a captured live queue with the
// model in dir.
func adviseOn(t *testing.T, _ kindDirs, dir string) (string, int) {
	sq, err := os.ReadFile("../../advise/testdata/squeue-22.05.8-b.json")
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	g := &globalOptions{stdout: &out, stderr: &errb}
	err = runAdvise(context.Background(), g, adviseOptions{Model: dir, Job: "275", JSON: true}, &fakeSlurm{squeue: sq}, captureAt)
	if err == nil && !json.Valid(bytes.TrimSpace(out.Bytes())) {
		return fmt.Sprintf("advise printed %q", out.String()), 1
	}
	if err != nil {
		return err.Error(), exitCode(err)
	}
	return "", 0
}

// TestModelKinds_Loaders runs every command that loads a model directory
// on a directory of every kind: none panics; each works (exit 0) on the
// kinds it takes and refuses the others with exit status 2 and a message
// naming the commands that take that kind.
func TestModelKinds_Loaders(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: trains a model of every kind")
	}
	k := trainKinds(t)
	for _, l := range kindLoaders() {
		for _, kind := range kindNames {
			t.Run(l.name+"/"+kind, func(t *testing.T) {
				dir := k.dirs[kind]
				stderr, code := l.run(t, k, dir)
				if slices.Contains(l.takes, kind) {
					if code != 0 {
						t.Fatalf("exit %d, want 0: %s", code, stderr)
					}
					return
				}
				mk, target := kind, ""
				if kind == "estimate-rt" {
					mk, target = train.KindEstimate, "estimate-rt"
				}
				uses := strings.ReplaceAll(train.KindUses(mk, target), "DIR", dir)
				if code != exitBadInput || !strings.Contains(stderr, fmt.Sprintf("kind %q is for %s", mk, uses)) {
					t.Errorf("exit %d, want %d naming what kind %s is for (%s): %s", code, exitBadInput, mk, uses, stderr)
				}
			})
		}
	}
	t.Run("Tampered", func(t *testing.T) { tamperEveryFile(t, k) })
}

// tamperEveryFile flips one byte in each file of each trained model
// directory (and edits the operating point of a manifest) and checks that
// the command loading it refuses it with exit status 2 naming the file.
func tamperEveryFile(t *testing.T, k kindDirs) {
	loaders := map[string]kindLoader{}
	for _, l := range kindLoaders() {
		loaders[l.name] = l
	}
	loaderOf := map[string]string{
		"forest": "predict --model DIR", "xgboost": "predict --model DIR", "estimate": "evaluate --policy slurm-estimate:DIR",
		"estimate-rt": "advise --model DIR", "dqn": "evaluate --policy dqn:DIR",
		"runtime": "sim starts --runtime-model DIR", "forecast": "evaluate --policy forecast:DIR",
	}
	for _, kind := range kindNames {
		ents, err := os.ReadDir(k.dirs[kind])
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		for _, e := range ents {
			files = append(files, e.Name())
		}
		if kind == "dqn" || kind == "runtime" {
			if len(files) < 3 {
				t.Fatalf("%s: only %v", kind, files)
			}
		}
		for _, file := range append(files, "operating-point") {
			t.Run(kind+"/"+file, func(t *testing.T) {
				d := filepath.Join(t.TempDir(), kind)
				copyFiles(t, k.dirs[kind], d)
				name := file
				if file == "operating-point" {
					name = train.ManifestFile
					if kind == "forecast" {
						name = train.ForecastFile
					}
					editThreshold(t, filepath.Join(d, name))
				} else {
					p := filepath.Join(d, file)
					b, _ := os.ReadFile(p)
					b[len(b)/2] ^= 1
					if err := os.WriteFile(p, b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				stderr, code := loaders[loaderOf[kind]].run(t, k, d)
				if code != exitBadInput || !strings.Contains(stderr, name) {
					t.Errorf("%s with %s changed: exit %d, want %d naming %s: %s", loaderOf[kind], file, code, exitBadInput, name, stderr)
				}
			})
		}
	}
}

// editThreshold changes the default threshold of the manifest's
// operating point (a forecast's τ), as a hand edit would, leaving the
// manifest's seal as it was.
func editThreshold(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	op, _ := m["operating_point"].(map[string]any)
	if op == nil {
		op, _ = m["forecast"].(map[string]any)
	}
	if op == nil {
		t.Skipf("%s has no operating point (trained without validation)", path)
	}
	op["default"].(map[string]any)["threshold"] = 0.123
	if b, err = json.MarshalIndent(m, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyFiles(t *testing.T, from, to string) {
	t.Helper()
	modeltest.CopyDir(t, from, to)
}
