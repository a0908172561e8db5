package htmlpage_test

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/internal/htmlpage"
)

func TestRender(t *testing.T) {
	fig, err := htmlpage.FigureHTML(htmlpage.Figure{ID: "f1", Title: "A <figure>", Caption: "x & y", PNG: []byte{1, 2, 3}, SVGHref: "f1.svg"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	p := htmlpage.Page{Title: "T", Subtitle: "S", Links: []htmlpage.Link{{Text: "analysis", Href: "../analyze/index.html"}},
		Body: "<p>body</p>" + fig, Footer: "mirage"}
	if err := htmlpage.Render(&buf, p); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	for _, want := range []string{`src="data:image/png;base64,AQID"`, `href="../analyze/index.html"`, "A &lt;figure&gt;", "x &amp; y", `href="f1.svg"`, "sans-serif"} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	d := xml.NewDecoder(strings.NewReader(strings.TrimPrefix(s, "<!DOCTYPE html>\n")))
	d.Strict = true
	for {
		if _, err := d.Token(); err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("not well-formed XML: %v", err)
			}
			break
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1\u2009000", -1234567: "-1\u2009234\u2009567"} {
		if got := htmlpage.Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestRender_BackLink(t *testing.T) {
	var b strings.Builder
	if err := htmlpage.Render(&b, htmlpage.Page{Title: "t", Links: []htmlpage.Link{{Text: "Back", Back: true}, {Text: "A", Href: "#a"}}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<a href="#" onclick="history.back(); return false;">Back</a>`, `<a href="#a">A</a>`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("page lacks %s:\n%s", want, b.String())
		}
	}
}
