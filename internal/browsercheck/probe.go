package browsercheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// probeScript is injected at the top of <head>: it records console.error
// calls, uncaught errors, failed script or stylesheet loads and, after the
// load event, the images that did not load, into a JSON element
// #browsercheck-result that --dump-dom prints.
const probeScript = `<script>(function(){var E=[];` +
	`var ce=console.error;console.error=function(){try{E.push(Array.prototype.map.call(arguments,String).join(" "))}catch(x){}return ce.apply(console,arguments)};` +
	`window.addEventListener("error",function(e){var t=e.target;if(t&&t!==window&&t.tagName){if(t.tagName!=="IMG"){E.push("failed to load "+t.tagName.toLowerCase()+" "+String(t.src||t.href||"").slice(0,120))}return}E.push("uncaught: "+(e.message||String(e.error)))},true);` +
	`window.addEventListener("unhandledrejection",function(e){E.push("unhandled rejection: "+String(e.reason))});` +
	`window.addEventListener("load",function(){setTimeout(function(){var im=document.images,B=[];for(var i=0;i<im.length;i++){var m=im[i];if(!m.complete||m.naturalWidth===0){B.push(String(m.getAttribute("src")||m.currentSrc||"").slice(0,120))}}` +
	`var b=document.body,r={errors:E,broken:B,images:im.length,height:Math.max(document.documentElement.scrollHeight,b?b.scrollHeight:0),title:document.title};` +
	`var p=document.createElement("script");p.type="application/json";p.id="browsercheck-result";p.textContent=JSON.stringify(r).replace(/</g,"\\u003c");document.documentElement.appendChild(p)},0)})})();</script>`

// probe is the injected script's result.
type probe struct {
	Errors []string `json:"errors"`
	Broken []string `json:"broken"`
	Images int      `json:"images"`
	Height int      `json:"height"`
	Title  string   `json:"title"`
}

var (
	headTag   = regexp.MustCompile(`(?i)<head(\s[^>]*)?>`)
	htmlTag   = regexp.MustCompile(`(?i)<html(\s[^>]*)?>`)
	resultTag = regexp.MustCompile(`(?s)<script[^>]*id="browsercheck-result"[^>]*>(.*?)</script>`)
)

// instrument returns page with probeScript inserted after <head>, else
// after <html>, else at the start.
func instrument(page []byte) []byte { return insertScript(page, probeScript) }

// runProbe loads an instrumented copy of page (absolute path), written
// beside it and removed after, and returns the script's findings.
func runProbe(ctx context.Context, page string, opts Options) (probe, error) {
	var p probe
	src, err := os.ReadFile(page)
	if err != nil {
		return p, fmt.Errorf("browsercheck: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(page), ".browsercheck-*.html")
	if err != nil {
		return p, fmt.Errorf("browsercheck: instrumented copy: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(instrument(src))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return p, fmt.Errorf("browsercheck: instrumented copy: %w", err)
	}
	out, err := run(ctx, opts, "--dump-dom", "--virtual-time-budget=10000",
		"--window-size="+strconv.Itoa(opts.WidthPx)+",600", fileURL(tmp.Name()))
	if err != nil {
		return p, err
	}
	return parseProbe(out)
}

// parseProbe finds the result element in a --dump-dom output.
func parseProbe(dom []byte) (probe, error) {
	var p probe
	m := resultTag.FindSubmatch(dom)
	if m == nil {
		n := min(len(dom), 300)
		return p, fmt.Errorf("browsercheck: the page's load event never ran (no result in the DOM dump; starts %q)", bytes.TrimSpace(dom[:n]))
	}
	if err := json.Unmarshal(m[1], &p); err != nil {
		return p, fmt.Errorf("browsercheck: probe result: %w", err)
	}
	return p, nil
}

// fileURL returns the file:// URL of an absolute path.
func fileURL(path string) string {
	return "file://" + filepath.ToSlash(path)
}
