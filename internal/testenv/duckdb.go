package testenv

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// DuckDB runs queries with DuckDB (scripts/duckdb.sh, its Node package
// from the cache scripts/duckdb.sh installs into: $MIRAGE_DUCKDB_DIR, or
// mirage-duckdb in the user's cache directory; tests never download it)
// and returns each query's answer, one JSON line each. Without the
// package it skips tb, or fails it when MIRAGE_DUCKDB_REQUIRED=1 (make
// check-parquet), so that a missing DuckDB cannot pass silently.
func DuckDB(tb testing.TB, queries ...string) []string {
	tb.Helper()
	skip := tb.Skipf
	if os.Getenv("MIRAGE_DUCKDB_REQUIRED") == "1" {
		skip = tb.Fatalf
	}
	cache := os.Getenv("MIRAGE_DUCKDB_DIR")
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			skip("DuckDB check skipped: no cache directory")
		}
		cache = filepath.Join(dir, "mirage-duckdb")
	}
	if _, err := os.Stat(filepath.Join(cache, "node_modules", "@duckdb", "node-api")); err != nil {
		skip("DuckDB check skipped: run scripts/duckdb.sh once to install it (%v)", err)
	}
	if len(queries) == 0 {
		return nil
	}
	cmd := exec.Command(filepath.Join(Root(), "scripts", "duckdb.sh"), queries...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("DuckDB: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(queries) {
		tb.Fatalf("DuckDB answered %d queries of %d:\n%s", len(lines), len(queries), out)
	}
	return lines
}
