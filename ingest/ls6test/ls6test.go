// Package ls6test gives tests and benchmarks the real LS6 A100 trace
// (../shared/traces/ls6-a100.log) ingested as the CLI does it
// (America/Chicago, cluster ls6). Callers are skipped with testenv's
// message when ../shared is absent.
package ls6test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/internal/testenv"
	"github.com/mirage-hpc/mirage/trace"
)

// Parquet ingests the LS6 trace into a Parquet file under dir and returns
// its path (~0.1 s).
func Parquet(tb testing.TB, dir string) string {
	tb.Helper()
	path := testenv.LS6(tb)
	loc, err := time.LoadLocation("America/Chicago")
	if err != nil {
		tb.Fatal(err)
	}
	out := filepath.Join(dir, "ls6.parquet")
	if _, err := ingest.Run(context.Background(), []string{path}, out, ingest.Options{Location: loc, Cluster: "ls6"}); err != nil {
		tb.Fatal(err)
	}
	return out
}

// Jobs ingests the LS6 trace into tb's temporary directory and reads it
// back.
func Jobs(tb testing.TB) []trace.Job {
	tb.Helper()
	jobs, err := trace.ReadAll(Parquet(tb, tb.TempDir()))
	if err != nil {
		tb.Fatal(err)
	}
	return jobs
}
