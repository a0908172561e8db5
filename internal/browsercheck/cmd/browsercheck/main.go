// Command browsercheck opens HTML pages in headless Chromium, writes their
// screenshots (PNG pieces of the whole page) into a directory and exits 1
// when a page has console errors or broken images (2 when the check
// itself could not run, e.g. without Chromium).
//
//	go run ./internal/browsercheck/cmd/browsercheck -o out/check-report out/report/report.html
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/mirage-hpc/mirage/internal/browsercheck"
)

func main() {
	out := flag.String("o", "browsercheck", "directory for the screenshots")
	width := flag.Int("width", 1280, "browser window width, CSS pixels")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: browsercheck [-o DIR] [-width PX] PAGE.html...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	failed := false
	for _, page := range flag.Args() {
		res, err := browsercheck.Check(ctx, page, *out, browsercheck.Options{WidthPx: *width})
		if err != nil {
			fmt.Fprintln(os.Stderr, "browsercheck:", err)
			os.Exit(2)
		}
		fmt.Printf("%s: %d image(s), %d px tall, %d screenshot(s) in %s\n", page, res.Images, res.HeightPx, len(res.Screenshots), *out)
		if err := res.Err(); err != nil {
			if !errors.Is(err, browsercheck.ErrPage) {
				panic(err)
			}
			fmt.Fprintln(os.Stderr, err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}
