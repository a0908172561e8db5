// Package golden compares test output with golden files in testdata and
// rewrites them when tests run with -update.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files with the current output")

// Update reports whether tests run with -update.
func Update() bool { return *update }

// Check compares got with the golden file at path (relative to the test's
// package directory). With -update it writes got to path instead.
func Check(tb testing.TB, path string, got []byte) {
	tb.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("read golden file (run go test -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		tb.Errorf("output differs from %s (run go test -update to accept):\n%s", path, diff(want, got))
	}
}

// diff returns the first differing lines of want and got.
func diff(want, got []byte) string {
	wl, gl := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	var b bytes.Buffer
	shown := 0
	for i := 0; i < max(len(wl), len(gl)) && shown < 10; i++ {
		var w, g []byte
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if !bytes.Equal(w, g) {
			shown++
			b.WriteString("line ")
			b.WriteString(itoa(i + 1))
			b.WriteString(":\n  want: ")
			b.Write(w)
			b.WriteString("\n  got:  ")
			b.Write(g)
			b.WriteString("\n")
		}
	}
	return b.String()
}

func itoa(n int) string {
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(buf[i:])
		}
	}
}
