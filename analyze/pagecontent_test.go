package analyze_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/analyze"
	"github.com/mirage-hpc/mirage/internal/browsercheck"
)

// TestPage_Content: the analysis page has a link back and one to each
// section, waits in hours, no axis of "jobs / hours", chains that were
// not replayed blank (not 0.00) in the replay columns, and a footer with
// the version and the trace's dates but no repository file.
func TestPage_Content(t *testing.T) {
	path := writeHandTrace(t)
	for _, back := range []string{"", "../report/report.html"} {
		dir := t.TempDir()
		o := handOptions()
		o.Version, o.ReportHref = "v9.9-test", back
		o.Replay.MaxChains = 1 // the other chains are not replayed
		a, err := analyze.Run(context.Background(), path, dir, o)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, analyze.Page))
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		want := []string{`<th>mean (h)</th>`, `<th>p50 (h)</th>`, `Written by mirage v9.9-test (mirage analyze) from jobs submitted`}
		for _, s := range a.Sections {
			want = append(want, `href="#`+s.ID+`"`)
		}
		if back == "" {
			want = append(want, `onclick="history.back(); return false;"`)
		} else {
			want = append(want, `href="`+back+`"`)
		}
		for _, w := range want {
			if !strings.Contains(page, w) {
				t.Errorf("back %q: page lacks %s", back, w)
			}
		}
		for _, bad := range []string{"README.md", "jobs / hours", "wait (s)"} {
			if strings.Contains(page, bad) {
				t.Errorf("page says %q", bad)
			}
		}
		if a.ChainSummary.ReplayedChains >= a.ChainSummary.Chains {
			t.Fatalf("every chain replayed (%d of %d): the test needs one that is not", a.ChainSummary.ReplayedChains, a.ChainSummary.Chains)
		}
		// a top-chains row whose replayed column is 0 has blank replay cells
		row := regexp.MustCompile(`<td>0</td><td>([^<]*)</td><td>([^<]*)</td></tr>`)
		m := row.FindAllStringSubmatch(page, -1)
		if len(m) == 0 {
			t.Fatal("no unreplayed chain row on the page")
		}
		for _, r := range m {
			if r[1] != "" || r[2] != "" {
				t.Errorf("unreplayed chain shows %q and %q, want blanks", r[1], r[2])
			}
		}
		for _, name := range []string{"queue.svg", "backlog.svg"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				t.Errorf("pending jobs and backlog are separate figures: %v", err)
			}
		}
		// the wait CDF's y axis ends at 1
		svg, err := os.ReadFile(filepath.Join(dir, "wait_cdf.svg"))
		if err != nil {
			t.Fatal(err)
		}
		ticks := regexp.MustCompile(`>(1\.[0-9]+)</text>`).FindAllStringSubmatch(string(svg), -1)
		if len(ticks) > 0 {
			t.Errorf("wait CDF has y ticks above 1: %v", ticks)
		}
	}
}

func TestPartialMonths(t *testing.T) {
	months := []analyze.MonthRow{{Month: "2023-01", Jobs: 1}, {Month: "2023-02", Jobs: 500}, {Month: "2023-03", Jobs: 480},
		{Month: "2023-04", Jobs: 520}, {Month: "2023-05", Jobs: 3}}
	got := analyze.PartialMonths(months)
	if len(got) != 2 || !got["2023-01"] || !got["2023-05"] {
		t.Errorf("partial months %v, want 2023-01 and 2023-05", got)
	}
	months[0].Jobs = 400 // a full first month stays
	if got := analyze.PartialMonths(months); len(got) != 1 || !got["2023-05"] {
		t.Errorf("partial months %v, want 2023-05 only", got)
	}
}

// TestPage_BrowserLayout lays analysis.html out in headless Chromium at
// 1400, 800 and 480 px: no table or figure reaches past the window, and
// the figures are shown at the report's width where the window allows.
func TestPage_BrowserLayout(t *testing.T) {
	bin, err := browsercheck.Find()
	if errors.Is(err, browsercheck.ErrNoChromium) {
		t.Skipf("skipping: %v", err)
	}
	if testing.Short() {
		t.Skip("skipping: -short (runs a browser)")
	}
	dir := t.TempDir()
	if _, err := analyze.Run(context.Background(), writeHandTrace(t), dir, handOptions()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, w := range []int{1400, 800, 480} {
		l, err := browsercheck.Measure(ctx, filepath.Join(dir, analyze.Page), browsercheck.Options{Chromium: bin, WidthPx: w}, "figure img", "nav.links a")
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Overflows) > 0 || l.ScrollWidthPx > l.WidthPx {
			t.Errorf("%d px: page %d px wide, overflowing: %q", w, l.ScrollWidthPx, l.Overflows)
		}
		if len(l.Boxes["nav.links a"]) < 2 {
			t.Errorf("%d px: navigation %v", w, l.Boxes["nav.links a"])
		}
		for _, b := range l.Boxes["figure img"] {
			if want := min(float64(analyze.FigureWidthPx), float64(w)-40); b.W < want-2 {
				t.Errorf("%d px: a figure is %.0f px wide, want about %.0f", w, b.W, want)
			}
		}
	}
}
