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
// self-overwriting line, redrawn at each set; elsewhere the latest
// status, with the time elapsed, as a plain line every interval. It is
// safe for concurrent use.
type progressBar struct {
	w        io.Writer
	on       bool // anything is shown
	term     bool // w is a terminal
	interval time.Duration

	mu     sync.Mutex
	line   string
	drawn  bool
	began  time.Time
	stop   chan struct{}
	done   chan struct{}
	closed bool
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
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.term = true
		}
	}
	p.on = m == progressAlways || m == progressAuto && !jsonOut
	if p.on && !p.term {
		p.start()
	}
	return p
}

// start prints the latest status every interval until finish.
func (p *progressBar) start() {
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.done)
		t := time.NewTicker(p.interval)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.mu.Lock()
				if p.line != "" && !p.closed {
					fmt.Fprintf(p.w, "%s (%s elapsed)\n", p.line, time.Since(p.began).Round(time.Second))
				}
				p.mu.Unlock()
			}
		}
	}()
}

// set makes the status the formatted line (without a newline).
func (p *progressBar) set(format string, args ...any) {
	if !p.on {
		return
	}
	line := fmt.Sprintf(format, args...)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.line = line
	if p.term {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		p.drawn = true
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
	return func(done, total int) { p.set("%s %d/%d windows", what, done, total) }
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
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
	p.mu.Unlock()
	if p.stop != nil {
		close(p.stop)
		<-p.done
	}
}
