package browsercheck

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Box is one element's border box in page coordinates (CSS pixels from
// the top left of the document, not of the viewport), with its text.
type Box struct {
	// Text is the element's text content, spaces collapsed, at most 80
	// bytes.
	Text string  `json:"text"`
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
	W    float64 `json:"w"`
	H    float64 `json:"h"`
}

// Right and Bottom are the box's far edges.
func (b Box) Right() float64  { return b.X + b.W }
func (b Box) Bottom() float64 { return b.Y + b.H }

// Overlaps reports whether a and b share an area of more than tol CSS
// pixels in both directions (touching edges do not overlap).
func (a Box) Overlaps(b Box, tol float64) bool {
	return min(a.Right(), b.Right())-max(a.X, b.X) > tol && min(a.Bottom(), b.Bottom())-max(a.Y, b.Y) > tol
}

// Overlapping returns every pair of boxes that overlap by more than tol
// pixels, in index order.
func Overlapping(boxes []Box, tol float64) [][2]Box {
	var out [][2]Box
	for i := range boxes {
		for j := i + 1; j < len(boxes); j++ {
			if boxes[i].Overlaps(boxes[j], tol) {
				out = append(out, [2]Box{boxes[i], boxes[j]})
			}
		}
	}
	return out
}

// Layout is what Measure found on a page laid out at one window width.
type Layout struct {
	// WidthPx is the viewport's width (window.innerWidth), ScrollWidthPx
	// the document's (wider: the page scrolls sideways).
	WidthPx       int `json:"width_px"`
	ScrollWidthPx int `json:"scroll_width_px"`
	// Boxes are, per selector asked for, the boxes of the elements it
	// matches, in document order.
	Boxes map[string][]Box `json:"boxes"`
	// Overflows names every table, figure, image or preformatted block
	// that reaches past the viewport's right edge and is not inside a
	// container that scrolls sideways (overflow-x auto or scroll) and
	// itself fits: its caption (or its first text), and its right edge.
	Overflows []string `json:"overflows"`
}

// measureScript returns the script that records a Layout for selectors
// after the load event into #browsercheck-result.
func measureScript(selectors []string) string {
	sel, _ := json.Marshal(selectors)
	return `<script>(function(){window.addEventListener("load",function(){setTimeout(function(){` +
		`var S=` + string(sel) + `,W=window.innerWidth,X=window.scrollX,Y=window.scrollY;` +
		`function txt(e){var t=(e.textContent||"").replace(/\s+/g," ").trim();return t.slice(0,80)}` +
		`function box(e){var r=e.getBoundingClientRect();return {text:txt(e),x:r.left+X,y:r.top+Y,w:r.width,h:r.height}}` +
		`var B={};S.forEach(function(s){B[s]=Array.prototype.map.call(document.querySelectorAll(s),box)});` +
		`var O=[];document.querySelectorAll("table,figure,img,pre").forEach(function(e){var r=e.getBoundingClientRect();if(r.right<=W+0.5){return}` +
		`for(var a=e.parentElement;a&&a!==document.body;a=a.parentElement){var ox=getComputedStyle(a).overflowX;if((ox==="auto"||ox==="scroll")&&a.getBoundingClientRect().right<=W+0.5){return}}` +
		`var c=e.querySelector&&e.querySelector("caption,figcaption");O.push(e.tagName.toLowerCase()+" "+JSON.stringify(c?txt(c):txt(e))+" reaches "+Math.round(r.right)+" px")});` +
		`var r={width_px:W,scroll_width_px:document.documentElement.scrollWidth,boxes:B,overflows:O};` +
		`var p=document.createElement("script");p.type="application/json";p.id="browsercheck-result";p.textContent=JSON.stringify(r).replace(/</g,"\\u003c");document.documentElement.appendChild(p)},0)})})();</script>`
}

