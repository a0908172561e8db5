//go:build cgo && !noxgboost

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

func TestPredict(t *testing.T) {
	dir := t.TempDir()
	samples := filepath.Join(dir, "s.parquet")
	writeSamples(t, samples, []string{"a", "b"})
	model := filepath.Join(dir, "model")
	if _, e, code := run(t, "train", "--model", "xgboost", "--rounds", "20", "--samples", samples, "-o", model, "--cv", "0"); code != 0 {
		t.Fatalf("train: exit %d: %s", code, e)
	}
	out := filepath.Join(dir, "p.parquet")
	stdout, stderr, code := run(t, "predict", "--model", model, "--samples", samples, "-o", out, "--json")
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	var sum predictSummary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if sum.Rows != 120 || sum.Kind != "xgboost" || sum.MAEH == nil || *sum.MAEH > 1 {
		t.Errorf("summary = %+v", sum)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	var cols []string
	for _, fl := range tbl.Schema().Fields() {
		cols = append(cols, fl.Name)
	}
	want := []string{"window_id", "chain_nodes", "probe_time", "label_r_sec", "predicted_r_hours"}
	if len(cols) != len(want) || tbl.NumRows() != 120 {
		t.Fatalf("columns %v, %d rows; want %v, 120 rows", cols, tbl.NumRows(), want)
	}
	for i := range want {
		if cols[i] != want[i] {
			t.Errorf("column %d = %s, want %s", i, cols[i], want[i])
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".p.parquet.tmp*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}

	// Other feature names: bad input, and no output written.
	other := filepath.Join(dir, "other.parquet")
	writeSamples(t, other, []string{"a", "c"})
	bad := filepath.Join(dir, "bad.parquet")
	if _, e, code := run(t, "predict", "--model", model, "--samples", other, "-o", bad); code != exitBadInput {
		t.Errorf("mismatched features: exit %d, want %d: %s", code, exitBadInput, e)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("output written for mismatched features: %v", err)
	}
	// Not a samples table (the predictions file has no feature metadata).
	if _, e, code := run(t, "predict", "--model", model, "--samples", out, "-o", bad); code != exitBadInput {
		t.Errorf("not a samples table: exit %d, want %d: %s", code, exitBadInput, e)
	}
	// A tampered model fails its sha256.
	mj := filepath.Join(model, "model.json")
	b, err := os.ReadFile(mj)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mj, append(b, ' '), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, e, code := run(t, "predict", "--model", model, "--samples", samples, "-o", bad); code != exitBadInput {
		t.Errorf("tampered model: exit %d, want %d: %s", code, exitBadInput, e)
	}
	if _, e, code := run(t, "predict", "--samples", samples, "-o", bad); code != exitUsage {
		t.Errorf("no --model: exit %d, want %d: %s", code, exitUsage, e)
	}
}
