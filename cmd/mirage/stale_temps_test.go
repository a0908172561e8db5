package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/internal/testenv"
)

// staleTemps are the temporaries planted beside one output: those of a
// killed run (a dead PID), to be removed, and those of a live process, to
// be kept.
type staleTemps struct {
	dead, live []string
}

// plant creates, beside out, the temporaries a killed writer and a live
// one leave: .NAME.tmp-PID-R (a directory when dirs, else a file), and
// with runs the external sort's run files named after the temporary
// (..NAME.tmp-PID-R.runN-R.tmp).
func plant(t *testing.T, out string, dirs, runs bool) staleTemps {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	dead, live := strconv.Itoa(cmd.Process.Pid), strconv.Itoa(os.Getppid())
	dir, base := filepath.Dir(out), filepath.Base(out)
	var st staleTemps
	for _, pid := range []string{dead, live} {
		tmp := filepath.Join(dir, "."+base+".tmp-"+pid+"-123")
		paths := []string{tmp}
		if dirs {
			if err := os.MkdirAll(tmp, 0o755); err != nil {
				t.Fatal(err)
			}
			tmp = filepath.Join(tmp, "partial")
		}
		if err := os.WriteFile(tmp, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
		if runs {
			for _, r := range []string{".run0-456.tmp", ".run7-789.tmp"} {
				p := filepath.Join(dir, "."+filepath.Base(paths[0])+r)
				if err := os.WriteFile(p, []byte("run"), 0o644); err != nil {
					t.Fatal(err)
				}
				paths = append(paths, p)
			}
		}
		if pid == dead {
			st.dead = append(st.dead, paths...)
		} else {
			st.live = append(st.live, paths...)
		}
	}
	return st
}

// check fails t unless the dead temporaries are gone and the live ones
// are still there.
func (st staleTemps) check(t *testing.T, what string) {
	t.Helper()
	for _, p := range st.dead {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s: a killed run's %s survives (%v)", what, filepath.Base(p), err)
		}
	}
	for _, p := range st.live {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s: a live process's %s was removed: %v", what, filepath.Base(p), err)
		}
	}
}

// TestCommands_RemoveStaleTemporaries: the next run of each writer
// (ingest with its quarantine file and the external sort's run files,
// synth, features build, analyze, evaluate, report, study init, sim
// starts, train, predict) removes the temporaries that a killed run of
// the same output left (named with a dead PID) and keeps those of a live
// process.
func TestCommands_RemoveStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	mustRun := func(args ...string) {
		t.Helper()
		if _, stderr, code := run(t, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", strings.Join(args[:2], " "), code, stderr)
		}
	}
	tr := filepath.Join(dir, "t.parquet")
	{
		st := plant(t, tr, false, true)
		q := plant(t, filepath.Join(dir, "t.quarantine.jsonl"), false, false)
		mustRun("ingest", "--tz", "America/Chicago", "--row-group-rows", "64", "-o", tr, filepath.Join(testenv.Root(), "data", "synth-500.sacct"))
		st.check(t, "ingest")
		q.check(t, "ingest (quarantine)")
	}
	steps := []struct {
		name string
		out  string
		dirs bool
		args []string
	}{
		{"synth", "s.sacct", false, []string{"synth", "--jobs", "3000", "--partition-nodes", "8", "-o"}},
		{"ingest of synth", "s.parquet", false, []string{"ingest", filepath.Join(dir, "s.sacct"), "-o"}}, // months, for study init
		{"features build", "f.parquet", false, []string{"features", "build", "--trace", tr, "--protocol", "mirage-ls6",
			"--start", "2022-10-31T00:00:00", "--windows", "1", "--interval", "1h", "--chain-nodes", "1", "--probes", "3", "-o"}},
		{"analyze", "analysis", true, []string{"analyze", tr, "--no-figures", "--replay-max-jobs", "-1", "-o"}},
		{"evaluate", "eval", true, []string{"evaluate", "--trace", tr, "--protocol", "mirage-ls6-val",
			"--start", "2022-10-31T00:00:00", "--windows", "1", "--interval", "1h", "--chain-nodes", "1", "--policy", "reactive,oracle", "-o"}},
		{"report", "report", true, []string{"report", filepath.Join(dir, "eval"), "-o"}},
		{"study init", "s.yaml", false, []string{"study", "init", "--trace", filepath.Join(dir, "s.parquet"), "-o"}},
		{"sim starts", filepath.Join("starts", "starts.json"), false, []string{"sim", "starts", "--trace", tr, "--partition-nodes", "8", "--allow-skip", "-o"}},
	}
	os.MkdirAll(filepath.Join(dir, "starts"), 0o755)
	for _, s := range steps {
		out := filepath.Join(dir, s.out)
		st := plant(t, out, s.dirs, false)
		if s.name == "sim starts" {
			out = filepath.Dir(out)
		}
		mustRun(append(s.args, out)...)
		st.check(t, s.name)
	}
	samples := filepath.Join(dir, "samples.parquet")
	writeSamples(t, samples, []string{"a", "b"})
	model := filepath.Join(dir, "model")
	st := plant(t, model, true, false)
	mustRun("train", "--model", "xgboost", "--rounds", "5", "--samples", samples, "-o", model, "--cv", "0")
	st.check(t, "train")
	pred := filepath.Join(dir, "p.parquet")
	st = plant(t, pred, false, false)
	mustRun("predict", "--model", model, "--samples", samples, "-o", pred)
	st.check(t, "predict")
}