// Measure lays page (an HTML file) out in headless Chromium at
// opts.WidthPx and returns the boxes of the elements each CSS selector
// matches and the elements that overflow the viewport sideways. The page
// is measured on a copy with a script added at the top of <head>,
// written beside it (relative paths resolve the same) and removed after.
func Measure(ctx context.Context, page string, opts Options, selectors ...string) (Layout, error) {
	opts = withDefaults(opts)
	var l Layout
	abs, err := filepath.Abs(page)
	if err != nil {
		return l, fmt.Errorf("browsercheck %s: %w", page, err)
	}
	if opts.Chromium == "" {
		if opts.Chromium, err = Find(); err != nil {
			return l, err
		}
	}
	src, err := os.ReadFile(abs)
	if err != nil {
		return l, fmt.Errorf("browsercheck: %w", err)
	}
	out, err := loadCopy(ctx, abs, insertScript(src, measureScript(selectors)), opts)
	if err != nil {
		return l, err
	}
	m := resultTag.FindSubmatch(out)
	if m == nil {
		return l, fmt.Errorf("browsercheck: %s: the page's load event never ran (no layout in the DOM dump)", page)
	}
	if err := json.Unmarshal(m[1], &l); err != nil {
		return l, fmt.Errorf("browsercheck: layout of %s: %w", page, err)
	}
	return l, nil
}

var xmlDecl = regexp.MustCompile(`(?s)^\s*<\?xml.*?\?>`)

// SVGTextBoxes lays the SVG file out inline in an HTML page in headless
// Chromium (at its own size, the window opts.WidthPx wide) and returns
// the box of every <text> element: rotated text has the box that holds
// it. Boxes are in CSS pixels from the SVG's top left.
func SVGTextBoxes(ctx context.Context, svgPath string, opts Options) ([]Box, error) {
	src, err := os.ReadFile(svgPath)
	if err != nil {
		return nil, fmt.Errorf("browsercheck: %w", err)
	}
	dir := filepath.Dir(svgPath)
	tmp, err := os.CreateTemp(dir, ".browsercheck-svg-*.html")
	if err != nil {
		return nil, fmt.Errorf("browsercheck: %w", err)
	}
	name := tmp.Name()
	defer os.Remove(name)
	page := `<!DOCTYPE html><html><head><meta charset="utf-8"/><style>body{margin:0}</style></head><body>` +
		string(xmlDecl.ReplaceAll(src, nil)) + `</body></html>`
	_, err = tmp.WriteString(page)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("browsercheck: %w", err)
	}
	l, err := Measure(ctx, name, opts, "svg text")
	if err != nil {
		return nil, err
	}
	return l.Boxes["svg text"], nil
}

// insertScript returns page with script inserted after <head>, else
// after <html>, else at the start.
func insertScript(page []byte, script string) []byte {
	at := 0
	if loc := headTag.FindIndex(page); loc != nil {
		at = loc[1]
	} else if loc := htmlTag.FindIndex(page); loc != nil {
		at = loc[1]
	}
	out := make([]byte, 0, len(page)+len(script))
	out = append(out, page[:at]...)
	out = append(out, script...)
	return append(out, page[at:]...)
}

// loadCopy writes src beside page (absolute), loads it with --dump-dom
// at opts.WidthPx and returns the DOM dump; the copy is removed after.
func loadCopy(ctx context.Context, page string, src []byte, opts Options) ([]byte, error) {
	tmp, err := os.CreateTemp(filepath.Dir(page), ".browsercheck-*.html")
	if err != nil {
		return nil, fmt.Errorf("browsercheck: instrumented copy: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(src)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("browsercheck: instrumented copy: %w", err)
	}
	return run(ctx, opts, "--dump-dom", "--virtual-time-budget=10000",
		"--window-size="+strconv.Itoa(opts.WidthPx)+",900", fileURL(tmp.Name()))
}

// String is a box as "TEXT" at (x, y) w×h.
func (b Box) String() string {
	return strings.TrimSpace(fmt.Sprintf("%q at (%.0f, %.0f) %.0f×%.0f", b.Text, b.X, b.Y, b.W, b.H))
}
