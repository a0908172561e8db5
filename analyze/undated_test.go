package analyze_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/analyze"
	"github.com/mirage-hpc/mirage/trace"
)

// TestPage_Undated: a trace whose jobs have no submit time gets
// "submission dates unknown" on its page, as the report says, never
// 1970-01-01 (the Unix epoch of a zero time).
func TestPage_Undated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "undated.parquet")
	w, err := trace.Create(path, trace.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3 {
		j := trace.NewJob()
		j.JobID, j.User, j.NNodes, j.TimelimitSec = string(rune('a'+i)), "u", 1, 3600
		j.Start, j.End = t0.Add(time.Duration(i)*time.Hour), t0.Add(time.Duration(i)*time.Hour+30*time.Minute)
		if err := w.Write(&j); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	o := handOptions()
	if _, err := analyze.Run(context.Background(), path, dir, o); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, analyze.Page))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	if !strings.Contains(page, "submission dates unknown (no job has a submit time)") {
		t.Error("page does not say the submission dates are unknown")
	}
	if strings.Contains(page, "1970-01-01") {
		t.Error("page shows 1970-01-01")
	}
}
