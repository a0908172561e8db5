package main

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"testing"

	"github.com/mirage-hpc/mirage/internal/testenv"
)

// TestTraceStats_LS6Unchanged checks that `trace stats` on the LS6 trace
// prints, in JSON and in text, byte for byte what it printed when the
// statistics kept every wait and run time (commit 62cfcd8; the
// statistics now keep distinct values, trace/stats_sample.go): the
// SHA-256 of each output then.
func TestTraceStats_LS6Unchanged(t *testing.T) {
	ls6 := testenv.LS6(t)
	out := filepath.Join(t.TempDir(), "ls6.parquet")
	if _, stderr, code := run(t, "ingest", "--tz", "America/Chicago", "--cluster", "ls6", "-o", out, ls6); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"JSON", []string{"trace", "stats", out, "--json"}, "f7607142c744be87bf90e8200e4f1d9d0a955840f1a85928598c21ed895b69e0"},
		{"Text", []string{"trace", "stats", out}, "1975fe53c5bfc3f313e9c9b3d4c7f083e697b4ccf08a8ad01941dc48879d80f6"},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := run(t, c.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			sum := sha256.Sum256([]byte(stdout))
			if got := hex.EncodeToString(sum[:]); got != c.want {
				t.Errorf("trace stats output has sha256 %s, want %s (the output before):\n%s", got, c.want, stdout)
			}
		})
	}
}
