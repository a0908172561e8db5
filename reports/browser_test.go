package reports

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mirage-hpc/mirage/internal/browsercheck"
)

// TestRender_Browser opens a small report in headless Chromium: no console
// errors, every figure loads and the page is taller than the screen
// (summary, tables and figures rendered). Skipped without Chromium.
func TestRender_Browser(t *testing.T) {
	bin, err := browsercheck.Find()
	if err != nil {
		t.Skipf("skipping: %v (make check-report installs it)", err)
	}
	dir := writeEval(t)
	out := filepath.Join(t.TempDir(), "report")
	rep, err := Render(context.Background(), dir, out, Options{Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	res, err := browsercheck.Check(context.Background(), rep.HTML, t.TempDir(), browsercheck.Options{Chromium: bin})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil {
		t.Error(err)
	}
	if res.Images != len(rep.Figures) || res.HeightPx < 1600 || len(res.Screenshots) < 2 {
		t.Errorf("%d images (want %d), %d px tall, %d screenshots", res.Images, len(rep.Figures), res.HeightPx, len(res.Screenshots))
	}
}

// TestRender_BrowserLayout lays a report out in headless Chromium: the
// recommendation is on the first screen (its heading ends within 900 px
// of the top at 1400 and 800 px wide) above the study's facts, and no
// table reaches past the window's right edge at 1400, 800 or 480 px
// (wide tables scroll in their own box). Skipped without Chromium.
func TestRender_BrowserLayout(t *testing.T) {
	bin, err := browsercheck.Find()
	if err != nil {
		t.Skipf("skipping: %v (make check-report installs it)", err)
	}
	dir := writeEval(t)
	out := filepath.Join(t.TempDir(), "report")
	rep, err := Render(context.Background(), dir, out, Options{Resamples: 200, Version: "v0-test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{1400, 800, 480} {
		l, err := browsercheck.Measure(context.Background(), rep.HTML, browsercheck.Options{Chromium: bin, WidthPx: w},
			".answer .rec-head", "#summary", "table")
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Overflows) > 0 || l.ScrollWidthPx > l.WidthPx {
			t.Errorf("%d px: the page is %d px wide; overflowing: %q", w, l.ScrollWidthPx, l.Overflows)
		}
		if len(l.Boxes["table"]) == 0 {
			t.Errorf("%d px: no tables", w)
		}
		if w == 480 {
			continue
		}
		heads, facts := l.Boxes[".answer .rec-head"], l.Boxes["#summary"]
		if len(heads) == 0 || len(facts) != 1 {
			t.Fatalf("%d px: %d recommendation headings, %d study sections", w, len(heads), len(facts))
		}
		if b := heads[len(heads)-1]; b.Bottom() > 900 || b.Y > facts[0].Y {
			t.Errorf("%d px: recommendation %v ends at %.0f px (want ≤ 900), the study starts at %.0f px", w, b, b.Bottom(), facts[0].Y)
		}
	}
}

// TestFrontier_BrowserLabels opens the frontier figures' SVG in headless
// Chromium and checks that no two of their texts overlap (point labels,
// ticks, axis titles, legend): the crowded test frontier and the hand
// evaluation's. Skipped without Chromium.
func TestFrontier_BrowserLabels(t *testing.T) {
	bin, err := browsercheck.Find()
	if err != nil {
		t.Skipf("skipping: %v (make check-report installs it)", err)
	}
	dir := t.TempDir()
	crowded := crowdedFrontier()
	b, err := encode(&crowded, "svg")
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{filepath.Join(dir, "crowded.svg")}
	if err := os.WriteFile(paths[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Render(context.Background(), writeEval(t), filepath.Join(dir, "report"), Options{Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, filepath.Join(rep.Dir, FrontierFigure+".svg"))
	for _, p := range paths {
		boxes, err := browsercheck.SVGTextBoxes(context.Background(), p, browsercheck.Options{Chromium: bin})
		if err != nil {
			t.Fatal(err)
		}
		if len(boxes) < 10 {
			t.Errorf("%s: only %d texts", p, len(boxes))
		}
		for _, o := range browsercheck.Overlapping(boxes, 0.5) {
			t.Errorf("%s: %v overlaps %v", filepath.Base(p), o[0], o[1])
		}
	}
}
