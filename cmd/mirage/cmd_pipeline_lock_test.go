package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPipelineRun_Concurrent: two mirage processes started at once run
// pipeline run of one study into one output directory. In each of three
// trials exactly one succeeds; the other fails at once with the lock
// error (exit 1, naming OUT/.pipeline.lock and the holder's PID); every
// stage's meta.json lists exactly the files the stage wrote (never
// meta.json or a temporary), each of its sha256 and size; no lock file
// is left; and a rerun finds every stage cached.
func TestPipelineRun_Concurrent(t *testing.T) {
	bin := mirageBinary(t)
	dir := t.TempDir()
	study := filepath.Join(dir, "kill.yaml")
	if err := os.WriteFile(study, []byte(killStudy), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"pipeline", "run", study, "-o", "out", "--workers", "1", "--json", "--log-level", "warn"}
	type proc struct {
		cmd            *exec.Cmd
		stdout, stderr bytes.Buffer
	}
	for trial := range 3 {
		wd := filepath.Join(dir, "trial"+string(rune('0'+trial)))
		if err := os.MkdirAll(wd, 0o755); err != nil {
			t.Fatal(err)
		}
		var ps [2]proc
		for i := range ps {
			p := &ps[i]
			p.cmd = exec.Command(bin, args...)
			p.cmd.Dir, p.cmd.Stdout, p.cmd.Stderr = wd, &p.stdout, &p.stderr
		}
		for i := range ps {
			if err := ps[i].cmd.Start(); err != nil {
				t.Fatal(err)
			}
		}
		var codes [2]int
		for i := range ps {
			err := ps[i].cmd.Wait()
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				codes[i] = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
		}
		ok, locked := 0, 1
		if codes[0] != exitOK {
			ok, locked = 1, 0
		}
		if codes[ok] != exitOK || codes[locked] != exitFailure {
			t.Fatalf("trial %d: exit statuses %v, want one %d and one %d (the lock error)\nstderr 0: %s\nstderr 1: %s",
				trial, codes, exitOK, exitFailure, &ps[0].stderr, &ps[1].stderr)
		}
		var lockErr struct {
			Error    string `json:"error"`
			ExitCode int    `json:"exit_code"`
		}
		if err := json.Unmarshal(ps[locked].stderr.Bytes(), &lockErr); err != nil {
			t.Fatalf("trial %d: the second run's stderr is not one JSON error: %v\n%s", trial, err, &ps[locked].stderr)
		}
		want := "pipeline: out: output is being written by another process: process "
		if !strings.HasPrefix(lockErr.Error, want) || !strings.Contains(lockErr.Error, " holds "+filepath.Join("out", ".pipeline.lock")) ||
			lockErr.ExitCode != exitFailure || ps[locked].stdout.Len() != 0 {
			t.Errorf("trial %d: second run: %+v, stdout %q; want %q ... holds out/.pipeline.lock", trial, lockErr, &ps[locked].stdout, want)
		}
		res, err := decodeStages(ps[ok].stdout.Bytes())
		if err != nil || len(res) == 0 {
			t.Fatalf("trial %d: the run that succeeded: %v\n%s", trial, err, &ps[ok].stdout)
		}
		for _, r := range res {
			if r.Cached {
				t.Errorf("trial %d: %s cached in a fresh directory", trial, r.Name)
			}
			checkStageMeta(t, filepath.Join(wd, r.Dir))
		}
		locks, _ := filepath.Glob(filepath.Join(wd, "out", ".*.lock"))
		stageLocks, _ := filepath.Glob(filepath.Join(wd, "out", "stages", ".*.lock"))
		if locks = append(locks, stageLocks...); len(locks) > 0 {
			t.Errorf("trial %d: lock files left: %v", trial, locks)
		}
		if trial == 0 {
			again := exec.Command(bin, args...)
			again.Dir = wd
			b, err := again.Output()
			if err != nil {
				t.Fatalf("rerun: %v", err)
			}
			res, err := decodeStages(b)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res {
				if !r.Cached {
					t.Errorf("rerun: %s not cached", r.Name)
				}
			}
		}
	}
}

// checkStageMeta checks a finished stage directory's meta.json: its
// outputs_sha256 and outputs_bytes list exactly the files of the
// directory other than meta.json and dot-files (temporaries, locks,
// fingerprints), each of the sha256 and size listed.
func checkStageMeta(t *testing.T, dir string) {
	t.Helper()
	var m struct {
		Outputs map[string]string `json:"outputs_sha256"`
		Sizes   map[string]int64  `json:"outputs_bytes"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "meta.json")), &m); err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() || rel == "meta.json" {
			return nil
		}
		rel = filepath.ToSlash(rel)
		files = append(files, rel)
		b := readFile(t, path)
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); m.Outputs[rel] != got || m.Sizes[rel] != int64(len(b)) {
			t.Errorf("%s: %s: sha256 %s, %d bytes; meta.json lists %s, %d", dir, rel, got, len(b), m.Outputs[rel], m.Sizes[rel])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var listed, sized []string
	for k := range m.Outputs {
		listed = append(listed, k)
	}
	for k := range m.Sizes {
		sized = append(sized, k)
	}
	slices.Sort(files)
	slices.Sort(listed)
	slices.Sort(sized)
	if !slices.Equal(listed, files) || !slices.Equal(sized, files) {
		t.Errorf("%s: meta.json lists %v (sizes %v), the stage wrote %v", dir, listed, sized, files)
	}
}
