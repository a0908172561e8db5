package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/mirage-hpc/mirage/ingest"
)

// Progress modes (--progress): auto draws a self-overwriting line on a
// terminal and, elsewhere (a log file, a Slurm job), prints the status as
// a line every progressEvery; never under --json. always does the same
// under --json too. never prints nothing.
const (
	progressAuto   = "auto"
	progressAlways = "always"
	progressNever  = "never"
)

// progressEvery is how often a stage not on a terminal prints its status.
const progressEvery = 5 * time.Second

// parseProgress normalises a --progress value: always, auto or never, or
// a boolean (true = auto, false = never, as the flag was before).
func parseProgress(s string) (string, error) {
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case progressAuto, progressAlways, progressNever:
		return v, nil
	case "", "true", "1", "yes", "on":
		return progressAuto, nil
	case "false", "0", "no", "off":
		return progressNever, nil
	}
	return "", fmt.Errorf("--progress %q: want always, auto or never", s)
}

// progressValue is the pflag.Value of --progress.
type progressValue string

func (v *progressValue) String() string { return string(*v) }
func (v *progressValue) Type() string   { return "mode" }
func (v *progressValue) Set(s string) error {
	m, err := parseProgress(s)
	if err != nil {
		return err
	}
	*v = progressValue(m)
	return nil
}

// addProgressFlag adds --progress (always, auto or never; true and false
// as auto and never, as the boolean flag it was) to f.
func addProgressFlag(f *pflag.FlagSet) {
	v := progressValue(progressAuto)
	f.Var(&v, "progress", "progress on stderr: auto (a self-overwriting line on a terminal, else a line every 5 s; none with --json), always (also with --json), never")
}

// progressBar shows a long stage's status on stderr: on a terminal one
// self-overwriting line, redrawn at each set and every second, with the
// time elapsed and, once something is counted, the time left (ETA);
// elsewhere the same status as a plain line every interval. A log line
// written through a liveWriter clears the drawn line first and redraws
// it after, so the two never share a line. It is safe for concurrent
// use.
type progressBar struct {
	w        io.Writer
	live     *liveWriter // the stderr wrapper the bar registered with, or nil
	on       bool        // anything is shown
	term     bool        // w is a terminal
	interval time.Duration

	mu          sync.Mutex
	line        string
	done, total int // what line counts, for the ETA (total 0: nothing)
	drawn       bool
	began       time.Time
	stop        chan struct{}
	stopped     chan struct{}
	closed      bool
}

// newProgressBar returns the progress display of mode (parseProgress's
// values) on w; jsonOut is --json, which silences the auto mode. An
// unknown mode shows nothing.
func newProgressBar(w io.Writer, mode string, jsonOut bool) *progressBar {
	return newProgressBarEvery(w, mode, jsonOut, progressEvery)
}

// newProgressBarEvery is newProgressBar printing every interval when w is
// not a terminal.
func newProgressBarEvery(w io.Writer, mode string, jsonOut bool, interval time.Duration) *progressBar {
	m, _ := parseProgress(mode)
	p := &progressBar{w: w, interval: interval, began: time.Now()}
	if lw, ok := w.(*liveWriter); ok {
		p.w, p.live = lw.w, lw
	}
	if f, ok := p.w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.term = true
		}
	}
	p.on = m == progressAlways || m == progressAuto && !jsonOut
	if p.on {
		if p.term && p.live != nil {
			p.live.attach(p)
		}
		p.start()
	}
	return p
}

// start prints the latest status every interval (on a terminal: redraws
// it every second) until finish.
func (p *progressBar) start() {
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	every := p.interval
	if p.term {
		every = time.Second
	}
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.mu.Lock()
				switch {
				case p.closed || p.line == "":
				case p.term:
					p.drawLocked()
				default:
					fmt.Fprintln(p.w, p.renderLocked())
				}
				p.mu.Unlock()
			}
		}
	}()
}

// renderLocked is the status with the time elapsed and, when it counts
// something, the time left at the rate so far: "features 20/300 windows
// (1m5s elapsed, ETA 15m10s)".
func (p *progressBar) renderLocked() string {
	el := time.Since(p.began)
	s := p.line + " (" + el.Round(time.Second).String() + " elapsed"
	if p.total > 0 && p.done > 0 && p.done < p.total {
		eta := time.Duration(float64(el) * float64(p.total-p.done) / float64(p.done))
		s += ", ETA " + eta.Round(time.Second).String()
	}
	return s + ")"
}

// drawLocked draws the status over the terminal's current line.
func (p *progressBar) drawLocked() {
	fmt.Fprintf(p.w, "\r\033[K%s", p.renderLocked())
	p.drawn = true
}

// clearLocked erases a drawn line, leaving the cursor at its start.
func (p *progressBar) clearLocked() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

// set makes the status the formatted line (without a newline), counting
// nothing.
func (p *progressBar) set(format string, args ...any) {
	p.setCount(0, 0, format, args...)
}

// setCount is set for a status that counts done of total (for the ETA).
func (p *progressBar) setCount(done, total int, format string, args ...any) {
	if !p.on {
		return
	}
	line := fmt.Sprintf(format, args...)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.line, p.done, p.total = line, done, total
	if p.term {
		p.drawLocked()
	}
}

func (p *progressBar) ingest(pr ingest.Progress) {
	if !p.on {
		return
	}
	pct := ""
	if pr.Size > 0 {
		pct = fmt.Sprintf(" %3.0f%%", 100*float64(pr.Bytes)/float64(pr.Size))
	}
	p.set("ingest [%d/%d] %s%s  %d rows", pr.InputIndex+1, pr.Inputs, pr.Input, pct, pr.Rows)
}

// windows is a features.Options or evaluate.Options Progress callback
// showing "what done/total windows"; until the first call the status says
// the first window is running.
func (p *progressBar) windows(what string) func(done, total int) {
	if !p.on {
		return nil
	}
	p.set("%s: first window running", what)
	return func(done, total int) { p.setCount(done, total, "%s %d/%d windows", what, done, total) }
}

// finish stops the display and clears a drawn line; it may be called
// more than once.
func (p *progressBar) finish() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.clearLocked()
	p.mu.Unlock()
	if p.live != nil {
		p.live.detach(p)
	}
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
	}
}

// liveWriter is stderr as the logger and the progress bars share it:
// while a bar draws on a terminal, each write clears the bar's line,
// writes, and draws the line again below, so that a log line is never
// glued to the status ("features 20/20 windowstime=...").
type liveWriter struct {
	w   io.Writer
	mu  sync.Mutex
	bar *progressBar
}

func (lw *liveWriter) attach(p *progressBar) {
	lw.mu.Lock()
	lw.bar = p
	lw.mu.Unlock()
}

func (lw *liveWriter) detach(p *progressBar) {
	lw.mu.Lock()
	if lw.bar == p {
		lw.bar = nil
	}
	lw.mu.Unlock()
}

func (lw *liveWriter) Write(b []byte) (int, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	p := lw.bar
	if p == nil {
		return lw.w.Write(b)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	redraw := p.drawn
	p.clearLocked()
	n, err := lw.w.Write(b)
	if redraw && !p.closed && len(b) > 0 && b[len(b)-1] == '\n' {
		p.drawLocked()
	}
	return n, err
}
