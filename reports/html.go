package reports

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"html/template"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/internal/atomicfile"
	"github.com/mirage-hpc/mirage/internal/htmlpage"
)

// writeReport draws the figures into dir (each format) and writes the
// page.
func writeReport(ctx context.Context, dir string, rep *Report, opts Options) error {
	var figs []template.HTML
	for i := range rep.Figures {
		if err := ctx.Err(); err != nil {
			return err
		}
		f := &rep.Figures[i]
		var pngBytes []byte
		for _, format := range append(slicesWithout(opts.Formats, "png"), "png") {
			b, err := encode(f, format)
			if err != nil {
				return fmt.Errorf("figure %s: %w", f.Name, err)
			}
			if format == "png" {
				pngBytes = b
				if !contains(opts.Formats, "png") {
					break
				}
			}
			name := f.Name + "." + format
			if err := atomicfile.WriteFile(filepath.Join(dir, name), b); err != nil {
				return err
			}
			f.Files = append(f.Files, name)
		}
		svg := ""
		if contains(opts.Formats, "svg") {
			svg = f.Name + ".svg"
		}
		h, err := htmlpage.FigureHTML(htmlpage.Figure{ID: f.Name, Title: f.Title, Caption: f.Caption, PNG: pngBytes,
			SVGHref: svg, WidthPx: FigureWidthPx})
		if err != nil {
			return err
		}
		figs = append(figs, h)
	}
	var body bytes.Buffer
	if err := bodyTemplate.Execute(&body, pageData(rep, figs)); err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	links := []htmlpage.Link{{Text: "Recommendation", Href: "#recommendation"}, {Text: "Study", Href: "#summary"}, {Text: "Tables", Href: "#tables"},
		{Text: "Figures", Href: "#figures"}, {Text: "Key to labels", Href: "#key"}}
	if opts.AnalysisHref != "" {
		links = append(links, htmlpage.Link{Text: "Trace analysis", Href: opts.AnalysisHref})
	}
	var page bytes.Buffer
	err := htmlpage.Render(&page, htmlpage.Page{Title: opts.Title, Subtitle: subtitle(rep.Study), Links: links,
		Body: template.HTML(body.String()), Footer: footer(rep.Study, opts.Version)})
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, HTMLFile), page.Bytes()); err != nil {
		return err
	}
	return writeGrounds(dir, rep)
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func slicesWithout(s []string, v string) []string {
	var out []string
	for _, x := range s {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}

// subtitle is the page's line under the title.
func subtitle(st Study) string {
	s := ""
	if st.Name != "" {
		s = "Study " + st.Name + " · "
	}
	if st.Trace != "" {
		s += "trace " + st.Trace + " · "
	}
	if st.Protocol != "" {
		s += "protocol " + st.Protocol + " · "
	}
	return s + fmt.Sprintf("%d validation windows per chain size, %s to %s", st.Windows, st.FirstWindow, st.LastWindow)
}

// footer is the page's last line: the version that wrote it and the
// dates of its data (the page states no time of its own, so the same
// inputs give the same page).
func footer(st Study, version string) string {
	s := "Written by mirage report"
	if version != "" {
		s = "Written by mirage " + version + " (mirage report)"
	}
	s += " from validation windows " + dateOf(st.FirstWindow) + " to " + dateOf(st.LastWindow)
	if st.TraceFirst != "" {
		s += " of a trace submitted " + st.TraceFirst + " to " + st.TraceLast
	}
	return s + "; every figure is embedded in this page (SVG files beside it)."
}

// dateOf returns the date of a "2006-01-02 15:04 UTC" time.
func dateOf(t string) string {
	d, _, _ := strings.Cut(t, " ")
	return d
}

// htmlChain is one chain size's tables.
type htmlChain struct {
	Nodes int
	// All are the policies at their operating points (and the
	// recommendation), Sweeps the sweep variants, folded away on the page.
	All    []Stats
	Sweeps []Stats
	Loads  []htmlLoad
	Rec    Recommendation
}

// htmlRow is one row of a chain size's table.
type htmlRow struct {
	C htmlChain
	S Stats
}

type htmlLoad struct {
	Name  string
	N     int
	Stats []Stats
}

type htmlPage struct {
	Study Study
	// FidelityText states the simulator's fidelity (fidelityText).
	FidelityText string
	Budget       string
	Chains       []htmlChain
	Key          []KeyItem
	Figures      []template.HTML
	Notes        []string
	Manif        []ModelInfo
	DQN          []DQNModel
	Points       []PointRow
	Calib        []htmlCalibration
	Loads        []htmlLoad // windows per load class (no stats)
	// RealChains is the trace's own chains replayed, when evaluated.
	RealChains *htmlRealChains
}

func pageData(rep *Report, figs []template.HTML) htmlPage {
	pg := htmlPage{Study: rep.Study, FidelityText: fidelityText(rep), Budget: fmtG(rep.Study.BudgetH), Key: rep.Key, Figures: figs, Notes: rep.Notes,
		Manif: rep.Manif}
	label := func(p string) string { return p }
	if rep.labels != nil {
		label = rep.labels.Label
	}
	for _, p := range rep.Points { // short labels: the key gives the full names
		p.Policy = label(p.Policy)
		if p.ValidPolicy != "" {
			p.ValidPolicy = label(p.ValidPolicy)
		}
		pg.Points = append(pg.Points, p)
	}
	for _, d := range rep.DQN {
		d.Policy = label(d.Policy)
		pg.DQN = append(pg.DQN, d)
	}
	for _, lc := range evaluate.LoadClasses {
		pg.Loads = append(pg.Loads, htmlLoad{Name: lc, N: rep.Study.LoadWindows[lc]})
	}
	for _, r := range rep.Recommendations {
		c := htmlChain{Nodes: r.Nodes, Rec: r}
		main := func(s Stats) bool { return !evaluate.ParseName(s.Policy).Swept || s.Policy == r.Stats.Policy }
		for _, s := range rep.Stats {
			if s.Nodes == r.Nodes && s.Load == "" {
				if main(s) {
					c.All = append(c.All, s)
				} else {
					c.Sweeps = append(c.Sweeps, s)
				}
			}
		}
		for _, lc := range evaluate.LoadClasses {
			l := htmlLoad{Name: lc}
			for _, s := range rep.Stats {
				if s.Nodes == r.Nodes && s.Load == lc {
					l.N = s.Windows
					if main(s) {
						l.Stats = append(l.Stats, s)
					}
				}
			}
			if len(l.Stats) > 0 {
				c.Loads = append(c.Loads, l)
			}
		}
		pg.Chains = append(pg.Chains, c)
	}
	pg.RealChains = realChainsPage(rep, label)
	for i := range rep.Models {
		if rep.Models[i].CalibrationFigure != "" {
			if t := calibrationTable(&rep.Models[i]); len(t.Rows) > 0 {
				t.Policy = label(t.Policy)
				pg.Calib = append(pg.Calib, t)
			}
		}
	}
	return pg
}

// pctCI formats a share with its interval: "45.2 % (30.1–60.0)".
func pctCI(iv Interval) string {
	return fmt.Sprintf("%.1f %% <span class=\"ci\">(%.1f–%.1f)</span>", 100*iv.Point, 100*iv.Lo, 100*iv.Hi)
}

// hCI formats hours with their interval: "1.25 (0.80–1.90)".
func hCI(iv Interval) string {
	return fmt.Sprintf("%.2f <span class=\"ci\">(%.2f–%.2f)</span>", iv.Point, iv.Lo, iv.Hi)
}

var bodyTemplate = template.Must(template.New("body").Funcs(htmlpage.Funcs()).Funcs(template.FuncMap{
	"pctci": func(iv Interval) template.HTML { return template.HTML(pctCI(iv)) },
	"hci":   func(iv Interval) template.HTML { return template.HTML(hCI(iv)) },
	"pv":    paramValue,
	"gap": func(v *float64) string {
		if v == nil {
			return "–"
		}
		return strconv.FormatFloat(*v, 'f', 2, 64)
	},
	"utc":  utcTime,
	"join": joinInts,
	"row":  func(c htmlChain, s Stats) htmlRow { return htmlRow{C: c, S: s} },
}).Parse(bodyHTML))

//go:embed body.html.tmpl
var bodyHTML string

func joinInts(v []int) string {
	s := ""
	for i, n := range v {
		if i > 0 {
			s += ", "
		}
		s += strconv.Itoa(n)
	}
	return s
}
