package pipelines_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/pipelines"
)

// TestLoad_KeysAndLines checks that a YAML study's errors name the key
// as the file spells it and its line, with a did-you-mean, never the Go
// type.
func TestLoad_KeysAndLines(t *testing.T) {
	_, text, err := pipelines.Builtin("synth")
	if err != nil {
		t.Fatal(err)
	}
	synth := string(text)
	lineOf := func(s, sub string) string {
		i := strings.Index(s, sub)
		if i < 0 {
			t.Fatalf("synth study lacks %q", sub)
		}
		return "line " + strconv.Itoa(strings.Count(s[:i], "\n")+1)
	}
	for _, tt := range []struct {
		name, old, new string
		want           []string
	}{
		{"NestedKey", "    windows: 300", "    windws: 300",
			[]string{lineOf(synth, "    windows: 300"), "unknown key periods.train.windws", "did you mean windows?", "known there: start, stride, windows"}},
		{"TopKey", "sweep: true", "swep: true", []string{lineOf(synth, "sweep: true"), "unknown key swep", "did you mean sweep?"}},
		{"ModelKey", "{kind: forest}", "{knd: forest}", []string{lineOf(synth, "{kind: forest}"), "unknown key models[1].knd", "did you mean kind?"}},
		{"Duration", "    stride: 6h", "    stride: 6hours", []string{lineOf(synth, "    stride: 6h"), "periods.train.stride", `"6hours"`}},
		{"WarmupDuration", "warmup: 48h", "warmup: two days", []string{lineOf(synth, "warmup: 48h"), "periods.warmup", "two days"}},
		{"Kind", "{kind: forest}", "{kind: forrest}", []string{lineOf(synth, "{kind: forest}"), "models[1].kind", "did you mean forest?"}},
		{"Policy", "policies: [reactive, immediate, avg, slurm-estimate, oracle, oracle-cost]", "policies:\n  - reactive\n  - oracle-cots",
			[]string{lineOf(synth, "policies:") + ":", "oracle-cots", "did you mean oracle-cost?"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := strings.Replace(synth, tt.old, tt.new, 1)
			if data == synth {
				t.Fatalf("synth study lacks %q", tt.old)
			}
			_, err := pipelines.Load("my.yaml", []byte(data))
			if !errors.Is(err, pipelines.ErrStudy) {
				t.Fatalf("Load = %v, want ErrStudy", err)
			}
			msg := err.Error()
			if tt.name == "Policy" { // the element's line, one below the key's
				tt.want[0] = "line " + strconv.Itoa(strings.Count(synth[:strings.Index(synth, "policies:")], "\n")+3) + ":"
			}
			for _, w := range append(tt.want, "my.yaml") {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if strings.Contains(msg, "pipelines.") || strings.Contains(msg, "not found in type") {
				t.Errorf("error %q names a Go type", msg)
			}
		})
	}
}
