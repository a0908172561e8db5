package ingest_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/internal/digest"
	"github.com/mirage-hpc/mirage/trace"
)

// TestRun_NamesInputs: the trace records each input by its base name
// (NAME#N when two inputs share one) and its file's sha256 (of the bytes
// as stored, compressed or not), in source_file, the quarantine file and
// the mirage.ingest metadata, never by its path; the summary keeps the
// path as given.
func TestRun_NamesInputs(t *testing.T) {
	root := t.TempDir()
	sample := strings.SplitAfter(string(readFixture(t, "testdata", "sacct", "p2_sample.txt")), "\n")
	header, rows := sample[0], sample[1:len(sample)-1]
	os.MkdirAll(filepath.Join(root, "x"), 0o755)
	os.MkdirAll(filepath.Join(root, "y"), 0o755)
	a := writeFile(t, filepath.Join(root, "x"), "in.txt", []byte(header+strings.Join(rows[:10], "")))
	b := writeFile(t, filepath.Join(root, "y"), "in.txt", []byte(header+strings.Join(rows[10:20], "")+"99|bad|row\n"))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(header + strings.Join(rows[20:], "")))
	zw.Close()
	c := writeFile(t, root, "more.txt.gz", gz.Bytes())
	out := filepath.Join(root, "out.parquet")
	sum, err := ingest.Run(context.Background(), []string{a, b, c}, out, ingest.Options{Cluster: "localtest"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"in.txt#1", "in.txt#2", "more.txt.gz"}
	for i, in := range sum.Inputs {
		d, err := digest.File([]string{a, b, c}[i])
		if err != nil {
			t.Fatal(err)
		}
		if in.Path != []string{a, b, c}[i] || in.Name != want[i] || in.SHA256 != d {
			t.Errorf("input %d: path %q name %q sha256 %s; want %q, %q, %s", i, in.Path, in.Name, in.SHA256, []string{a, b, c}[i], want[i], d)
		}
	}
	r, err := trace.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	meta, _ := r.Metadata(ingest.MetaIngest)
	r.Close()
	var m struct {
		Inputs []map[string]string `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(meta), &m); err != nil || len(m.Inputs) != 3 {
		t.Fatalf("metadata %s: %v", meta, err)
	}
	for i, in := range m.Inputs {
		if in["name"] != want[i] || in["sha256"] != sum.Inputs[i].SHA256 || strings.Contains(meta, root) {
			t.Errorf("metadata input %d: %v (of %s)", i, in, meta)
		}
	}
	seen := map[string]int{}
	for _, j := range mustReadAll(t, out) {
		seen[j.SourceFile]++
	}
	if len(seen) != 3 || seen["in.txt#1"] == 0 || seen["in.txt#2"] == 0 || seen["more.txt.gz"] == 0 {
		t.Errorf("source_file values %v, want %v", seen, want)
	}
	recs := readQuarantine(t, sum.QuarantineFile)
	if len(recs) != 1 || recs[0].File != "in.txt#2" {
		t.Errorf("quarantine %+v, want one record of in.txt#2", recs)
	}
}
