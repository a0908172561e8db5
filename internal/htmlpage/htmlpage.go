// Package htmlpage is the page chrome Mirage's self-contained HTML pages
// share (the evaluation report, the trace analysis): one style sheet, a
// header with the title, a subtitle and links to sibling pages, figures
// embedded as data URIs with a link to their SVG, and the formatting
// helpers tables use. A page renders its own body to template.HTML and
// hands it to Render, so every page has the same look.
//
// Pages are XHTML-style (every element closed, no named entities), so an
// XML parser reads them, and reference no file that is not beside them.
package htmlpage

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strconv"
)

// Link is a link in the page header, for example to a sibling page.
type Link struct {
	Text string
	// Href is the target, relative to the page (or absolute).
	Href string
	// Back makes the link go back in the browser's history (Href is then
	// not used): a page that does not know the page it was opened from.
	Back bool
}

// Page is one page: its chrome and its body.
type Page struct {
	Title string
	// Subtitle is a line under the title (e.g. the trace and the study);
	// empty means none.
	Subtitle string
	// Links are shown under the title, in order.
	Links []Link
	// Body is the page's content, rendered by its package.
	Body template.HTML
	// Footer is a line at the bottom (e.g. the tool and its version);
	// empty means none.
	Footer string
}

// Figure is one embedded figure.
type Figure struct {
	// ID is the element id (an anchor for links); empty means none.
	ID      string
	Title   string
	Caption string
	// PNG is the raster image embedded as a data URI.
	PNG []byte
	// SVGHref, when set, is a link to the vector version beside the page.
	SVGHref string
	// WidthPx is the image's display width in CSS pixels; 0 means its
	// natural width, capped at the page width.
	WidthPx int
}

// CSS is the shared style sheet: sans-serif, a page width that suits a
// laptop screen, compact tables with right-aligned numbers.
const CSS = `body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; max-width: 75rem; margin: 1rem auto; padding: 0 1rem; color: #222; line-height: 1.4; }
header.page { border-bottom: 2px solid #0072B2; margin-bottom: 1rem; }
header.page h1 { margin: 0.3rem 0; }
header.page p { margin: 0.2rem 0 0.5rem; color: #555; }
nav.links a { margin-right: 1rem; white-space: nowrap; display: inline-block; }
h2 { border-bottom: 1px solid #ddd; padding-bottom: 0.2rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; font-size: 0.9rem; }
caption { text-align: left; font-weight: bold; padding: 0.2rem 0; }
th, td { border: 1px solid #ccc; padding: 0.2rem 0.5rem; text-align: right; vertical-align: top; }
th { background: #f3f3f3; }
th:first-child, td:first-child { text-align: left; }
td.ci { color: #555; font-size: 0.85em; }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: 0.1rem 1rem; }
dl.facts dt { font-weight: bold; }
dl.facts dd { margin: 0; }
.summary { background: #f6f9fc; border: 1px solid #cfe0ee; padding: 0.5rem 1rem; border-radius: 4px; }
.rec { font-size: 1.05rem; }
.norec { border-left: 4px solid #a50; background: #fff6e8; padding: 0.3rem 1rem; margin: 0.5rem 0; }
.norec ul { margin: 0.2rem 0 0.4rem; }
figure { margin: 1.5rem 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.9rem; color: #444; max-width: 60rem; }
.note { color: #a50; }
tr.over td { color: #a50; }
div.wide { overflow-x: auto; max-width: 100%; }
table.nowrap td { white-space: nowrap; }
div.wide > table { margin-top: 0.2rem; }
tr.chosen td { background: #fff3c4; font-weight: bold; }
.answer { border: 2px solid #0072B2; border-radius: 4px; padding: 0.2rem 1rem 0.5rem; margin-bottom: 1rem; }
.answer h2 { margin-top: 0.3rem; }
.answer .rec-head { font-size: 1.15rem; margin: 0.4rem 0 0.2rem; }
.answer .policy { color: #555; font-size: 0.9rem; overflow-wrap: anywhere; }
.answer .how { font-size: 0.85rem; color: #555; }
code { font-family: "Liberation Mono", Menlo, Consolas, monospace; font-size: 0.9em; background: #eef3f8; padding: 0 0.2em; overflow-wrap: anywhere; }
details.sweeps { margin: 0 0 1.5rem; }
details.sweeps summary { cursor: pointer; color: #0072B2; }
.answer ul.cost { margin: 0.3rem 0; padding-left: 1.2rem; }
.answer p.next code { display: inline-block; margin-top: 0.2rem; padding: 0.2rem 0.4rem; }
.summary h2 { margin-top: 0.3rem; }
@media (max-width: 60rem) { body { padding: 0 0.5rem; } th, td { padding: 0.15rem 0.3rem; } table { font-size: 0.8rem; } }
@media (max-width: 36rem) { dl.facts { grid-template-columns: auto; } dl.facts dd { margin-left: 1rem; } }
footer.page { margin-top: 3rem; color: #777; font-size: 0.8rem; }
`

var layout = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>{{.Title}}</title>
<style>
{{.CSS}}</style>
</head>
<body>
<header class="page">
<h1>{{.Title}}</h1>
{{with .Subtitle}}<p>{{.}}</p>
{{end}}{{with .Links}}<nav class="links">{{range .}}{{if .Back}}<a href="#" onclick="history.back(); return false;">{{.Text}}</a>{{else}}<a href="{{.Href}}">{{.Text}}</a>{{end}}{{end}}</nav>
{{end}}</header>
{{.Body}}
{{with .Footer}}<footer class="page">{{.}}</footer>
{{end}}</body>
</html>
`))

// Render writes p as a complete HTML page to w.
func Render(w io.Writer, p Page) error {
	data := struct {
		Page
		CSS template.CSS
	}{p, template.CSS(CSS)}
	if err := layout.Execute(w, data); err != nil {
		return fmt.Errorf("render page %q: %w", p.Title, err)
	}
	return nil
}

var figure = template.Must(template.New("figure").Parse(`<figure{{with .ID}} id="{{.}}"{{end}}>
<img alt="{{.Title}}" src="{{.Src}}"{{with .WidthPx}} width="{{.}}"{{end}} />
<figcaption><strong>{{.Title}}.</strong> {{.Caption}}{{with .SVGHref}} (<a href="{{.}}">SVG</a>){{end}}</figcaption>
</figure>
`))

// FigureHTML returns f as a <figure> with the PNG inlined.
func FigureHTML(f Figure) (template.HTML, error) {
	var buf bytes.Buffer
	data := struct {
		Figure
		Src template.URL
	}{f, DataURI("image/png", f.PNG)}
	if err := figure.Execute(&buf, data); err != nil {
		return "", fmt.Errorf("figure %q: %w", f.Title, err)
	}
	return template.HTML(buf.String()), nil
}

// DataURI returns b as a data: URI of the given MIME type.
func DataURI(mime string, b []byte) template.URL {
	return template.URL("data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b))
}

// Funcs are the formatting helpers pages' templates share:
//
//	h    hours with 2 decimals ("1.25")
//	pct  a share in [0, 1] as a percentage with 1 decimal ("12.5%")
//	g    4 significant digits
//	int  an integer with thin-space thousands ("12 345")
func Funcs() template.FuncMap {
	return template.FuncMap{
		"h":   func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) },
		"pct": func(v float64) string { return strconv.FormatFloat(100*v, 'f', 1, 64) + "%" },
		"g":   func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) },
		"int": Thousands,
	}
}

// Thousands formats n with a thin space between groups of three digits.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, "\u2009"...)
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
