package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/internal/atomicdir"
	"github.com/mirage-hpc/mirage/internal/golden"
)

// handRows is a small evaluation: three windows, reactive, both oracles,
// a baseline and a model swept over two θ.
func handRows() []evaluate.Row {
	const h = 3600
	type out struct {
		policy string
		r      int64
	}
	windows := [][]out{
		{{"reactive", 1 * h}, {"immediate", -10 * h}, {"oracle", 0}, {"oracle-cost", 0}, {"slurm-estimate@margin=0.5", 0}, {"slurm-estimate@margin=1", -h}},
		{{"reactive", 5 * h}, {"immediate", -8 * h}, {"oracle", -h / 2}, {"oracle-cost", -h / 2}, {"slurm-estimate@margin=0.5", 2 * h}, {"slurm-estimate@margin=1", -2 * h}},
		{{"reactive", 20 * h}, {"immediate", -h}, {"oracle", 0}, {"oracle-cost", 0}, {"slurm-estimate@margin=0.5", 10 * h}, {"slurm-estimate@margin=1", 4 * h}},
	}
	var rows []evaluate.Row
	for w, outs := range windows {
		start := int64(1_700_000_000 + w*43200)
		for _, o := range outs {
			pEnd := start + 60*h
			rows = append(rows, evaluate.Row{Policy: o.policy, ChainNodes: 1, Window: w, WindowStart: start,
				PSubmit: start + 48*h, PStart: start + 49*h, PEnd: pEnd, Submit: pEnd - 2*h, QStart: pEnd + o.r,
				RSec: o.r, ReactiveRSec: outs[0].r})
		}
	}
	return rows
}

func writeEval(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	rows := handRows()
	if err := evaluate.WriteDir(dir, evaluate.Compute(rows, evaluate.DefaultLambda), rows); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestFigures_Golden(t *testing.T) {
	dir := writeEval(t)
	rep, err := build(context.Background(), dir, withDefaults(Options{Resamples: 200}))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(struct {
		Figures []Figure
		Recs    []Recommendation
		Notes   []string
	}{rep.Figures, rep.Recommendations, rep.Notes}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "figures.golden.json"), append(b, '\n'))
	for i := range rep.Figures {
		for _, format := range []string{"png", "svg"} {
			if _, err := encode(&rep.Figures[i], format); err != nil {
				t.Errorf("%s.%s: %v", rep.Figures[i].Name, format, err)
			}
		}
	}
}

func TestBootstrap(t *testing.T) {
	x := []float64{0, 0, 0, 1, 5, 20, 0.5, 0, 3, 0, 0, 12}
	mean := func(idx []int) float64 { return meanOf(x, idx) }
	a := Bootstrap(len(x), mean, 1000, 0.95, 7)
	b := Bootstrap(len(x), mean, 1000, 0.95, 7)
	if a != b {
		t.Fatalf("same seed, different intervals:\n%+v\n%+v", a, b)
	}
	if c := Bootstrap(len(x), mean, 1000, 0.95, 8); c == a {
		t.Errorf("seeds 7 and 8 give the same interval %+v", a)
	}
	if want := 41.5 / 12; math.Abs(a.Point-want) > 1e-12 || a.N != 12 {
		t.Errorf("point %v n %d, want %v and 12", a.Point, a.N, want)
	}
	if !(a.Lo < a.Point && a.Point < a.Hi) || a.Lo < 0 || a.Hi > 20 {
		t.Errorf("interval %+v does not bracket the mean within the data's range", a)
	}
	// Coverage of the point estimate, whatever the data and seed.
	for seed := range uint64(50) {
		n := 1 + int(seed%7)
		v := make([]float64, n)
		for i := range v {
			v[i] = float64((int(seed)*7 + i*13) % 5)
		}
		iv := Bootstrap(n, func(idx []int) float64 { return reductionOf(v, x, idx) }, 100, 0.95, seed)
		if iv.Lo > iv.Point || iv.Hi < iv.Point {
			t.Errorf("seed %d: %+v does not cover its point", seed, iv)
		}
	}
	if z := Bootstrap(0, mean, 100, 0.95, 1); z.Point != 0 || z.Lo != 0 || z.Hi != 0 || z.N != 0 {
		t.Errorf("no windows: %+v", z)
	}
}

