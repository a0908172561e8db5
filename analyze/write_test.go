package analyze_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/mirage-hpc/mirage/analyze"
	"github.com/mirage-hpc/mirage/internal/atomicfile"
)

// dirFiles returns every file under dir (relative name: content).
func dirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWrite_FailureMidwayKeepsPrevious: a run that fails after writing
// some of its tables (the hook injects the error) leaves the previous
// analysis directory exactly as it was (no new table beside the old
// analysis.html) and nothing beside it; the rerun succeeds.
func TestWrite_FailureMidwayKeepsPrevious(t *testing.T) {
	path := writeHandTrace(t)
	root := t.TempDir()
	dir := filepath.Join(root, "analysis")
	o := handOptions()
	if _, err := analyze.Run(context.Background(), path, dir, o); err != nil {
		t.Fatal(err)
	}
	before := dirFiles(t, dir)
	if _, ok := before[analyze.Page]; !ok {
		t.Fatalf("first run wrote no %s: %v", analyze.Page, slices.Sorted(maps.Keys(before)))
	}
	// The second run differs (no figures, another capacity) and fails
	// once half of its tables are written.
	boom := errors.New("injected failure")
	written := 0
	restore := analyze.SetBeforeFile(func(name string) error {
		if written++; written > 7 {
			return boom
		}
		return nil
	})
	o2 := handOptions()
	o2.Nodes, o2.Figures = 8, false
	_, err := analyze.Run(context.Background(), path, dir, o2)
	restore()
	if !errors.Is(err, boom) {
		t.Fatalf("second run: %v, want the injected failure", err)
	}
	if after := dirFiles(t, dir); !maps.Equal(before, after) {
		t.Errorf("the failed run changed %s: %d files before, %d after", dir, len(before), len(after))
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("left beside the output: %v", names)
	}
	if _, err := analyze.Run(context.Background(), path, dir, o2); err != nil {
		t.Fatalf("rerun: %v", err)
	}
	after := dirFiles(t, dir)
	if _, ok := after[analyze.Page]; ok {
		t.Errorf("the rerun without figures kept the old %s", analyze.Page)
	}
}

// TestWrite_StaleTemporaries: the temporary directory of a killed run
// (named with its dead PID) and its lock are removed by the next run; a
// live writer's temporary of the same output is kept.
func TestWrite_StaleTemporaries(t *testing.T) {
	path := writeHandTrace(t)
	root := t.TempDir()
	dir := filepath.Join(root, "analysis")
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	dead := strconv.Itoa(cmd.Process.Pid)
	killed := filepath.Join(root, ".analysis.tmp-"+dead+"-1")
	killedFile := filepath.Join(root, ".analysis.tmp-"+dead+"-2")
	live := filepath.Join(root, ".analysis.tmp-"+strconv.Itoa(os.Getppid())+"-3")
	for _, d := range []string{killed, live} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, analyze.TableMonths), []byte("partial"), 0o644)
	}
	os.WriteFile(killedFile, []byte("x"), 0o644)
	os.WriteFile(atomicfile.LockPath(dir), []byte(dead+"\n"), 0o644)
	o := handOptions()
	o.Figures = false
	if _, err := analyze.Run(context.Background(), path, dir, o); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{killed: false, killedFile: false, live: true, atomicfile.LockPath(dir): false} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}

// TestWrite_ForeignDirectory: a directory holding files analyze does
// not write is refused, untouched.
func TestWrite_ForeignDirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	o := handOptions()
	o.Figures = false
	if _, err := analyze.Run(context.Background(), writeHandTrace(t), dir, o); err == nil {
		t.Fatal("replaced a directory holding notes.txt")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "mine" {
		t.Errorf("notes.txt: %q", b)
	}
}
