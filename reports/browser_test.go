package reports

import (
	"context"
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
