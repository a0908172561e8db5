package atomicfile_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/internal/atomicfile"
)

// deadPID returns the PID of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	return cmd.Process.Pid
}

// TestRemoveStale simulates a killed run: its temporary file (named with
// its PID, now dead) and its lock file are left behind. The next writer
// takes the lock over and removes the temporary; a live writer's
// temporary, other files and young legacy temporaries stay.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.parquet")
	dead := deadPID(t)
	killed := filepath.Join(dir, ".out.parquet.tmp-"+strconv.Itoa(dead)+"-123")
	live := filepath.Join(dir, ".out.parquet.tmp-"+strconv.Itoa(os.Getppid())+"-456")
	legacyOld := filepath.Join(dir, ".out.parquet-789.tmp")
	legacyNew := filepath.Join(dir, ".out.parquet.tmp4242")
	other := filepath.Join(dir, ".other.parquet.tmp-"+strconv.Itoa(dead)+"-1")
	killedRun := filepath.Join(dir, "."+filepath.Base(killed)+".run0-9.tmp") // the external sort's
	liveRun := filepath.Join(dir, "."+filepath.Base(live)+".run0-8.tmp")
	for _, p := range []string{killed, live, legacyOld, legacyNew, other, killedRun, liveRun} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * atomicfile.LegacyAge)
	os.Chtimes(legacyOld, old, old)
	if err := os.WriteFile(atomicfile.LockPath(out), []byte(strconv.Itoa(dead)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lock, err := atomicfile.TryLock(out)
	if err != nil {
		t.Fatalf("TryLock over a dead holder's lock: %v", err)
	}
	defer lock.Unlock()
	removed, err := atomicfile.RemoveStale(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 3 {
		t.Errorf("removed %q, want the killed run's temporary and sort run, and the old legacy temporary", removed)
	}
	for p, want := range map[string]bool{killed: false, killedRun: false, legacyOld: false, live: true, liveRun: true, legacyNew: true, other: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}

// TestTryLock: a second writer of one output gets a *LockedError naming
// the holder's PID; after Unlock the output can be locked again.
func TestTryLock(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.parquet")
	l1, err := atomicfile.TryLock(out)
	if err != nil {
		t.Fatal(err)
	}
	_, err = atomicfile.TryLock(out)
	var le *atomicfile.LockedError
	if !errors.Is(err, atomicfile.ErrLocked) || !errors.As(err, &le) || le.PID != os.Getpid() {
		t.Fatalf("second lock: %v, want a *LockedError held by %d", err, os.Getpid())
	}
	t.Log(err)
	l1.Unlock()
	l1.Unlock()
	l2, err := atomicfile.TryLock(out)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	l2.Unlock()
	if _, err := os.Stat(atomicfile.LockPath(out)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left: %v", err)
	}
}

func TestCreateTemp_Name(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m.json")
	f, err := atomicfile.CreateTemp(out)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	want := ".m.json.tmp-" + strconv.Itoa(os.Getpid()) + "-"
	if b := filepath.Base(f.Name()); len(b) <= len(want) || b[:len(want)] != want {
		t.Errorf("temporary %s, want prefix %s", b, want)
	}
	if removed, _ := atomicfile.RemoveStale(out); len(removed) != 0 {
		t.Errorf("removed this process's temporary: %q", removed)
	}
}

// TestCreateTemp_RemovesDead: every writer of a path removes what killed
// writers of it left, before creating its own temporary: temporary files
// and directories named with a dead PID, and the files named after such
// a temporary (the external sort's runs of a trace written to one,
// ..NAME.tmp-PID-R.runN-R.tmp). A live process's temporaries and runs,
// other outputs' temporaries and the legacy patterns (whose writer no
// name tells: RemoveStale, under the lock) stay.
func TestCreateTemp_RemovesDead(t *testing.T) {
	for _, mk := range []struct {
		name string
		make func(path string) (string, error)
	}{
		{"CreateTemp", func(p string) (string, error) {
			f, err := atomicfile.CreateTemp(p)
			if err != nil {
				return "", err
			}
			f.Close()
			return f.Name(), nil
		}},
		{"MkdirTemp", atomicfile.MkdirTemp},
		{"Write", func(p string) (string, error) { return p, atomicfile.WriteFile(p, []byte("new")) }},
	} {
		t.Run(mk.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.parquet")
			dead, live := strconv.Itoa(deadPID(t)), strconv.Itoa(os.Getppid())
			deadTemp := ".out.parquet.tmp-" + dead + "-11"
			liveTemp := ".out.parquet.tmp-" + live + "-22"
			names := map[string]bool{ // name: kept
				deadTemp:                                        false,
				"." + deadTemp + ".run0-33.tmp":                 false,
				"." + deadTemp + ".run12-44.tmp":                false,
				".out.parquet.tmp-" + dead + "-dir":             false,
				liveTemp:                                        true,
				"." + liveTemp + ".run0-55.tmp":                 true,
				".other.parquet.tmp-" + dead + "-1":             true,
				"..other.parquet.tmp-" + dead + "-1.run0-2.tmp": true,
				".out.parquet.tmp4242":                          true,
				".out.parquet-789.tmp":                          true,
				"out.parquet.run0-1.tmp":                        true,
			}
			for n := range names {
				p := filepath.Join(dir, n)
				if strings.HasSuffix(n, "-dir") {
					if err := os.MkdirAll(filepath.Join(p, "sub"), 0o755); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			old := time.Now().Add(-2 * atomicfile.LegacyAge)
			os.Chtimes(filepath.Join(dir, ".out.parquet.tmp4242"), old, old)
			created, err := mk.make(out)
			if err != nil {
				t.Fatal(err)
			}
			for n, kept := range names {
				if _, err := os.Stat(filepath.Join(dir, n)); (err == nil) != kept {
					t.Errorf("%s: exists %v, want %v", n, err == nil, kept)
				}
			}
			if _, err := os.Stat(created); err != nil {
				t.Errorf("its own temporary: %v", err)
			}
		})
	}
}