func TestRecommend(t *testing.T) {
	st := func(p string, red, ovl float64) Stats {
		return Stats{Policy: p, Reduction: Interval{Point: red}, OverlapH: Interval{Point: ovl}}
	}
	// forest:m@θ=4 is a validation sweep point: never a candidate.
	all := []Stats{st("reactive", 0, 0), st("oracle", 1, 0.5), st("a", 0.5, 0.9), st("b", 0.7, 1.5), st("c", 0.5, 0.4), st("forest:m@θ=4", 0.9, 0.3)}
	tests := []struct {
		Name    string
		BudgetH float64
		Want    string
		Within  bool
	}{
		{"OK", 1, "c", true},    // a and c tie on reduction: less overlap wins
		{"Wider", 2, "b", true}, // b now fits
		{"OnlyReactive", 0.1, "reactive", true},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			got, ok := recommend(all, tt.BudgetH)
			if got.Policy != tt.Want || ok != tt.Within {
				t.Errorf("got %s %v, want %s %v", got.Policy, ok, tt.Want, tt.Within)
			}
		})
	}
	t.Run("OverBudget", func(t *testing.T) {
		got, ok := recommend([]Stats{st("a", 0.5, 0.9), st("b", 0.7, 1.5)}, 0.5)
		if got.Policy != "a" || ok {
			t.Errorf("got %s %v, want the least overlap (a), not within", got.Policy, ok)
		}
	})
}

func TestRender_SelfContainedWellFormed(t *testing.T) {
	dir := writeEval(t)
	out := filepath.Join(t.TempDir(), "report")
	rep, err := Render(context.Background(), dir, out, Options{Study: "hand", AnalysisHref: "../analysis/index.html"})
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(rep.HTML)
	if err != nil {
		t.Fatal(err)
	}
	problems := pageProblems(page, out)
	for _, p := range problems {
		if !strings.Contains(p, "../analysis/index.html") { // the analysis link is the one reference out
			t.Error("report.html: " + p)
		}
	}
	for _, name := range []string{"frontier.png", "frontier.svg", "cdf-r-by-load.png", "zero-interruption-by-load.svg", "windows.png"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("missing %s: %v", name, err)
		}
	}
	if n := strings.Count(string(page), `src="data:image/png;base64,`); n != len(rep.Figures) || n != 4 {
		t.Errorf("inlined figures: %d, want %d", n, len(rep.Figures))
	}
	s := string(page)
	for _, want := range []string{"Study</dt><dd>hand", "Decision interval</dt><dd>10 min", "Overlap budget</dt><dd>1 h",
		"Chains of 1 node(s): no recommendation", `data-reason="no-reduction"`, "bootstrap", "Key to labels", `href="../analysis/index.html"`,
		"3/3: 100.0 %", "Predicted vs actual r is not drawn"} {
		if !strings.Contains(s, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if i, j := strings.Index(s, `id="summary"`), strings.Index(s, `id="tables"`); i < 0 || j < i || strings.Index(s, `id="figures"`) < j {
		t.Error("the page does not open with the summary, then the tables, then the figures")
	}
	// Deterministic: a second render gives the same page.
	rep2, err := Render(context.Background(), dir, out, Options{Study: "hand", AnalysisHref: "../analysis/index.html"})
	if err != nil {
		t.Fatal(err)
	}
	page2, _ := os.ReadFile(rep2.HTML)
	if !bytes.Equal(page, page2) {
		t.Error("report.html differs between two renders")
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".report.tmp*"))
	if len(left) > 0 {
		t.Errorf("temporary directories left: %v", left)
	}
}

func TestRender_OutDirIsEvalDir(t *testing.T) {
	dir := writeEval(t)
	if _, err := Render(context.Background(), dir, dir, Options{}); !errors.Is(err, ErrOutDir) {
		t.Fatalf("err = %v, want ErrOutDir", err)
	}
}

func TestWriteDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	write := func(name string) func(string) error {
		return func(tmp string) error { return os.WriteFile(filepath.Join(tmp, name), []byte(name), 0o644) }
	}
	if err := writeDir(dir, write("a.png")); err != nil {
		t.Fatal(err)
	}
	if err := writeDir(dir, write("b.svg")); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "b.svg" {
		t.Errorf("after a rewrite: %v, want only b.svg", ents)
	}
	boom := errors.New("boom")
	if err := writeDir(dir, func(tmp string) error { write("c.png")(tmp); return boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	ents, _ = os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "b.svg" {
		t.Errorf("after a failed write: %v in dir", ents)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".r.tmp*"))
	if len(left) > 0 {
		t.Errorf("temporaries left: %v", left)
	}
	// A directory holding other files is not replaced.
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeDir(dir, write("a.png")); !errors.Is(err, atomicdir.ErrForeign) {
		t.Errorf("err = %v, want atomicdir.ErrForeign", err)
	}
}

