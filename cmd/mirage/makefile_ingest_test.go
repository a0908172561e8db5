package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/ingest"
)

// TestMakefile_IngestOptions checks that `make run TRACE=...` passes the
// ingest options it is given, and only those, and that the shell's
// COLUMNS (the terminal width, often exported) is not taken for a
// column map.
func TestMakefile_IngestOptions(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	opts := func(env []string, args ...string) string {
		cmd := exec.Command("make", append([]string{"-s", "-C", "../..", "ingest-options"}, args...)...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("make ingest-options %q: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	if got := opts([]string{"TZ="}); got != "" {
		t.Errorf("no options: make passes %q", got)
	}
	got := opts([]string{"TZ="}, "START=1996-09-23T12:00:31Z", "CORES=4", "FORMAT=swf", "COLUMNS=eagle", "TZ=UTC")
	if want := "--tz UTC --start-time 1996-09-23T12:00:31Z --cores-per-node 4 --format swf --columns eagle"; got != want {
		t.Errorf("make passes %q\nwant %q", got, want)
	}
	if got := opts([]string{"TZ=", "COLUMNS=132"}); got != "" {
		t.Errorf("COLUMNS from the environment: make passes %q", got)
	}
	help, err := exec.Command("make", "-s", "-C", "../..", "help").Output()
	if err != nil {
		t.Fatalf("make help: %v", err)
	}
	for _, w := range []string{"START, an SWF trace's start", "CORES, an SWF", "FORMAT (auto, sacct", "COLUMNS, a CSV export's", "--keep-current"} {
		if !strings.Contains(string(help), w) {
			t.Errorf("make help does not document %q:\n%s", w, help)
		}
	}
}

// TestMakefile_KeepsHandIngest runs make run's ingest step on a
// header-less, gzipped SWF trace: START and CORES anchor it; a user's
// later hand-run ingest of the same file survives the next make run
// without options (and with the same ones), and different options
// ingest again.
func TestMakefile_KeepsHandIngest(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	bin := mirageBinary(t)
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(swfNoHeader))
	zw.Close()
	in := filepath.Join(dir, "X-1.2.swf.gz")
	if err := os.WriteFile(in, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	pq := filepath.Join(out, "X-1.2.parquet")
	mk := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("make", append([]string{"-s", "-C", "../..", "trace-ingest", "TRACE=" + in, "OUT=" + out, "BIN=" + bin, "RUN_LOG=--log-level info --progress never"}, args...)...)
		cmd.Env = append(os.Environ(), "TZ=")
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make trace-ingest %q: %v\n%s", args, err, b)
		}
		return string(b)
	}
	record := func() ingest.Record {
		t.Helper()
		r, err := ingest.ReadRecord(pq)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// The first make run anchors the header-less trace.
	if o := mk("START=1996-09-23T12:00:31Z", "CORES=4"); !strings.Contains(o, "ingested 1 input (swf) into "+pq) {
		t.Fatalf("first make run:\n%s", o)
	}
	if r := record(); r.StartTime != "1996-09-23T12:00:31Z" || r.CoresPerNode != 4 || r.Cluster != "X-1.2" || r.TZ != "America/Chicago" {
		t.Errorf("record of make's ingest: %+v", r)
	}
	// The user fixes the start by hand.
	cmd := exec.Command(bin, "ingest", "--progress", "never", "--start-time", "1996-09-24T00:00:00Z", "--cores-per-node", "2", "-o", pq, in)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hand-run ingest: %v\n%s", err, b)
	}
	hand, err := os.ReadFile(pq)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{nil, {"START=1996-09-24T00:00:00Z"}, {"CORES=2", "FORMAT=swf", "TZ=Europe/Stockholm"}} {
		if o := mk(args...); !strings.Contains(o, "kept "+pq) {
			t.Errorf("make run %q after a hand-run ingest:\n%s\nwant it kept", args, o)
		}
		if b, _ := os.ReadFile(pq); !bytes.Equal(b, hand) {
			t.Fatalf("make run %q replaced the hand-run ingest", args)
		}
	}
	// Other options than the hand-run's: make ingests again, and says why.
	o := mk("START=1996-09-23T12:00:31Z")
	if !strings.Contains(o, "ingesting again") || !strings.Contains(o, "--start-time 1996-09-24T00:00:00Z (given 1996-09-23T12:00:31Z)") || !strings.Contains(o, "ingested 1 input") {
		t.Errorf("make run with another START:\n%s", o)
	}
	if r := record(); r.StartTime != "1996-09-23T12:00:31Z" || r.CoresPerNode != 0 {
		t.Errorf("record after make's second ingest: %+v", r)
	}
}
