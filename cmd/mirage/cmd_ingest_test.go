package main

import (
	"bytes"
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

// TestIngest_OutputIsInput checks that an output or quarantine path that
// names an input (by name, hard link or symbolic link) is refused before
// any work, with exit status 3, and the input is left as it was.
func TestIngest_OutputIsInput(t *testing.T) {
	tests := []struct {
		Name string
		Args func(dir, in string) []string
		Msg  string
	}{
		{"SamePath", func(dir, in string) []string { return []string{"-o", in, in} }, "the output " + "%IN% is the input"},
		{"OtherSpelling", func(dir, in string) []string {
			return []string{"-o", filepath.Join(dir, ".", "sub", "..", "in.sacct"), in}
		}, "is the input"},
		{"HardLink", func(dir, in string) []string {
			link := filepath.Join(dir, "link.parquet")
			if err := os.Link(in, link); err != nil {
				t.Skip(err)
			}
			return []string{"-o", link, in}
		}, "is the input"},
		{"SymLink", func(dir, in string) []string {
			link := filepath.Join(dir, "sym.parquet")
			if err := os.Symlink(in, link); err != nil {
				t.Skip(err)
			}
			return []string{"-o", link, in}
		}, "is the input"},
		{"Quarantine", func(dir, in string) []string {
			return []string{"-o", filepath.Join(dir, "o.parquet"), "--quarantine", in, in}
		}, "the quarantine file %IN% is the input"},
		{"SecondInput", func(dir, in string) []string {
			other := filepath.Join(dir, "other.sacct")
			os.WriteFile(other, []byte(sample), 0o644)
			return []string{"-o", other, in, other}
		}, "is the input"},
		{"QuarantineIsOutput", func(dir, in string) []string {
			out := filepath.Join(dir, "o.parquet")
			return []string{"-o", out, "--quarantine", out, in}
		}, "the output and the quarantine file are both"},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			dir, in := writeSample(t)
			os.Mkdir(filepath.Join(dir, "sub"), 0o755)
			args := append([]string{"ingest"}, tt.Args(dir, in)...)
			_, stderr, code := run(t, args...)
			msg := strings.ReplaceAll(tt.Msg, "%IN%", in)
			if code != exitUsage || !strings.Contains(stderr, msg) || !strings.Contains(stderr, "output is an input") {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, msg)
			}
			if b, err := os.ReadFile(in); err != nil || string(b) != sample {
				t.Errorf("input changed: %q, %v", b, err)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") || strings.HasSuffix(e.Name(), ".parquet") && e.Type().IsRegular() && e.Name() != "link.parquet" {
					t.Errorf("left %s", e.Name())
				}
			}
		})
	}
}

// TestIngest_FailedRunKeepsOutputs checks that a run that fails after
// reading (a duplicate job across two inputs under --strict; every row
// quarantined) leaves the previous output and quarantine file byte for
// byte, and no temporary file.
func TestIngest_FailedRunKeepsOutputs(t *testing.T) {
	const header = "JobID|State|Submit|Start|End\n"
	const a = header + "1|COMPLETED|2023-01-01T00:00:00|2023-01-01T00:10:00|2023-01-01T01:00:00\n" +
		"2|BOGUS|2023-01-01T00:00:00|2023-01-01T00:10:00|2023-01-01T01:00:00\n"
	const b = header + "1|COMPLETED|2023-01-01T00:00:00|2023-01-01T00:10:00|2023-01-01T01:00:00\n"
	const bad = header + "3|BOGUS|2023-01-01T00:00:00|2023-01-01T00:10:00|2023-01-01T01:00:00\n"
	tests := []struct {
		Name   string
		Inputs []string
		Args   []string
		Msg    string
	}{
		{"StrictDuplicate", []string{"b.txt", "c.txt"}, []string{"--strict"}, "duplicate job"},
		{"StrictBadRow", []string{"a.txt"}, []string{"--strict"}, "invalid job state"},
		{"AllQuarantined", []string{"bad.txt"}, nil, "no jobs: every row was quarantined"},
		{"MissingInput", []string{"b.txt", "missing.txt"}, nil, "missing.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range map[string]string{"a.txt": a, "b.txt": b, "c.txt": b, "bad.txt": bad} {
				writeFile(t, filepath.Join(dir, name), content)
			}
			out := filepath.Join(dir, "keep.parquet")
			qpath := filepath.Join(dir, "keep.quarantine.jsonl")
			// A first, successful run makes the outputs to keep.
			if _, stderr, code := run(t, "ingest", "-o", out, filepath.Join(dir, "a.txt")); code != 0 {
				t.Fatalf("first run: exit %d: %s", code, stderr)
			}
			oldOut, _ := os.ReadFile(out)
			oldQ, _ := os.ReadFile(qpath)
			if len(oldOut) == 0 || len(oldQ) == 0 {
				t.Fatalf("first run wrote %d and %d bytes", len(oldOut), len(oldQ))
			}
			before, _ := os.ReadDir(dir)
			args := append([]string{"ingest", "-o", out}, tt.Args...)
			for _, in := range tt.Inputs {
				args = append(args, filepath.Join(dir, in))
			}
			_, stderr, code := run(t, args...)
			if code == 0 || !strings.Contains(stderr, tt.Msg) {
				t.Errorf("exit %d, stderr %q; want a failure saying %q", code, stderr, tt.Msg)
			}
			if got, _ := os.ReadFile(out); !bytes.Equal(got, oldOut) {
				t.Errorf("output changed (%d bytes, was %d)", len(got), len(oldOut))
			}
			if got, _ := os.ReadFile(qpath); !bytes.Equal(got, oldQ) {
				t.Errorf("quarantine changed: %q, was %q", got, oldQ)
			}
			if after, _ := os.ReadDir(dir); len(after) != len(before) {
				t.Errorf("files before %v, after %v", before, after)
			}
		})
	}
}

// TestIngest_NoJobs checks the text summary of a run whose every row is
// quarantined: exit status 2, the summary first, nothing written; with
// --allow-empty exit 0 and both files written.
func TestIngest_NoJobs(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	writeFile(t, in, "JobID|State\n1|BOGUS\n2|ALSO_BOGUS\n")
	out := filepath.Join(dir, "o.parquet")
	stdout, stderr, code := run(t, "ingest", "--progress=false", "-o", out, in)
	if code != exitBadInput || !strings.Contains(stdout, "but wrote nothing: every row was quarantined") ||
		!strings.Contains(stdout, "quarantined   2") || !strings.Contains(stderr, "pass --allow-empty") ||
		!strings.Contains(stderr, in+`:2: State: invalid job state: "BOGUS"`) {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("output written")
	}
	stdout, stderr, code = run(t, "ingest", "--progress=false", "--allow-empty", "-o", out, in)
	if code != 0 || !strings.Contains(stdout, "into "+out) {
		t.Errorf("--allow-empty: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	for _, p := range []string{out, filepath.Join(dir, "o.quarantine.jsonl")} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
}
