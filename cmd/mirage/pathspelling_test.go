package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mirage-hpc/mirage/internal/testenv"
)

// spelling is one way to name the same files: a working directory and how
// the input file and an output directory are spelled from it.
type spelling struct {
	name  string
	wd    string              // the working directory
	in    string              // the input, as given
	out   func(string) string // a path under the output directory, as given
	outAt string              // the output directory itself (to read the results)
}

// spellings returns four spellings of one input (root/data/in.sacct,
// whose content is data/synth-500.sacct) and of four output directories
// root/NAME: relative, absolute, through a symbolic link, and with ./x/../x.
func spellings(t *testing.T) []spelling {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	data := filepath.Join(root, "data")
	os.MkdirAll(data, 0o755)
	if err := os.WriteFile(filepath.Join(data, "in.sacct"), readFile(t, filepath.Join(testenv.Root(), "data", "synth-500.sacct")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"rel", "abs", "real", "dots"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	if err := os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "link")); err != nil {
		t.Skipf("cannot make a symbolic link: %v", err)
	}
	if err := os.Symlink(data, filepath.Join(root, "datalink")); err != nil {
		t.Fatal(err)
	}
	return []spelling{
		{"Relative", filepath.Join(root, "rel"), "../data/in.sacct", func(p string) string { return p }, filepath.Join(root, "rel")},
		{"Absolute", root, filepath.Join(data, "in.sacct"), func(p string) string { return filepath.Join(root, "abs", p) }, filepath.Join(root, "abs")},
		{"Symlink", root, "datalink/in.sacct", func(p string) string { return filepath.Join("link", p) }, filepath.Join(root, "real")},
		{"DotDot", root, "./data/../data/in.sacct", func(p string) string { return "./dots/../dots/" + p }, filepath.Join(root, "dots")},
	}
}

// treeBytes returns every file under dir: relative path -> content.
func treeBytes(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = readFile(t, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOutputs_PathSpelling: ingest (the trace and its quarantine file),
// features build, analyze, sim starts and predict give byte-identical
// outputs whether the input and the outputs are named by a relative
// path, an absolute one, through a symbolic link or with ./x/../x: what
// identifies an input (its name and digest) is recorded, never its path.
func TestOutputs_PathSpelling(t *testing.T) {
	var first map[string][]byte
	var firstName string
	samples := filepath.Join(t.TempDir(), "samples.parquet")
	writeSamples(t, samples, []string{"a", "b"})
	model := filepath.Join(t.TempDir(), "model")
	if _, e, code := run(t, "train", "--model", "xgboost", "--rounds", "5", "--samples", samples, "-o", model, "--cv", "0"); code != 0 {
		t.Fatalf("train: exit %d: %s", code, e)
	}
	for _, sp := range spellings(t) {
		t.Run(sp.name, func(t *testing.T) {
			t.Chdir(sp.wd)
			m := model // the model directory, spelled as the outputs are
			if sp.name != "Absolute" {
				rel, err := filepath.Rel(sp.wd, model)
				if err != nil {
					t.Fatal(err)
				}
				m = rel
			}
			steps := [][]string{
				{"ingest", "--tz", "America/Chicago", "-o", sp.out("t.parquet"), sp.in},
				{"features", "build", "--trace", sp.out("t.parquet"), "--protocol", "mirage-ls6", "--start", "2022-10-31T00:00:00",
					"--windows", "2", "--interval", "1h", "--chain-nodes", "1,2", "--probes", "7", "-o", sp.out("f.parquet")},
				{"analyze", sp.out("t.parquet"), "--partition-nodes", "16", "-o", sp.out("analysis")},
				{"sim", "starts", "--trace", sp.out("t.parquet"), "--partition-nodes", "8", "--allow-skip", "-o", sp.out("starts")},
				{"predict", "--model", m, "--samples", samples, "-o", sp.out("p.parquet")},
			}
			for _, args := range steps {
				if _, stderr, code := run(t, args...); code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, stderr)
				}
			}
			got := treeBytes(t, sp.outAt)
			if first == nil {
				first, firstName = got, sp.name
				return
			}
			for _, name := range slices.Sorted(func(yield func(string) bool) {
				for k := range first {
					if !yield(k) {
						return
					}
				}
			}) {
				if !bytes.Equal(first[name], got[name]) {
					t.Errorf("%s differs from the %s spelling's", name, firstName)
				}
			}
			if len(got) != len(first) {
				t.Errorf("%d files, the %s spelling %d", len(got), firstName, len(first))
			}
		})
	}
}

// TestPipelineRun_PathSpelling: a small study run into two output
// directories, spelled differently (absolute, and relative through a
// symbolic link and ./x/../x), gives every stage the same key and the same
// outputs (their sha256 in meta.json): the trace names its input by its
// name and digest, and the evaluation names the trained models relative
// to the output directory.
func TestPipelineRun_PathSpelling(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: runs a pipeline twice")
	}
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	study := filepath.Join(root, "kill.yaml")
	if err := os.WriteFile(study, []byte(killStudy), 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "real", "sub"), 0o755)
	if err := os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "link")); err != nil {
		t.Skipf("cannot make a symbolic link: %v", err)
	}
	type result struct {
		stages map[string]stageJSON
		dir    string // what the stages' dirs are relative to
	}
	runAt := func(wd, out string) result {
		t.Helper()
		t.Chdir(wd)
		stdout, stderr, code := run(t, "pipeline", "run", study, "-o", out, "--workers", "2", "--json", "--log-level", "warn")
		if code != 0 {
			t.Fatalf("pipeline run -o %s: exit %d: %s", out, code, stderr)
		}
		res, err := decodeStages([]byte(stdout))
		if err != nil {
			t.Fatalf("pipeline run --json: %v\n%s", err, stdout)
		}
		m := map[string]stageJSON{}
		for _, r := range res {
			m[r.Name] = r
		}
		return result{m, wd}
	}
	a := runAt(root, filepath.Join(root, "abs"))
	b := runAt(filepath.Join(root, "link"), "./sub/../out")
	if len(a.stages) != len(b.stages) {
		t.Fatalf("stages %v and %v", a.stages, b.stages)
	}
	for name, sa := range a.stages {
		sb := b.stages[name]
		if sa.Key != sb.Key {
			t.Errorf("stage %s: key %s and %s", name, sa.Key, sb.Key)
			continue
		}
		da, db := sa.Dir, filepath.Join(b.dir, sb.Dir)
		if oa, ob := stageOutputs(t, da), stageOutputs(t, db); !slices.Equal(oa, ob) {
			t.Errorf("stage %s: outputs differ:\n%v\n%v", name, oa, ob)
		}
	}
}
