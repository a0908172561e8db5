package reports

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/trace"
)

// TestRender_TraceSpan: the header states the trace's submission span
// from its known submit times, and "unknown" when no job has one (a
// trace whose submit fields were all -1), never a zero date.
func TestRender_TraceSpan(t *testing.T) {
	undated := filepath.Join(t.TempDir(), "u.parquet")
	w, err := trace.Create(undated, trace.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		j := trace.NewJob()
		j.JobID, j.StartUnknown, j.ElapsedSec = string(rune('a'+i)), true, 60
		if err := w.Write(&j); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		trace, want string
	}{
		{writeTrace(t, 5, true), "jobs submitted " + time.Unix(1_700_000_000, 0).UTC().Format("2006-01-02") + " to " +
			time.Unix(1_700_000_000+4*86400, 0).UTC().Format("2006-01-02")},
		{undated, "submission dates unknown (no job has a submit time) (3 jobs)"},
	} {
		rep, page := renderPage(t, groundedRows(1), Options{Trace: c.trace})
		if !strings.Contains(page, c.want) {
			t.Errorf("%s: the page lacks %q", c.trace, c.want)
		}
		if strings.Contains(page, "0001-01-01") || strings.Contains(page, "1970-01-01") {
			t.Errorf("%s: the page shows a zero date", c.trace)
		}
		if rep.Study.TraceFirst == "" != (c.trace == undated) {
			t.Errorf("%s: TraceFirst %q", c.trace, rep.Study.TraceFirst)
		}
	}
}
