package pipelines

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/internal/testenv"
)

// nans are NaN bit patterns: Go's math.NaN, the amd64 default NaN
// (what 0.0/0.0 computes at run time), a signalling NaN with a payload.
var nans = []uint64{0x7ff8000000000001, 0xfff8000000000000, 0x7ff0000000000123}

// testSamples returns three rows of chain size 2 in windows [4, 6) with
// float64 values a lossy round trip would change: NaNs (one bit pattern
// per column, see TestShardFile_SamplesRoundTrip), infinities, negative
// zero, a subnormal, the largest float64; and Build's weights.
func testSamples() *features.Samples {
	names := features.Names()
	special := []float64{math.Inf(1), math.Inf(-1), math.Copysign(0, -1), math.SmallestNonzeroFloat64,
		math.MaxFloat64, 1.0 / 3}
	s := &features.Samples{
		Names:        names,
		WindowID:     []int32{4, 4, 5},
		WindowStart:  []int64{1667430000, 1667430000, 1667451600},
		ChainNodes:   []int32{2, 2, 2},
		ProbeTime:    []int64{1667452000, 1667453000, math.MaxInt64},
		Features:     make([][]float64, len(names)),
		LabelRSec:    []int64{-5, 0, math.MinInt64},
		LabelWaitSec: []int64{0, 7, math.MaxInt64},
		Weight:       []float64{0.75, 0.75, 1.5},
	}
	for f := range s.Features {
		nan := math.Float64frombits(nans[f%len(nans)])
		last := nan
		if f%2 == 1 {
			last = float64(f)
		}
		s.Features[f] = []float64{nan, special[f%len(special)], last}
	}
	return s
}

// testRows returns rows of chain size 2 in windows [4, 6), with int64
// extremes and a policy name that is not ASCII.
func testRows() []evaluate.Row {
	return []evaluate.Row{
		{Policy: "reactive", ChainNodes: 2, Window: 4, WindowStart: 1667430000, PSubmit: 1, PStart: 2, PEnd: 3,
			Submit: 4, QStart: 5, RSec: -7, ReactiveRSec: -7},
		{Policy: "forest:/tmp/λ model", ChainNodes: 2, Window: 5, WindowStart: math.MinInt64, PSubmit: math.MaxInt64,
			PStart: math.MinInt64, PEnd: 0, Submit: -1, QStart: math.MaxInt64, RSec: math.MinInt64, ReactiveRSec: math.MaxInt64},
	}
}

// bits returns the float64s of v as their bit patterns, so NaNs compare.
func bits(v []float64) []uint64 {
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = math.Float64bits(x)
	}
	return out
}

// TestShardFile_SamplesRoundTrip: a samples shard file gives back every
// value's bits. features.WriteParquet dictionary-encodes each column
// chunk, and the encoder keeps one entry for all NaNs, so a chunk's NaNs
// come back with its first NaN's bits ("MixedNaNs"): a NaN stays a NaN,
// and its bits are kept where a column's NaNs share one bit pattern.
func TestShardFile_SamplesRoundTrip(t *testing.T) {
	path := samplesShardPath(t.TempDir(), 0)
	want := testSamples()
	if err := writeSamplesShard(path, want, features.FileMeta{Protocol: "p"}); err != nil {
		t.Fatal(err)
	}
	got, err := readSamplesShard(context.Background(), path, features.Names(), 2, 4, 6)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"names", got.Names, want.Names},
		{"window_id", got.WindowID, want.WindowID},
		{"window_start", got.WindowStart, want.WindowStart},
		{"chain_nodes", got.ChainNodes, want.ChainNodes},
		{"probe_time", got.ProbeTime, want.ProbeTime},
		{"label_r_sec", got.LabelRSec, want.LabelRSec},
		{"label_wait_sec", got.LabelWaitSec, want.LabelWaitSec},
		{"weight", bits(got.Weight), bits(want.Weight)},
	} {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("%s:\ngot  %v\nwant %v", c.name, c.got, c.want)
		}
	}
	if len(got.Features) != len(want.Features) {
		t.Fatalf("%d feature columns, want %d", len(got.Features), len(want.Features))
	}
	for f := range want.Features {
		if g, w := bits(got.Features[f]), bits(want.Features[f]); !slices.Equal(g, w) {
			t.Errorf("feature %s bits:\ngot  %x\nwant %x", want.Names[f], g, w)
		}
	}
	t.Run("MixedNaNs", func(t *testing.T) {
		mixed := testSamples()
		for r := range mixed.Features[0] {
			mixed.Features[0][r] = math.Float64frombits(nans[r])
		}
		path := samplesShardPath(t.TempDir(), 0)
		if err := writeSamplesShard(path, mixed, features.FileMeta{}); err != nil {
			t.Fatal(err)
		}
		got, err := readSamplesShard(context.Background(), path, features.Names(), 2, 4, 6)
		if err != nil {
			t.Fatal(err)
		}
		for r, v := range got.Features[0] {
			if !math.IsNaN(v) {
				t.Errorf("row %d: %v, want NaN", r, v)
			}
		}
		t.Logf("NaN bits %x came back as %x", nans, bits(got.Features[0]))
	})
}

