package analyze_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/analyze"
	"github.com/mirage-hpc/mirage/internal/browsercheck"
)

// TestPage_Chromium opens analysis.html of the hand-made trace in
// headless Chromium: no console errors, every figure loads. It skips
// when Chromium is absent.
func TestPage_Chromium(t *testing.T) {
	if _, err := browsercheck.Find(); errors.Is(err, browsercheck.ErrNoChromium) {
		t.Skipf("skipping: %v", err)
	}
	if testing.Short() {
		t.Skip("skipping: -short (runs a browser)")
	}
	dir := t.TempDir()
	a, err := analyze.Run(context.Background(), writeHandTrace(t), dir, handOptions())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := browsercheck.Check(ctx, filepath.Join(dir, analyze.Page), filepath.Join(dir, "shots"), browsercheck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil {
		t.Error(err)
	}
	figs := 0
	for _, s := range a.Sections {
		if s.Absent == "" {
			figs++
		}
	}
	if res.Images < figs || res.Title != "Trace analysis" {
		t.Errorf("got %d images and title %q, want at least %d images and \"Trace analysis\"", res.Images, res.Title, figs)
	}
}
