// Package testenv locates shared test inputs, such as the real LS6 trace in
// ../shared, and skips tests with a clear message when they are absent.
package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Root returns the repository root (the directory holding go.mod).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Shared returns the path of rel inside ../shared (beside the repository
// root, or $MIRAGE_SHARED), skipping tb when it does not exist.
func Shared(tb testing.TB, rel string) string {
	tb.Helper()
	base := os.Getenv("MIRAGE_SHARED")
	if base == "" {
		base = filepath.Join(Root(), "..", "shared")
	}
	p := filepath.Join(base, rel)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("skipping: %s not found (this test needs ../shared beside the repository, or MIRAGE_SHARED): %v", rel, err)
	}
	return p
}

// LS6 returns the path of the real LS6 A100 trace, skipping tb without it.
func LS6(tb testing.TB) string { return Shared(tb, "traces/ls6-a100.log") }