func TestShardFile_RowsRoundTrip(t *testing.T) {
	for _, want := range [][]evaluate.Row{testRows(), {}} {
		path := rowsShardPath(t.TempDir(), 1)
		if err := writeRowsShard(path, want); err != nil {
			t.Fatal(err)
		}
		got, err := readRowsShard(path, 2, 4, 6)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("rows:\ngot  %+v\nwant %+v", got, want)
		}
	}
}

// TestShardFile_Bad: a shard file that is missing, empty, truncated,
// not Parquet, of the other layout, or of another chain size or window
// range gives an error naming it.
func TestShardFile_Bad(t *testing.T) {
	dir := t.TempDir()
	samples, rows := samplesShardPath(dir, 0), rowsShardPath(dir, 0)
	if err := writeSamplesShard(samples, testSamples(), features.FileMeta{}); err != nil {
		t.Fatal(err)
	}
	if err := writeRowsShard(rows, testRows()); err != nil {
		t.Fatal(err)
	}
	readSamples := func(path string, nodes, a, b int) error {
		_, err := readSamplesShard(context.Background(), path, features.Names(), nodes, a, b)
		return err
	}
	readRows := func(path string, nodes, a, b int) error {
		_, err := readRowsShard(path, nodes, a, b)
		return err
	}
	// variant writes a copy of src changed by edit into dir/name.
	variant := func(name, src string, edit func([]byte) []byte) string {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, edit(b), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	half := func(b []byte) []byte { return b[:len(b)/2] }
	tail := func(b []byte) []byte { return b[:len(b)-1] }
	empty := func([]byte) []byte { return nil }
	text := func([]byte) []byte { return []byte("shard\n") }
	tests := []struct {
		Name   string
		Read   func(path string, nodes, a, b int) error
		Path   string
		Nodes  int
		A, B   int
		Layout bool // the error wraps errShardFile
	}{
		{"SamplesMissing", readSamples, filepath.Join(dir, "samples-9.parquet"), 2, 4, 6, false},
		{"SamplesEmpty", readSamples, variant("s-empty.parquet", samples, empty), 2, 4, 6, false},
		{"SamplesTruncated", readSamples, variant("s-half.parquet", samples, half), 2, 4, 6, false},
		{"SamplesLastByte", readSamples, variant("s-tail.parquet", samples, tail), 2, 4, 6, false},
		{"SamplesNotParquet", readSamples, variant("s-text.parquet", samples, text), 2, 4, 6, false},
		{"SamplesOfRows", readSamples, rows, 2, 4, 6, false},
		{"SamplesChainSize", readSamples, samples, 1, 4, 6, true},
		{"SamplesWindows", readSamples, samples, 2, 5, 6, true},
		{"RowsMissing", readRows, filepath.Join(dir, "rows-9.parquet"), 2, 4, 6, false},
		{"RowsEmpty", readRows, variant("r-empty.parquet", rows, empty), 2, 4, 6, false},
		{"RowsTruncated", readRows, variant("r-half.parquet", rows, half), 2, 4, 6, false},
		{"RowsLastByte", readRows, variant("r-tail.parquet", rows, tail), 2, 4, 6, false},
		{"RowsNotParquet", readRows, variant("r-text.parquet", rows, text), 2, 4, 6, false},
		{"RowsOfSamples", readRows, samples, 2, 4, 6, true},
		{"RowsChainSize", readRows, rows, 8, 4, 6, true},
		{"RowsWindows", readRows, rows, 2, 4, 5, true},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			err := tt.Read(tt.Path, tt.Nodes, tt.A, tt.B)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.Path) {
				t.Errorf("error does not name %s:\n%v", tt.Path, err)
			}
			t.Log(err)
			if tt.Layout && !errors.Is(err, errShardFile) {
				t.Errorf("error does not wrap errShardFile:\n%v", err)
			}
		})
	}
}

