package analyze_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/analyze"
	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/internal/testenv"
)

// ingestTo ingests input into a trace file in a temporary directory.
func ingestTo(t *testing.T, input string, opts ingest.Options) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "trace.parquet")
	if _, err := ingest.Run(context.Background(), []string{input}, out, opts); err != nil {
		t.Fatalf("ingest %s: %v", input, err)
	}
	return out
}

// TestAnalyze_Formats analyzes a trace of every format ingest reads and
// checks that each section is there or says why it is absent.
func TestAnalyze_Formats(t *testing.T) {
	tests := []struct {
		Name, Input string
		// Absent maps a section to a phrase of its absence message;
		// Notes a section to a phrase of one of its notes.
		Absent, Notes map[string]string
		// NotOnPage are phrases the page must not say.
		NotOnPage []string
	}{
		{Name: "SWF", Input: "../ingest/testdata/swf/small.swf",
			// the header's MaxNodes is the capacity; chains are not matched by
			// account, which the trace lacks
			Notes: map[string]string{"volume": "no job has an account", "chains": "No job has a name or an account",
				"utilisation": "Capacity: 100 nodes, from the trace's header (MaxNodes)"},
			NotOnPage: []string{"inferred (the trace has no node count)", "matched by account"}},
		{Name: "Mirage", Input: "../ingest/testdata/mirage/basic.txt",
			Notes: map[string]string{"waits": "no job has a QOS"}},
		{Name: "SacctParsable2", Input: "../ingest/testdata/sacct/p2_full.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			opts := ingest.Options{Location: time.UTC}
			path := ingestTo(t, tt.Input, opts)
			dir := t.TempDir()
			a, err := analyze.Run(context.Background(), path, dir, analyze.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Sections) != 7 {
				t.Fatalf("got %d sections, want 7", len(a.Sections))
			}
			for id, phrase := range tt.Absent {
				if s := a.Section(id); !strings.Contains(s.Absent, phrase) {
					t.Errorf("section %s: absent %q, want it to say %q", id, s.Absent, phrase)
				}
			}
			for id, phrase := range tt.Notes {
				if s := a.Section(id); !strings.Contains(strings.Join(s.Notes, " "), phrase) {
					t.Errorf("section %s: notes %q, want one to say %q", id, s.Notes, phrase)
				}
			}
			page, err := os.ReadFile(filepath.Join(dir, analyze.Page))
			if err != nil {
				t.Fatal(err)
			}
			for _, phrase := range tt.NotOnPage {
				if strings.Contains(string(page), phrase) {
					t.Errorf("page says %q", phrase)
				}
			}
			for _, s := range a.Sections {
				if s.Absent != "" && !strings.Contains(string(page), "Absent: "+s.Absent) {
					t.Errorf("page does not say why section %s is absent", s.ID)
				}
			}
		})
	}
}

// TestAnalyze_SlurmCaptures runs the chain detector on the real Slurm
// captures (sacct --json of a local Slurm where jobs were chained with
// --dependency): the dependency-held jobs are counted and none of them
// is a service chain (their predecessors finished well within their
// limits).
func TestAnalyze_SlurmCaptures(t *testing.T) {
	in := testenv.Shared(t, "slurm/sacct_all.json")
	path := ingestTo(t, in, ingest.Options{Location: time.UTC})
	o := analyze.DefaultOptions()
	o.Figures = false
	a, err := analyze.Analyze(context.Background(), path, o)
	if err != nil {
		t.Fatal(err)
	}
	s := a.ChainSummary
	if s.DependencyJobs == 0 {
		t.Errorf("no dependency-held jobs found in %s", in)
	}
	t.Logf("captures: %d jobs, %d held by a dependency, %d linked; %d chains, %d links", a.Jobs, s.DependencyJobs, s.DependencyLinked, s.Chains, s.Links)
}
