package main

import (
	"bytes"
	"regexp"
	"testing"
	"time"
)

func TestParseProgress(t *testing.T) {
	for in, want := range map[string]string{"always": "always", "AUTO": "auto", "never": "never", "true": "auto", "false": "never", "": "auto"} {
		if got, err := parseProgress(in); err != nil || got != want {
			t.Errorf("parseProgress(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := parseProgress("sometimes"); err == nil {
		t.Error("parseProgress(sometimes): no error")
	}
}

// TestProgressBar_NotATerminal checks that a stage not on a terminal
// prints its latest status as plain lines every interval, in auto mode
// without --json and in always mode with it, and nothing otherwise.
func TestProgressBar_NotATerminal(t *testing.T) {
	for _, tt := range []struct {
		mode  string
		json  bool
		lines bool
	}{{"auto", false, true}, {"auto", true, false}, {"always", true, true}, {"never", false, false}} {
		var b bytes.Buffer
		p := newProgressBarEvery(&b, tt.mode, tt.json, 20*time.Millisecond)
		p.set("features %d/%d windows", 3, 10)
		time.Sleep(110 * time.Millisecond)
		p.finish()
		p.finish() // a second finish does nothing
		out := b.String()
		line := regexp.MustCompile(`^features 3/10 windows \([0-9.]+m?s elapsed\)\n`)
		if tt.lines && (!line.MatchString(out) || bytes.Count(b.Bytes(), []byte("\n")) < 2) {
			t.Errorf("%s (json %v): %q, want a line every 20ms", tt.mode, tt.json, out)
		}
		if !tt.lines && out != "" {
			t.Errorf("%s (json %v): %q, want nothing", tt.mode, tt.json, out)
		}
		if bytes.Contains(b.Bytes(), []byte("\r")) {
			t.Errorf("%s: terminal control characters in %q", tt.mode, out)
		}
	}
}