// TestShardFile_DuckDB: DuckDB reads both shard files, every column of
// every row, when scripts/duckdb.sh has its package (no download in
// tests); with MIRAGE_DUCKDB_REQUIRED=1 a missing DuckDB fails the test
// instead of skipping it.
func TestShardFile_DuckDB(t *testing.T) {
	testenv.DuckDB(t) // skips (or fails) before the work without DuckDB
	dir := t.TempDir()
	samples, rows := samplesShardPath(dir, 0), rowsShardPath(dir, 0)
	if err := writeSamplesShard(samples, testSamples(), features.FileMeta{}); err != nil {
		t.Fatal(err)
	}
	if err := writeRowsShard(rows, testRows()); err != nil {
		t.Fatal(err)
	}
	f0 := features.Names()[0]
	queries := []string{
		fmt.Sprintf(`SELECT count(*)::INTEGER AS n, length(string_agg(CAST(t AS VARCHAR), '|'))::INTEGER AS chars,
			count_if(isnan("%s"))::INTEGER AS nans, sum(window_id)::INTEGER AS windows, sum(weight)::DOUBLE AS weight FROM '%s' t`, f0, samples),
		fmt.Sprintf(`SELECT count(*)::INTEGER AS n, length(string_agg(CAST(t AS VARCHAR), '|'))::INTEGER AS chars,
			max(q_start)::VARCHAR AS q_start, min(r_sec)::VARCHAR AS r_sec, string_agg(policy, ',' ORDER BY window_id) AS policies FROM '%s' t`, rows),
	}
	lines := testenv.DuckDB(t, queries...)
	var s []struct {
		N, Nans, Windows int
		Weight           float64
	}
	if err := json.Unmarshal([]byte(lines[0]), &s); err != nil || len(s) != 1 || s[0].N != 3 || s[0].Nans != 2 || s[0].Windows != 13 || s[0].Weight != 3 {
		t.Errorf("DuckDB on %s: %s (%v), want 3 rows, 2 NaNs of %s, window ids summing to 13, weights to 3", samples, lines[0], err, f0)
	}
	var r []struct {
		N        int
		QStart   string `json:"q_start"`
		RSec     string `json:"r_sec"`
		Policies string
	}
	if err := json.Unmarshal([]byte(lines[1]), &r); err != nil || len(r) != 1 || r[0].N != 2 ||
		r[0].QStart != fmt.Sprint(int64(math.MaxInt64)) || r[0].RSec != fmt.Sprint(int64(math.MinInt64)) || r[0].Policies != "reactive,forest:/tmp/λ model" {
		t.Errorf("DuckDB on %s: %s (%v), want the rows of testRows", rows, lines[1], err)
	}
}
