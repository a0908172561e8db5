package browsercheck

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mirage-hpc/mirage/internal/atomicfile"
)

// screenshot captures page (absolute path) at opts.WidthPx × heightPx
// and writes it cut into pieces of opts.ShotHeightPx as
// outDir/STEM-N.png (N from 1).
func screenshot(ctx context.Context, page, outDir, stem string, heightPx int, opts Options) ([]string, error) {
	tmp, err := os.MkdirTemp("", "browsercheck-shot-")
	if err != nil {
		return nil, fmt.Errorf("browsercheck: %w", err)
	}
	defer os.RemoveAll(tmp)
	whole := filepath.Join(tmp, "page.png")
	if _, err := run(ctx, opts, "--screenshot="+whole, "--virtual-time-budget=10000",
		"--window-size="+strconv.Itoa(opts.WidthPx)+","+strconv.Itoa(heightPx), fileURL(page)); err != nil {
		return nil, err
	}
	f, err := os.Open(whole)
	if err != nil {
		return nil, fmt.Errorf("browsercheck: chromium wrote no screenshot: %w", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("browsercheck: screenshot: %w", err)
	}
	var out []string
	b := img.Bounds()
	for n, y := 1, b.Min.Y; y < b.Max.Y; n, y = n+1, y+opts.ShotHeightPx {
		r := image.Rect(b.Min.X, y, b.Max.X, min(y+opts.ShotHeightPx, b.Max.Y))
		piece := image.NewNRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
		draw.Draw(piece, piece.Bounds(), img, r.Min, draw.Src)
		var buf bytes.Buffer
		if err := png.Encode(&buf, piece); err != nil {
			return nil, fmt.Errorf("browsercheck: screenshot: %w", err)
		}
		path := filepath.Join(outDir, stem+"-"+strconv.Itoa(n)+".png")
		if err := atomicfile.WriteFile(path, buf.Bytes()); err != nil {
			return nil, err
		}
		out = append(out, path)
	}
	return out, nil
}
