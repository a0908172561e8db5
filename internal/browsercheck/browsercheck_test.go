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
