package browsercheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// DefaultChromium is where Debian's chromium package installs the browser.
const DefaultChromium = "/usr/bin/chromium"

// ErrNoChromium reports that no Chromium binary was found.
var ErrNoChromium = errors.New("chromium not found")

// ErrPage reports a page with console errors or broken images; Result.Err
// wraps it.
var ErrPage = errors.New("page check failed")

// Options controls Check.
type Options struct {
	// Chromium is the browser binary; empty means Find's.
	Chromium string
	// WidthPx is the browser window's width in CSS pixels; 0 means 1280.
	WidthPx int
	// ShotHeightPx is the height of each screenshot piece, pixels; 0 means
	// 1600. The page is captured whole (up to MaxHeightPx) and cut into
	// pieces of this height.
	ShotHeightPx int
	// MaxHeightPx bounds the captured page height, pixels; 0 means 40000.
	MaxHeightPx int
	// Timeout bounds each browser run; 0 means 90 s.
	Timeout time.Duration
	// Logger receives the browser runs' progress; nil discards it.
	Logger *slog.Logger
}

// Result is what Check found on one page.
type Result struct {
	Page string `json:"page"`
	// Screenshots are the PNG files written, top of the page first.
	Screenshots []string `json:"screenshots"`
	// ConsoleErrors are console.error messages, uncaught errors and
	// resource load failures, in the order they happened.
	ConsoleErrors []string `json:"console_errors"`
	// BrokenImages are the src (truncated to 120 bytes) of every <img>
	// that did not load (naturalWidth 0 after the load event).
	BrokenImages []string `json:"broken_images"`
	// Images is the number of <img> elements on the page.
	Images int `json:"images"`
	// HeightPx is the page's scroll height at WidthPx, CSS pixels.
	HeightPx int `json:"height_px"`
	// Title is the document title after load.
	Title string `json:"title"`
}

// Err returns nil for a clean page, else an error wrapping ErrPage that
// lists the console errors and broken images.
func (r Result) Err() error {
	if len(r.ConsoleErrors) == 0 && len(r.BrokenImages) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d console error(s), %d broken image(s)", r.Page, len(r.ConsoleErrors), len(r.BrokenImages))
	for _, e := range r.ConsoleErrors {
		fmt.Fprintf(&b, "\n  console: %s", e)
	}
	for _, e := range r.BrokenImages {
		fmt.Fprintf(&b, "\n  broken image: %s", e)
	}
	return fmt.Errorf("%w: %s", ErrPage, b.String())
}

// Find returns the Chromium binary: $CHROMIUM when set, else
// DefaultChromium, else chromium or chromium-browser on $PATH. It returns
// an error wrapping ErrNoChromium when there is none.
func Find() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: $CHROMIUM=%s: %w", ErrNoChromium, p, err)
		}
		return p, nil
	}
	if _, err := os.Stat(DefaultChromium); err == nil {
		return DefaultChromium, nil
	}
	for _, n := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: not at %s nor on $PATH (Debian: apt-get install chromium)", ErrNoChromium, DefaultChromium)
}

// Check opens page (an HTML file) in headless Chromium, writes its
// screenshots into outDir as STEM-1.png, STEM-2.png, … (STEM: the page's
// base name without extension) and returns what it found. The error is
// about running the check (no browser, a browser that failed or timed
// out); a page with problems is reported by Result.Err.
func Check(ctx context.Context, page, outDir string, opts Options) (Result, error) {
	opts = withDefaults(opts)
	res := Result{Page: page}
	abs, err := filepath.Abs(page)
	if err != nil {
		return res, fmt.Errorf("browsercheck %s: %w", page, err)
	}
	if opts.Chromium == "" {
		if opts.Chromium, err = Find(); err != nil {
			return res, err
		}
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return res, fmt.Errorf("browsercheck: %w", err)
	}
	probe, err := runProbe(ctx, abs, opts)
	if err != nil {
		return res, err
	}
	res.ConsoleErrors, res.BrokenImages = probe.Errors, probe.Broken
	res.Images, res.HeightPx, res.Title = probe.Images, probe.Height, probe.Title
	stem := strings.TrimSuffix(filepath.Base(page), filepath.Ext(page))
	res.Screenshots, err = screenshot(ctx, abs, outDir, stem, min(max(probe.Height, 1), opts.MaxHeightPx), opts)
	return res, err
}

func withDefaults(o Options) Options {
	if o.WidthPx <= 0 {
		o.WidthPx = 1280
	}
	if o.ShotHeightPx <= 0 {
		o.ShotHeightPx = 1600
	}
	if o.MaxHeightPx <= 0 {
		o.MaxHeightPx = 40000
	}
	if o.Timeout <= 0 {
		o.Timeout = 90 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// run runs Chromium headless with a fresh profile and args, returning its
// stdout.
func run(ctx context.Context, opts Options, args ...string) ([]byte, error) {
	profile, err := os.MkdirTemp("", "browsercheck-profile-")
	if err != nil {
		return nil, fmt.Errorf("browsercheck: %w", err)
	}
	defer os.RemoveAll(profile)
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions", "--mute-audio",
		"--force-device-scale-factor=1", "--user-data-dir=" + profile}
	cmd := exec.CommandContext(ctx, opts.Chromium, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	opts.Logger.Debug("chromium", "args", args)
	if err := cmd.Run(); err != nil {
		tail := stderr.String()
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (after %s)", ctx.Err(), opts.Timeout)
		}
		return nil, fmt.Errorf("browsercheck: chromium %s: %w\n%s", strings.Join(args, " "), err, tail)
	}
	return stdout.Bytes(), nil
}
