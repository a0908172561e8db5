package main

import (
	"fmt"
	"io"
	"os"

	"github.com/mirage-hpc/mirage/ingest"
)

// progressBar draws one self-overwriting status line on stderr when it is
// a terminal; otherwise it draws nothing.
type progressBar struct {
	w     io.Writer
	on    bool
	drawn bool
}

func newProgressBar(w io.Writer, enabled bool) *progressBar {
	on := false
	if f, ok := w.(*os.File); ok && enabled {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			on = true
		}
	}
	return &progressBar{w: w, on: on}
}

func (p *progressBar) ingest(pr ingest.Progress) {
	if !p.on {
		return
	}
	pct := ""
	if pr.Size > 0 {
		pct = fmt.Sprintf(" %3.0f%%", 100*float64(pr.Bytes)/float64(pr.Size))
	}
	fmt.Fprintf(p.w, "\r\033[Kingest [%d/%d] %s%s  %d rows", pr.InputIndex+1, pr.Inputs, pr.Input, pct, pr.Rows)
	p.drawn = true
}

func (p *progressBar) finish() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
