package trace

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// textWrap is the width at which WriteText wraps lists (node counts,
// months) onto continuation lines.
const textWrap = 100

// WriteJSON writes s as indented JSON followed by a newline, without
// escaping HTML characters ("<=1h", not "\u003c=1h").
func (s Stats) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteText writes s as a compact, aligned report for people, one figure
// per line, followed by one indented section per partition. Durations
// carry their unit: seconds below a minute ("25s"), minutes below an hour
// ("7.7m"), hours above ("11.92h"). A "start unknown" line, present only
// when some jobs ran from an unknown start, counts them and says that the
// wait line leaves them out; a trace with jobs but no known wait says so
// on the wait line instead of giving figures. The format may change; use
// the JSON form for machines.
func (s Stats) WriteText(w io.Writer) error {
	if err := writeTextSection(w, &s, ""); err != nil {
		return err
	}
	for i := range s.Partitions {
		p := &s.Partitions[i]
		name := p.Partition
		if name == "" {
			name = `""`
		}
		if _, err := fmt.Fprintf(w, "\npartition %s\n", name); err != nil {
			return err
		}
		if err := writeTextSection(w, &p.Stats, "  "); err != nil {
			return err
		}
	}
	return nil
}

// writeTextSection writes everything but the partitions, each line
// prefixed with indent.
func writeTextSection(w io.Writer, s *Stats, indent string) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	line := func(label string, cells ...string) {
		fmt.Fprintf(tw, "%s%s\t%s\n", indent, label, strings.Join(cells, "\t"))
	}
	line("jobs", strconv.FormatInt(s.Jobs, 10))
	line("submit", textTime(s.FirstSubmit)+" .. "+textTime(s.LastSubmit))
	line("users", strconv.FormatInt(s.Users, 10))
	if s.WaitSec.N == 0 && s.Jobs > 0 {
		line("wait", fmt.Sprintf("-  (no job has a known wait: %d ran from a start the trace did not record, %d never ran)", s.StartUnknown, s.CancelledPending))
	} else {
		line("wait", textQuantiles(s.WaitSec)...)
	}
	line("run", textQuantiles(s.RunSec)...)
	line("limit", textQuantiles(s.TimelimitSec)...)
	line("at limit", textShare(s.TimeoutJobs, s.Jobs))
	line("never ran", textShare(s.CancelledPending, s.Jobs))
	if s.StartUnknown > 0 {
		line("start unknown", textShare(s.StartUnknown, s.Jobs)+"  ran; not in wait")
	}
	buckets := make([]string, len(s.Timelimit))
	for i, b := range s.Timelimit {
		buckets[i] = b.Bucket + " " + strconv.FormatInt(b.Jobs, 10)
	}
	textList(line, indent, "limits", buckets)
	nodes := make([]string, len(s.Nodes))
	for i, n := range s.Nodes {
		nodes[i] = strconv.Itoa(int(n.Nodes)) + ":" + strconv.FormatInt(n.Jobs, 10)
	}
	textList(line, indent, "nodes", nodes)
	months := make([]string, len(s.SubmitMonths))
	for i, m := range s.SubmitMonths {
		months[i] = m.Month + ":" + strconv.FormatInt(m.Jobs, 10)
	}
	textList(line, indent, "months", months)
	return tw.Flush()
}

// textList writes items after label, separated by two spaces and wrapped
// onto continuation lines (with an empty label) near textWrap columns.
func textList(line func(string, ...string), indent, label string, items []string) {
	var b strings.Builder
	for _, it := range items {
		if b.Len() > 0 && len(indent)+12+b.Len()+2+len(it) > textWrap {
			line(label, b.String())
			label = ""
			b.Reset()
		}
		if b.Len() > 0 {
			b.WriteString("  ")
		}
		b.WriteString(it)
	}
	line(label, b.String())
}

func textQuantiles(q Quantiles) []string {
	if q.N == 0 {
		return []string{"-"}
	}
	return []string{
		"p50 " + textSec(q.P50),
		"p75 " + textSec(q.P75),
		"p90 " + textSec(q.P90),
		"p99 " + textSec(q.P99),
		"mean " + textSec(q.Mean),
		"n " + strconv.FormatInt(q.N, 10),
	}
}

// textSec formats seconds with a unit: "25s", "0.5s", "7.7m", "11.92h".
func textSec(sec float64) string {
	switch a := math.Abs(sec); {
	case a < 59.95:
		return strconv.FormatFloat(math.Round(sec*10)/10, 'f', -1, 64) + "s"
	case a < 3597:
		return strconv.FormatFloat(sec/60, 'f', 1, 64) + "m"
	default:
		return strconv.FormatFloat(sec/3600, 'f', 2, 64) + "h"
	}
}

func textShare(n, of int64) string {
	if of == 0 {
		return strconv.FormatInt(n, 10)
	}
	return fmt.Sprintf("%d (%.2f%%)", n, 100*float64(n)/float64(of))
}

func textTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
