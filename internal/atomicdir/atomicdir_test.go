package atomicdir_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/mirage-hpc/mirage/internal/atomicdir"
	"github.com/mirage-hpc/mirage/internal/atomicfile"
)

func write(t *testing.T, d *atomicdir.Dir, files map[string]string) {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(d.File(name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func read(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		got[e.Name()] = string(b)
	}
	return got
}

// entries returns the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, _ := os.ReadDir(dir)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestDir_CommitReplaces(t *testing.T) {
	parent := t.TempDir()
	target := filepath.Join(parent, "model")
	for i, files := range []map[string]string{
		{"model.json": "1", "manifest.json": "m1", "cv.json": "cv1"},
		{"model.json": "2", "manifest.json": "m2"}, // cv.json must not survive
	} {
		d, err := atomicdir.Create(target, "*")
		if err != nil {
			t.Fatal(err)
		}
		write(t, d, files)
		if err := d.Commit(); err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
		if got := read(t, target); len(got) != len(files) || got["model.json"] != files["model.json"] || got["cv.json"] != files["cv.json"] {
			t.Errorf("commit %d: %v, want %v", i, got, files)
		}
	}
	if names := entries(t, parent); len(names) != 1 {
		t.Errorf("parent holds %q, want only model", names)
	}
}

// TestDir_Abort: a failed run leaves the previous directory as it was and
// nothing else.
func TestDir_Abort(t *testing.T) {
	parent := t.TempDir()
	target := filepath.Join(parent, "eval")
	d, _ := atomicdir.Create(target, "*")
	write(t, d, map[string]string{"metrics.json": "old", "windows.csv": "old"})
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	d, err := atomicdir.Create(target, "*")
	if err != nil {
		t.Fatal(err)
	}
	write(t, d, map[string]string{"metrics.json": "new"}) // crash before windows.csv
	d.Abort()
	if got := read(t, target); got["metrics.json"] != "old" || got["windows.csv"] != "old" {
		t.Errorf("after abort: %v, want the old pair", got)
	}
	if names := entries(t, parent); len(names) != 1 {
		t.Errorf("parent holds %q, want only eval", names)
	}
}

func TestDir_Locked(t *testing.T) {
	target := filepath.Join(t.TempDir(), "m")
	d, err := atomicdir.Create(target, "*")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Abort()
	if _, err := atomicdir.Create(target, "*"); !errors.Is(err, atomicfile.ErrLocked) {
		t.Errorf("second writer: %v, want ErrLocked", err)
	}
}

// TestDir_KilledRun simulates runs killed by SIGKILL: one before Commit
// (its temporary directory and lock are left), one between Commit's two
// renames (the target is missing, the previous directory set aside). The
// next Create restores the previous directory and removes the rest.
func TestDir_KilledRun(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	dead := strconv.Itoa(cmd.Process.Pid)
	parent := t.TempDir()
	target := filepath.Join(parent, "model")
	for _, p := range []string{".model.tmp-" + dead + "-1", ".model.old-" + dead} {
		if err := os.MkdirAll(filepath.Join(parent, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(parent, ".model.tmp-"+dead+"-1", "model.json"), []byte("half"), 0o644)
	os.WriteFile(filepath.Join(parent, ".model.old-"+dead, "model.json"), []byte("previous"), 0o644)
	os.WriteFile(atomicfile.LockPath(target), []byte(dead+"\n"), 0o644)
	d, err := atomicdir.Create(target, "*")
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, target); got["model.json"] != "previous" {
		t.Errorf("target after recovery: %v, want the previous directory back", got)
	}
	d.Abort()
	names := entries(t, parent)
	if len(names) != 1 || names[0] != "model" {
		t.Errorf("parent holds %q, want only model", names)
	}
}

// TestCreate_ErrForeign: a target holding files the writer does not own
// is refused, not replaced.
func TestCreate_ErrForeign(t *testing.T) {
	target := filepath.Join(t.TempDir(), "out")
	os.MkdirAll(target, 0o755)
	os.WriteFile(filepath.Join(target, "metrics.json"), []byte("m"), 0o644)
	os.WriteFile(filepath.Join(target, "notes.txt"), []byte("mine"), 0o644)
	if _, err := atomicdir.Create(target, "metrics.json", "windows.csv"); !errors.Is(err, atomicdir.ErrForeign) {
		t.Fatalf("got %v, want ErrForeign", err)
	}
	if b, _ := os.ReadFile(filepath.Join(target, "notes.txt")); string(b) != "mine" {
		t.Error("the user's file was touched")
	}
	os.Remove(filepath.Join(target, "notes.txt"))
	d, err := atomicdir.Create(target, "metrics.json", "windows.csv")
	if err != nil {
		t.Fatal(err)
	}
	d.Abort()
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	if _, err := atomicdir.Create(file, "*"); !errors.Is(err, atomicdir.ErrForeign) {
		t.Errorf("a file as target: %v, want ErrForeign", err)
	}
}
