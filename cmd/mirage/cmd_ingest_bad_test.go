package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/internal/testenv"
	"github.com/mirage-hpc/mirage/trace"
)

// badDir holds the malformed-input corpus and its manifest, cases.txt.
const badDir = "../../ingest/testdata/bad"

// badCase is one line of cases.txt.
type badCase struct {
	Name   string
	Inputs []string
	Args   []string
	Exit   int
	Counts *[5]int64 // rows_read jobs steps_folded quarantined repaired; nil: no summary
	Msg    string
	Line   int
}

func readBadCases(t *testing.T) []badCase {
	t.Helper()
	f, err := os.Open(filepath.Join(badDir, "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []badCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		parts := strings.Split(line, " | ")
		if len(parts) != 6 {
			t.Fatalf("cases.txt:%d: %d fields, want 6", n, len(parts))
		}
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		c := badCase{Name: parts[0], Args: strings.Fields(parts[2]), Msg: parts[5], Line: n}
		for _, in := range strings.Split(parts[1], ",") {
			c.Inputs = append(c.Inputs, filepath.Join(badDir, strings.TrimSpace(in)))
		}
		if c.Exit, err = strconv.Atoi(parts[3]); err != nil {
			t.Fatalf("cases.txt:%d: exit status: %v", n, err)
		}
		if parts[4] != "-" {
			f := strings.Fields(parts[4])
			if len(f) != 5 {
				t.Fatalf("cases.txt:%d: counts %q: want 5 numbers or -", n, parts[4])
			}
			var counts [5]int64
			for i, s := range f {
				if counts[i], err = strconv.ParseInt(s, 10, 64); err != nil {
					t.Fatalf("cases.txt:%d: counts: %v", n, err)
				}
			}
			c.Counts = &counts
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestIngest_BadCorpus runs mirage ingest on every case of the malformed-
// input corpus and checks the exit status, the counts, the message, that
// a failed run leaves the previous outputs as they were, and that an
// accepted run's output is readable (by trace.Open, and by DuckDB when
// scripts/duckdb.sh can run without a download).
func TestIngest_BadCorpus(t *testing.T) {
	cases := readBadCases(t)
	if len(cases) < 40 {
		t.Errorf("%d cases, want at least 40", len(cases))
	}
	outDir := t.TempDir()
	var accepted []string // outputs for DuckDB, with their job counts
	var acceptedJobs []int64
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.parquet")
			qpath := filepath.Join(dir, "out.quarantine.jsonl")
			const oldOut, oldQ = "previous trace", "previous quarantine\n"
			writeFile(t, out, oldOut)
			writeFile(t, qpath, oldQ)
			args := append([]string{"ingest", "--json", "-o", out}, tt.Args...)
			stdout, stderr, code := run(t, append(args, tt.Inputs...)...)
			say := stdout + "\n" + decodeErrorLine(stderr)
			if b, err := os.ReadFile(qpath); err == nil && string(b) != oldQ {
				say += "\n" + quarantineText(t, b)
			}
			if code != tt.Exit {
				t.Errorf("cases.txt:%d: exit %d, want %d\nstdout: %s\nstderr: %s", tt.Line, code, tt.Exit, stdout, stderr)
			}
			for _, msg := range strings.Split(tt.Msg, " && ") {
				if !strings.Contains(say, msg) {
					t.Errorf("cases.txt:%d: output lacks %q:\n%s", tt.Line, msg, say)
				}
			}
			if !utf8.ValidString(stdout) || !utf8.ValidString(stderr) {
				t.Errorf("cases.txt:%d: output is not valid UTF-8:\n%q\n%q", tt.Line, stdout, stderr)
			}
			if tt.Counts != nil {
				checkBadCounts(t, tt, stdout)
			}
			if code != 0 {
				for path, want := range map[string]string{out: oldOut, qpath: oldQ} {
					if b, err := os.ReadFile(path); err != nil || string(b) != want {
						t.Errorf("cases.txt:%d: failed run changed %s: %q, %v", tt.Line, filepath.Base(path), b, err)
					}
				}
				if entries, _ := os.ReadDir(dir); len(entries) != 2 {
					t.Errorf("cases.txt:%d: failed run left files: %v", tt.Line, entries)
				}
				return
			}
			r, err := trace.Open(out)
			if err != nil {
				t.Fatalf("cases.txt:%d: %v", tt.Line, err)
			}
			n := r.NumRows()
			r.Close()
			if tt.Counts != nil && n != tt.Counts[1] {
				t.Errorf("cases.txt:%d: trace has %d rows, summary says %d jobs", tt.Line, n, tt.Counts[1])
			}
			keep := filepath.Join(outDir, tt.Name+".parquet")
			if err := os.Rename(out, keep); err != nil {
				t.Fatal(err)
			}
			accepted = append(accepted, keep)
			acceptedJobs = append(acceptedJobs, n)
		})
	}
	checkDuckDB(t, accepted, acceptedJobs)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// decodeErrorLine returns s with each --json error line replaced by its
// "error" text.
func decodeErrorLine(s string) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		var e struct{ Error string }
		if json.Unmarshal([]byte(line), &e) == nil && e.Error != "" {
			lines[i] = e.Error
		}
	}
	return strings.Join(lines, "\n")
}