// pageProblems parses page as XML (the page is XHTML-style) and reports
// what is malformed and every reference to another file: each src and
// href must be a data: URL or a fragment.
func pageProblems(page []byte, dir string) []string {
	var out []string
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = true
	var stack []string
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return append(out, "not well-formed: "+err.Error())
		}
		switch e := tok.(type) {
		case xml.StartElement:
			stack = append(stack, e.Name.Local)
			for _, a := range e.Attr {
				switch strings.ToLower(a.Name.Local) {
				case "src", "href", "srcset", "action", "data", "poster":
					if strings.HasPrefix(a.Value, "data:") || strings.HasPrefix(a.Value, "#") {
						continue
					}
					if strings.Contains(a.Value, ":") || strings.HasPrefix(a.Value, "/") || strings.Contains(a.Value, "..") {
						out = append(out, fmt.Sprintf("<%s %s=%.60q> references an external file", e.Name.Local, a.Name.Local, a.Value))
					} else if _, err := os.Stat(filepath.Join(dir, a.Value)); err != nil {
						out = append(out, fmt.Sprintf("<%s %s=%.60q> names a file that is not beside the page", e.Name.Local, a.Name.Local, a.Value))
					}
				}
			}
			if e.Name.Local == "link" || e.Name.Local == "script" {
				out = append(out, "unexpected <"+e.Name.Local+">")
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) != 0 {
		out = append(out, fmt.Sprintf("unclosed elements: %v", stack))
	}
	if bytes.Contains(page, []byte("url(")) || bytes.Contains(page, []byte("@import")) {
		out = append(out, "the style references an external resource")
	}
	return out
}

func TestPageProblems_Rejects(t *testing.T) {
	for _, page := range []string{
		`<html><body><img src="fig.png" /></body></html>`,
		`<html><body><a href="http://example.com/">x</a></body></html>`,
		`<html><body><p>open</body></html>`,
		`<html><body><p>x</p></body>`,
	} {
		if len(pageProblems([]byte(page), t.TempDir())) == 0 {
			t.Errorf("accepted %s", page)
		}
	}
	if p := pageProblems([]byte(`<html><body><img src="data:image/png;base64,AA==" /></body></html>`), t.TempDir()); len(p) != 0 {
		t.Errorf("rejected a self-contained page: %v", p)
	}
}

func TestRender_NotAnEvaluation(t *testing.T) {
	_, err := Render(context.Background(), t.TempDir(), filepath.Join(t.TempDir(), "r"), Options{})
	if !errors.Is(err, ErrNoEvaluation) {
		t.Fatalf("err = %v, want ErrNoEvaluation", err)
	}
}

func cmpDiff(want, got any) string {
	a, _ := json.Marshal(want)
	b, _ := json.Marshal(got)
	if bytes.Equal(a, b) {
		return ""
	}
	return fmt.Sprintf("want %s\ngot  %s", a, b)
}

// TestRender_PageLayout: the recommendation comes before the study's
// facts with its cost per month; a 1-node chain states overlap once (no
// node-hours column or figure beside the hours); the recommended (or
// best candidate's) row is highlighted; sweep variants are folded into a
// <details>; every table sits in a scroll box; the footer has the version
// and the data's dates, and two renders are byte-identical.
func TestRender_PageLayout(t *testing.T) {
	dir := writeEval(t)
	var pages [2]string
	for i := range pages {
		out := filepath.Join(t.TempDir(), "report")
		rep, err := Render(context.Background(), dir, out, Options{Resamples: 200, Version: "v0-test"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(rep.HTML)
		if err != nil {
			t.Fatal(err)
		}
		pages[i] = string(b)
	}
	page := pages[0]
	if pages[1] != page {
		t.Error("two renders of the same evaluation differ")
	}
	rec, study := strings.Index(page, `id="recommendation"`), strings.Index(page, `id="summary"`)
	if rec < 0 || study < 0 || rec > study {
		t.Errorf("recommendation at byte %d, study at %d: want the recommendation first", rec, study)
	}
	for _, want := range []string{"<strong>Per month</strong>", "(node-hours, on 1 node)", `<tr class="chosen"><td title="reactive">`,
		`<details class="sweeps">`, "slurm-est@margin=0.5", "Written by mirage v0-test (mirage report) from validation windows 2023-11-14 to 2023-11-15"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"<th>mean overlap (node-h)</th>", "node-hours)</li>"} {
		if strings.Contains(page, bad) {
			t.Errorf("a 1-node chain's page says %q", bad)
		}
	}
	sweeps := page[strings.Index(page, `<details class="sweeps">`):]
	if main := page[:strings.Index(page, `<details class="sweeps">`)]; strings.Contains(main[strings.Index(main, `id="tables"`):], "@margin=") {
		t.Error("a sweep variant is in the main table")
	}
	if !strings.Contains(sweeps[:strings.Index(sweeps, "</details>")], "@margin=1") {
		t.Error("the sweep variants are not in the <details>")
	}
	if n, m := strings.Count(page, "<table"), strings.Count(page, `<div class="wide"><table`); n != m {
		t.Errorf("%d tables, %d in a scroll box", n, m)
	}
}
