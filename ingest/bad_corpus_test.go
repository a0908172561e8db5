package ingest_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/ingest"
)

// TestRun_BadCorpus runs Run on every case of testdata/bad/cases.txt that
// needs no CLI flag parsing and checks the outcome the manifest gives: an
// input error for exit status 2, success with the given counts for 0. (The
// CLI runs the whole corpus, exit statuses and messages included, in
// cmd/mirage TestIngest_BadCorpus.)
func TestRun_BadCorpus(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "bad", "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		p := strings.Split(text, " | ")
		if len(p) != 6 {
			t.Fatalf("cases.txt:%d: %d fields", line, len(p))
		}
		for i := range p {
			p[i] = strings.TrimSpace(p[i])
		}
		var opts ingest.Options
		cli := false
		args := strings.Fields(p[2])
		for i := 0; i < len(args); i++ {
			switch args[i] {
			case "--strict":
				opts.Strict = true
			case "--allow-empty":
				opts.AllowEmpty = true
			default:
				cli = true // a flag the CLI checks (--row-group-rows)
			}
		}
		if cli || p[3] == "3" {
			continue
		}
		n++
		t.Run(p[0], func(t *testing.T) {
			dir := t.TempDir()
			var inputs []string
			for _, in := range strings.Split(p[1], ",") {
				inputs = append(inputs, filepath.Join("testdata", "bad", strings.TrimSpace(in)))
			}
			sum, err := ingest.Run(context.Background(), inputs, filepath.Join(dir, "o.parquet"), opts)
			switch p[3] {
			case "0":
				if err != nil {
					t.Fatalf("cases.txt:%d: %v", line, err)
				}
			case "2":
				if err == nil || !ingest.IsInputError(err) {
					t.Fatalf("cases.txt:%d: err = %v, want an input error", line, err)
				}
				assertNoOutput(t, dir)
			}
			if p[4] == "-" {
				return
			}
			var want [5]int64
			for i, s := range strings.Fields(p[4]) {
				want[i], _ = strconv.ParseInt(s, 10, 64)
			}
			got := [5]int64{sum.RowsRead, sum.Jobs, sum.StepsFolded, sum.Quarantined, sum.Repaired}
			if got != want || !sum.Balanced {
				t.Errorf("cases.txt:%d: counts %v (balanced %v), want %v", line, got, sum.Balanced, want)
			}
		})
	}
	if n < 40 {
		t.Errorf("%d cases run, want at least 40", n)
	}
}
