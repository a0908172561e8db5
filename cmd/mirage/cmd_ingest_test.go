package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// swfNoHeader is a header-less SWF input: a completed job whose wait time
// is known, one whose wait time is -1 (start unknown), and one cancelled
// before it started.
const swfNoHeader = `1 0 5 100 8 -1 -1 8 300 -1 1 7 3 -1 1 1 -1 -1
2 10 -1 300 4 -1 -1 4 300 -1 1 7 3 -1 1 1 -1 -1
3 20 -1 -1 -1 -1 -1 2 300 -1 5 8 3 -1 1 1 -1 -1
`

// startUnknownNote is ingest's note about job 2 of swfNoHeader.
const startUnknownNote = "1 job has a wait time of -1 but a known run time: it ran from an unknown start (start_unknown), and is left out of waits"

func writeSWF(t *testing.T) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "in.swf")
	if err := os.WriteFile(path, []byte(swfNoHeader), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

func TestIngest_StartTime(t *testing.T) {
	tests := []struct {
		Name  string
		Args  []string
		Notes []string
	}{
		{
			Name:  "Anchored",
			Args:  []string{"--start-time", "2006-01-02T15:04:05Z", "--cores-per-node", "4"},
			Notes: []string{"no UnixStartTime header: times count from --start-time 2006-01-02T15:04:05Z (UnixStartTime 1136214245)", startUnknownNote},
		},
		{
			Name: "Unanchored",
			Notes: []string{
				"no UnixStartTime header: times count from the Unix epoch, so dates are relative to 1970-01-01T00:00:00Z; pass --start-time to anchor them",
				"cores per node unknown (no MaxProcs/MaxNodes header): each processor was taken as a node (NNodes = NCPUs); pass --cores-per-node to set it",
				startUnknownNote,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			dir, in := writeSWF(t)
			out := filepath.Join(dir, "o.parquet")
			stdout, stderr, code := run(t, append([]string{"ingest", "-o", out, in, "--json"}, tt.Args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var s struct {
				Jobs     int
				Balanced bool
				Inputs   []struct{ Notes []string }
			}
			if err := json.Unmarshal([]byte(stdout), &s); err != nil {
				t.Fatal(err)
			}
			if s.Jobs != 3 || !s.Balanced || len(s.Inputs) != 1 || strings.Join(s.Inputs[0].Notes, "\n") != strings.Join(tt.Notes, "\n") {
				t.Errorf("summary = %s\nwant 3 jobs, balanced, notes %q", stdout, tt.Notes)
			}
			stdout, _, code = run(t, append([]string{"ingest", "-o", out, in, "--progress=false"}, tt.Args...)...)
			if code != 0 || !strings.Contains(stdout, "  note: "+in+": "+tt.Notes[0]+"\n") {
				t.Errorf("exit %d, text summary without the note %q:\n%s", code, tt.Notes[0], stdout)
			}
		})
	}
}

func TestIngest_StartTimeErrors(t *testing.T) {
	dir, in := writeSWF(t)
	out := filepath.Join(dir, "o.parquet")
	tests := []struct {
		Name string
		Args []string
		Msg  string
	}{
		{"ErrNotRFC3339", []string{"--start-time", "2006-01-02"}, `--start-time "2006-01-02": want RFC 3339`},
		{"ErrBeforeEpoch", []string{"--start-time", "1969-12-31T23:59:59Z"}, "before 1970-01-01T00:00:00Z"},
		{"ErrNegativeCores", []string{"--cores-per-node", "-2"}, "--cores-per-node -2"},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			_, stderr, code := run(t, append([]string{"ingest", "-o", out, in}, tt.Args...)...)
			if code != exitUsage || !strings.Contains(stderr, tt.Msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tt.Msg)
			}
		})
	}
}
