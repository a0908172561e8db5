package browsercheck_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/internal/browsercheck"
)

// chromium returns the browser or skips t.
func chromium(t *testing.T) string {
	t.Helper()
	p, err := browsercheck.Find()
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	return p
}

func TestCheck(t *testing.T) {
	bin := chromium(t)
	t.Run("OK", func(t *testing.T) {
		out := t.TempDir()
		res, err := browsercheck.Check(context.Background(), "testdata/good.html", out, browsercheck.Options{Chromium: bin, ShotHeightPx: 300})
		if err != nil {
			t.Fatal(err)
		}
		if err := res.Err(); err != nil {
			t.Errorf("clean page reported: %v", err)
		}
		if res.Images != 2 || res.Title != "good" {
			t.Errorf("images %d title %q, want 2 and good", res.Images, res.Title)
		}
		if len(res.Screenshots) == 0 {
			t.Fatal("no screenshots")
		}
		if b, err := os.ReadFile(res.Screenshots[0]); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
			t.Errorf("screenshot %s is not a PNG (%v)", res.Screenshots[0], err)
		}
		left, _ := filepath.Glob("testdata/.browsercheck-*")
		if len(left) > 0 {
			t.Errorf("instrumented copies left behind: %v", left)
		}
	})
	t.Run("ErrPage", func(t *testing.T) {
		res, err := browsercheck.Check(context.Background(), "testdata/bad.html", t.TempDir(), browsercheck.Options{Chromium: bin})
		if err != nil {
			t.Fatal(err)
		}
		if !errors.Is(res.Err(), browsercheck.ErrPage) {
			t.Fatalf("Err() = %v, want ErrPage", res.Err())
		}
		if !slices.Equal(res.BrokenImages, []string{"missing.png"}) {
			t.Errorf("broken images %q, want [missing.png]", res.BrokenImages)
		}
		if len(res.ConsoleErrors) != 2 || res.ConsoleErrors[0] != "boom 42" || !strings.Contains(res.ConsoleErrors[1], "undefinedFunction") {
			t.Errorf("console errors %q, want boom 42 then undefinedFunction", res.ConsoleErrors)
		}
	})
}

func TestMeasure(t *testing.T) {
	bin := chromium(t)
	l, err := browsercheck.Measure(context.Background(), "testdata/layout.html", browsercheck.Options{Chromium: bin, WidthPx: 800}, "#top", "#below", "table")
	if err != nil {
		t.Fatal(err)
	}
	if l.WidthPx != 800 {
		t.Errorf("viewport %d px, want 800", l.WidthPx)
	}
	if b := l.Boxes["#top"]; len(b) != 1 || b[0].Y != 0 || b[0].H != 100 {
		t.Errorf("#top boxes %v, want one at y 0, 100 px tall", b)
	}
	if b := l.Boxes["#below"]; len(b) != 1 || b[0].Y < 1000 {
		t.Errorf("#below boxes %v, want one below 1000 px", b)
	}
	if n := len(l.Boxes["table"]); n != 3 {
		t.Errorf("%d tables, want 3", n)
	}
	if len(l.Overflows) != 1 || !strings.Contains(l.Overflows[0], `"too wide"`) {
		t.Errorf("overflows %q, want only the table captioned too wide", l.Overflows)
	}
	left, _ := filepath.Glob("testdata/.browsercheck-*")
	if len(left) > 0 {
		t.Errorf("instrumented copies left behind: %v", left)
	}
}

func TestSVGTextBoxes(t *testing.T) {
	bin := chromium(t)
	boxes, err := browsercheck.SVGTextBoxes(context.Background(), "testdata/labels.svg", browsercheck.Options{Chromium: bin})
	if err != nil {
		t.Fatal(err)
	}
	if len(boxes) != 3 {
		t.Fatalf("boxes %v, want 3", boxes)
	}
	ov := browsercheck.Overlapping(boxes, 0.5)
	if len(ov) != 1 || ov[0][0].Text != "alpha" || ov[0][1].Text != "beta" {
		t.Errorf("overlapping %v, want alpha with beta only", ov)
	}
}

func TestBoxOverlaps(t *testing.T) {
	a := browsercheck.Box{X: 0, Y: 0, W: 10, H: 10}
	for _, c := range []struct {
		b    browsercheck.Box
		want bool
	}{
		{browsercheck.Box{X: 10, Y: 0, W: 5, H: 5}, false}, // touching
		{browsercheck.Box{X: 9, Y: 9, W: 5, H: 5}, true},
		{browsercheck.Box{X: 0, Y: 20, W: 5, H: 5}, false},
	} {
		if got := a.Overlaps(c.b, 0.5); got != c.want {
			t.Errorf("%v overlaps %v = %v, want %v", a, c.b, got, c.want)
		}
	}
}
