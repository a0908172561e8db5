package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/evaluate"
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
		{{"reactive", 1 * h}, {"immediate", -10 * h}, {"oracle", 0}, {"oracle-cost", 0}, {"forest:m@θ=0.5", 0}, {"forest:m@θ=1", -h}},
		{{"reactive", 5 * h}, {"immediate", -8 * h}, {"oracle", -h / 2}, {"oracle-cost", -h / 2}, {"forest:m@θ=0.5", 2 * h}, {"forest:m@θ=1", -2 * h}},
		{{"reactive", 20 * h}, {"immediate", -h}, {"oracle", 0}, {"oracle-cost", 0}, {"forest:m@θ=0.5", 10 * h}, {"forest:m@θ=1", 4 * h}},
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
	rows := handRows()
	figs, notes := Figures(evaluate.Compute(rows, evaluate.DefaultLambda), rows, nil, false, nil)
	b, err := json.MarshalIndent(struct {
		Figures []Figure `json:"figures"`
		Notes   []string `json:"notes"`
	}{figs, notes}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "figures.golden.json"), append(b, '\n'))
}

func TestCDF(t *testing.T) {
	s := cdf("p", []float64{2, 0, 0, 1})
	if !slices.Equal(s.X, []float64{0, 1, 2}) || !slices.Equal(s.Y, []float64{0.5, 0.75, 1}) {
		t.Fatalf("cdf: %+v", s)
	}
}

func TestBaseName(t *testing.T) {
	for _, tc := range []struct {
		in, base, key string
		v             float64
		ok            bool
	}{
		{"forest:m@θ=0.25", "forest:m", "θ", 0.25, true},
		{"slurm-estimate@margin=0.5", "slurm-estimate", "margin", 0.5, true},
		{"oracle", "oracle", "", 0, false},
		{"forest:m@θ=x", "forest:m@θ=x", "", 0, false},
		{"forest:a@b/m", "forest:a@b/m", "", 0, false},
	} {
		base, key, v, ok := baseName(tc.in)
		if base != tc.base || key != tc.key || v != tc.v || ok != tc.ok {
			t.Errorf("baseName(%q) = %q, %q, %v, %v", tc.in, base, key, v, ok)
		}
	}
}

func TestRender_SelfContainedWellFormed(t *testing.T) {
	dir := writeEval(t)
	rep, err := Render(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(rep.HTML)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pageProblems(page) {
		t.Error("report.html: " + p)
	}
	for _, name := range []string{"metrics.json", "windows.csv", "cdf-interruption.png", "cdf-overlap.svg",
		"zero-interruption-by-load.png", "tradeoff.svg"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("missing %s: %v", name, err)
		}
	}
	if n := strings.Count(string(page), `src="data:image/png;base64,`); n != len(rep.Figures) || n != 4 {
		t.Errorf("inlined figures: %d, want %d", n, len(rep.Figures))
	}
	for _, want := range []string{"forest:m@θ=0.5", "Protocol", "gap to oracle", "Predicted vs actual r is not drawn", "--predictions",
		"Chains of 1 node(s)", "cost = interruption + 0.5·overlap (h)", "mean cost (h)", "cost vs oracle-cost", "Frontier",
		"overlap ≤ 0.5 h", "oracle-cost", "load class heavy"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	// Deterministic: a second render gives the same page and figures.
	rep2, err := Render(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	page2, _ := os.ReadFile(rep2.HTML)
	if !bytes.Equal(page, page2) {
		t.Error("report.html differs between two renders")
	}
}

// pageProblems parses page as XML (the page is XHTML-style) and reports
// what is malformed and every reference to another file: each src and
// href must be a data: URL or a fragment.
func pageProblems(page []byte) []string {
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
					if !strings.HasPrefix(a.Value, "data:") && !strings.HasPrefix(a.Value, "#") {
						out = append(out, fmt.Sprintf("<%s %s=%.60q> references an external file", e.Name.Local, a.Name.Local, a.Value))
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
		if len(pageProblems([]byte(page))) == 0 {
			t.Errorf("accepted %s", page)
		}
	}
	if p := pageProblems([]byte(`<html><body><img src="data:image/png;base64,AA==" /></body></html>`)); len(p) != 0 {
		t.Errorf("rejected a self-contained page: %v", p)
	}
}

func TestRender_NotAnEvaluation(t *testing.T) {
	_, err := Render(context.Background(), t.TempDir(), Options{})
	if !errors.Is(err, ErrNoEvaluation) {
		t.Fatalf("err = %v, want ErrNoEvaluation", err)
	}
}

// TestRender_ByChain: one table per chain size, and no pooled table;
// with two sizes the figures have a panel per size.
func TestRender_ByChain(t *testing.T) {
	rows := handRows()
	for i := range rows {
		if rows[i].Window == 2 {
			rows[i].ChainNodes = 8
		}
	}
	dir := t.TempDir()
	if err := evaluate.WriteDir(dir, evaluate.Compute(rows, 2), rows); err != nil {
		t.Fatal(err)
	}
	rep, err := Render(context.Background(), dir, Options{Formats: []string{"png"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(rep.HTML)
	if err != nil {
		t.Fatal(err)
	}
	p := string(b)
	for _, want := range []string{"Chains of 1 node(s), 2 windows", "Chains of 8 node(s), 1 windows", "cost = interruption + 2·overlap (h)",
		"<td>forest:m</td><td>8</td>"} {
		if !strings.Contains(p, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if n := strings.Count(p, "<h3>Chains of"); n != 2 {
		t.Errorf("%d chain tables, want 2", n)
	}
	for _, p := range pageProblems(b) {
		t.Error("report.html: " + p)
	}
	for _, f := range rep.Figures[:4] {
		if len(f.Panels) != 2 || !strings.HasPrefix(f.Panels[1], "8 node(s)") {
			t.Errorf("%s: panels %q", f.Name, f.Panels)
		}
	}
}

// TestTradeoff_PerChain: each chain size's points come from its own
// summary; sweeps become lines labelled with their parameter; both
// oracles are marked.
func TestTradeoff_PerChain(t *testing.T) {
	const h = 3600
	var rows []evaluate.Row
	for _, n := range []int{1, 4} {
		for _, o := range []struct {
			p string
			r int64
		}{{"reactive", h}, {"oracle", 0}, {"oracle-cost", 0}, {"slurm-estimate@margin=0", int64(n) * h}, {"slurm-estimate@margin=0.5", -int64(n) * h}} {
			rows = append(rows, evaluate.Row{Policy: o.p, ChainNodes: n, RSec: o.r, ReactiveRSec: h})
		}
	}
	m := evaluate.Compute(rows, 0.5)
	got := tradeoffSeries(m, policyOrder(rows, m), "4", 1)
	want := []Series{
		{Label: "policies", Kind: "points", X: []float64{0}, Y: []float64{1}, Names: []string{"reactive"}, Panel: 1},
		{Label: "slurm-estimate", Kind: "line", X: []float64{0, 4}, Y: []float64{4, 0}, Names: []string{"margin=0", "margin=0.5"}, Panel: 1},
		{Label: "oracle", Kind: "points", X: []float64{0}, Y: []float64{0}, Names: []string{"oracle"}, Panel: 1},
		{Label: "oracle-cost", Kind: "points", X: []float64{0}, Y: []float64{0}, Names: []string{"oracle-cost"}, Panel: 1},
	}
	if d := cmpDiff(want, got); d != "" {
		t.Fatal(d)
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
