package ingest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/internal/atomicfile"
)

// TestRun_Locked: a run whose output another live process is writing
// fails with atomicfile.ErrLocked (naming the holder) and touches
// neither the output nor its quarantine file.
func TestRun_Locked(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.txt", []byte(hardHeader+hardRow("1", "a")))
	out := filepath.Join(dir, "o.parquet")
	if _, err := ingest.Run(context.Background(), []string{in}, out, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(out)
	lock, err := atomicfile.TryLock(out) // the other writer
	if err != nil {
		t.Fatal(err)
	}
	in2 := writeFile(t, dir, "in2.txt", []byte(hardHeader+hardRow("2", "b")))
	_, err = ingest.Run(context.Background(), []string{in2}, out, ingest.Options{})
	var le *atomicfile.LockedError
	if !errors.Is(err, atomicfile.ErrLocked) || !errors.As(err, &le) || le.PID != os.Getpid() {
		t.Fatalf("got %v, want ErrLocked held by %d", err, os.Getpid())
	}
	if after, _ := os.ReadFile(out); string(after) != string(before) {
		t.Error("the output changed")
	}
	lock.Unlock()
	// A separate quarantine file is locked too.
	q := filepath.Join(dir, "q.jsonl")
	ql, err := atomicfile.TryLock(q)
	if err != nil {
		t.Fatal(err)
	}
	defer ql.Unlock()
	if _, err := ingest.Run(context.Background(), []string{in2}, filepath.Join(dir, "p.parquet"), ingest.Options{Quarantine: q}); !errors.Is(err, atomicfile.ErrLocked) {
		t.Errorf("locked quarantine file: %v, want ErrLocked", err)
	}
}

// TestRun_RemovesKilledRunTemporaries simulates a run killed with SIGKILL
// mid-way: its temporary trace and quarantine files (named with its PID,
// now dead) and its lock file are left. The next run of the same output
// takes the lock over, removes them and leaves only its outputs.
func TestRun_RemovesKilledRunTemporaries(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	dead := strconv.Itoa(cmd.Process.Pid)
	dir := t.TempDir()
	in := writeFile(t, dir, "in.txt", []byte(hardHeader+hardRow("1", "a")))
	out := filepath.Join(dir, "o.parquet")
	writeFile(t, dir, ".o.parquet.tmp-"+dead+"-1234", make([]byte, 1<<20))
	writeFile(t, dir, ".o.quarantine.jsonl.tmp-"+dead+"-99", []byte("{}\n"))
	writeFile(t, dir, ".o.parquet.lock", []byte(dead+"\n"))
	if _, err := ingest.Run(context.Background(), []string{in}, out, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"in.txt", "o.parquet", "o.quarantine.jsonl"}; !slices.Equal(names, want) {
		t.Errorf("directory holds %q, want %q", names, want)
	}
}
