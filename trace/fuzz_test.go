package trace_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/trace"
)

// FuzzReadAll checks that any file given as a trace (a truncated copy, a
// flipped byte, another program's Parquet) is read or refused with an
// error: never a panic, and never an allocation sized by a row count
// that the file's footer claims but its bytes cannot hold.
func FuzzReadAll(f *testing.F) {
	dir := f.TempDir()
	seed := filepath.Join(dir, "seed.parquet")
	// Two jobs in one row group: a small seed keeps each execution (a
	// whole Parquet open and read) short.
	writeJobs(f, seed, trace.WriterOptions{}, []trace.Job{fullJob(), startUnknownJob()})
	b, err := os.ReadFile(seed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	path := filepath.Join(dir, "t.parquet") // one per fuzzing process
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		jobs, err := trace.ReadAll(path)
		if err == nil && int64(len(jobs)) > int64(len(data)) {
			t.Fatalf("%d jobs from %d bytes", len(jobs), len(data))
		}
	})
}

// TestOpen_Damaged: the file FuzzReadAll found (a page index the Parquet
// library indexes past its end, and panics on) is an error wrapping
// ErrDamaged, which the CLI reports as bad input (exit 2).
func TestOpen_Damaged(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzReadAll", "8dbd6bc68cd0a8ab"))
	if err != nil {
		t.Fatal(err)
	}
	_, lit, ok := strings.Cut(strings.TrimSpace(string(b)), "[]byte(")
	data, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
	if !ok || err != nil {
		t.Fatalf("corpus file: %v", err)
	}
	path := filepath.Join(t.TempDir(), "t.parquet")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := trace.ReadAll(path); !errors.Is(err, trace.ErrDamaged) || !strings.Contains(err.Error(), path) {
		t.Fatalf("ReadAll = %v, want ErrDamaged naming the file", err)
	}
}