// quarantineText formats a quarantine file's records as
// "file:line: field: reason", one a line.
func quarantineText(t *testing.T, b []byte) string {
	t.Helper()
	var sb strings.Builder
	dec := json.NewDecoder(bytes.NewReader(b))
	for dec.More() {
		var r ingest.QuarantineRecord
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("quarantine file: %v", err)
		}
		fmt.Fprintf(&sb, "%s:%d: %s: %s\n", r.File, r.Line, r.Field, r.Reason)
	}
	return sb.String()
}

func checkBadCounts(t *testing.T, tt badCase, stdout string) {
	t.Helper()
	var s ingest.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("cases.txt:%d: summary: %v\n%s", tt.Line, err, stdout)
	}
	got := [5]int64{s.RowsRead, s.Jobs, s.StepsFolded, s.Quarantined, s.Repaired}
	if got != *tt.Counts {
		t.Errorf("cases.txt:%d: counts (rows jobs steps quarantined repaired) = %v, want %v", tt.Line, got, *tt.Counts)
	}
	if !s.Balanced || s.RowsRead != s.Jobs+s.StepsFolded+s.Quarantined {
		t.Errorf("cases.txt:%d: counts do not balance: %+v", tt.Line, s)
	}
}

// checkDuckDB reads every accepted output with DuckDB, every column of
// every row, when scripts/duckdb.sh has its package (no download in tests).
// With MIRAGE_DUCKDB_REQUIRED=1 (make check-parquet) a missing DuckDB
// fails the test instead of skipping the check.
func checkDuckDB(t *testing.T, paths []string, jobs []int64) {
	t.Helper()
	testenv.DuckDB(t) // skips (or fails) without DuckDB
	if len(paths) == 0 {
		return
	}
	var queries []string
	for _, p := range paths {
		queries = append(queries, fmt.Sprintf("SELECT count(*)::INTEGER AS n, length(string_agg(CAST(t AS VARCHAR), '|'))::INTEGER AS chars FROM '%s' t", p))
	}
	for i, line := range testenv.DuckDB(t, queries...) {
		var rows []struct{ N int64 }
		if err := json.Unmarshal([]byte(line), &rows); err != nil || len(rows) != 1 || rows[0].N != jobs[i] {
			t.Errorf("DuckDB on %s: %s (%v), want %d rows", filepath.Base(paths[i]), line, err, jobs[i])
		}
	}
	t.Logf("DuckDB read the %d accepted outputs", len(paths))
}

// TestIngest_AllowEmptyConfig: ingest.allow_empty in a config file does
// what --allow-empty does.
func TestIngest_AllowEmptyConfig(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join("..", "..", "ingest", "testdata", "bad", "sacct_all_quarantined.txt")
	out := filepath.Join(dir, "t.parquet")
	if _, _, code := run(t, "ingest", "-o", out, in); code != 2 {
		t.Fatalf("without allow_empty: exit %d, want 2", code)
	}
	cfg := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfg, []byte("ingest:\n  allow_empty: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, "ingest", "--config", cfg, "-o", out, in); code != 0 {
		t.Fatalf("with ingest.allow_empty: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
}
