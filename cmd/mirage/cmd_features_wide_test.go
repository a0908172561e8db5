package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mirage-hpc/mirage/features"
)

// TestFeaturesBuild_Wide checks features build --wide: the wide columns
// after the others, which stay as without it, and the protocol recorded
// with wide only when it is on.
func TestFeaturesBuild_Wide(t *testing.T) {
	dir := t.TempDir()
	in, tr := filepath.Join(dir, "s.sacct"), filepath.Join(dir, "t.parquet")
	for _, args := range [][]string{
		{"synth", "--jobs", "1500", "--partition-nodes", "16", "--seed", "3", "-o", in},
		{"ingest", "--tz", "America/Chicago", "-o", tr, in},
	} {
		if _, stderr, code := run(t, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", strings.Join(args[:2], " "), code, stderr)
		}
	}
	base, bm := buildSamples(t, tr, filepath.Join(dir, "base.parquet"))
	wide, wm := buildSamples(t, tr, filepath.Join(dir, "wide.parquet"), "--wide")
	if d := cmp.Diff(append(features.Names(), features.WideNames()...), wide.Names); d != "" {
		t.Fatalf("names with --wide (-want +got):\n%s", d)
	}
	if d := cmp.Diff(base.Features, wide.Features[:features.NumFeatures()]); d != "" {
		t.Errorf("--wide changes the other columns:\n%s", d)
	}
	if strings.Contains(string(bm.Options), `"wide"`) || !strings.Contains(string(wm.Options), `"wide":true`) {
		t.Errorf("protocol records: without %s, with %s", bm.Options, wm.Options)
	}
	if !features.HasWide(wm.Features) || features.HasWide(bm.Features) {
		t.Errorf("metadata features: with --wide %v", wm.Features[len(wm.Features)-1])
	}
}
