package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/internal/atomicfile"
)

// TestIngest_ConcurrentWriter: while another live process writes the
// same output (it holds the lock file), ingest fails at once with a
// message naming the holder and the lock file, and replaces nothing.
func TestIngest_ConcurrentWriter(t *testing.T) {
	dir, in := writeSample(t)
	out := filepath.Join(dir, "out.parquet")
	lock, err := atomicfile.TryLock(out)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	_, stderr, code := run(t, "ingest", "-o", out, in)
	want := "is being written by another process: process " + strconv.Itoa(os.Getpid()) + " holds " + filepath.Join(dir, ".out.parquet.lock")
	if code != exitFailure || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitFailure, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output written: %v", err)
	}
}
