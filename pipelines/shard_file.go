package pipelines

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/internal/atomicfile"
	"github.com/mirage-hpc/mirage/train"
)

// Shard files: what a shard of a sharded stage leaves in its directory
// for the merge, one Parquet file per chain size (c, the index into the
// protocol's chain sizes, 0-based), each written atomically:
//
//	samples-C.parquet  features shards: features.WriteParquet's samples
//	                   table (window ids of the whole period, Build's
//	                   weights over the shard's windows, unused by the merge)
//	rows-C.parquet     evaluate shards: evaluate.Row, one row each
//	                   (shardRow's columns, Unix seconds, window ids of the
//	                   whole period)
//
// DuckDB reads both, for example
// SELECT * FROM 'OUT/shards/evaluate-*/0-of-4/rows-0.parquet'.

// errShardFile reports a shard file that is readable but not what the
// merge expects: another layout, chain size or window range.
var errShardFile = errors.New("not a shard file of this stage")

// samplesShardPath is the features shard file of chain size c in dir.
func samplesShardPath(dir string, c int) string {
	return filepath.Join(dir, fmt.Sprintf("samples-%d.parquet", c))
}

// rowsShardPath is the evaluate shard file of chain size c in dir.
func rowsShardPath(dir string, c int) string {
	return filepath.Join(dir, fmt.Sprintf("rows-%d.parquet", c))
}

// writeSamplesShard writes s to path with features.WriteParquet
// (atomically). Every value reads back with its bits, except that the
// writer's dictionary encoding gives all NaNs of a column in a row group
// the bits of the first (TestShardFile_SamplesRoundTrip): the merged
// samples.parquet could differ from a whole run's only where a column
// holds NaNs of different bit patterns (features computes no NaN on
// purpose; TestRun_Shards' samples hold none).
func writeSamplesShard(path string, s *features.Samples, meta features.FileMeta) error {
	if err := features.WriteParquet(path, s, meta); err != nil {
		return fmt.Errorf("write shard %s: %w", path, err)
	}
	return nil
}

// readSamplesShard reads the features shard file path of feature columns
// names, chain size nodes and windows [a, b). It returns an error naming
// path for a missing or unreadable file, and one wrapping errShardFile
// for a file whose feature names, schema version, labels, chain size or
// window ids are not those.
func readSamplesShard(ctx context.Context, path string, names []string, nodes, a, b int) (*features.Samples, error) {
	s, meta, err := train.ReadSamples(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("read shard: %w", err)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("read shard %s: %w: %s", path, errShardFile, fmt.Sprintf(format, args...))
	}
	switch {
	case meta.SchemaVersion != features.FeatureSchemaVersion:
		return nil, bad("feature schema version %d, want %d", meta.SchemaVersion, features.FeatureSchemaVersion)
	case !slices.Equal(s.Names, names):
		return nil, bad("features %v, want %v", s.Names, names)
	case len(s.LabelRSec) != s.Len() || len(s.LabelWaitSec) != s.Len():
		return nil, bad("no label columns")
	}
	for r := range s.Len() {
		if int(s.ChainNodes[r]) != nodes || int(s.WindowID[r]) < a || int(s.WindowID[r]) >= b {
			return nil, bad("row %d: chain of %d nodes, window %d; want %d nodes, windows [%d, %d)",
				r, s.ChainNodes[r], s.WindowID[r], nodes, a, b)
		}
	}
	return s, nil
}

// shardRow is an evaluate.Row as a row of rows-C.parquet. It has
// evaluate.Row's fields, names and types (the conversions
// shardRow(evaluate.Row{}) and back compile only while they match, so a
// field added to evaluate.Row cannot be left out of the shard files);
// the tags name the columns. Go ints are INT64 columns.
type shardRow struct {
	Policy       string `parquet:"policy"`
	ChainNodes   int    `parquet:"chain_nodes"`
	Window       int    `parquet:"window_id"`
	WindowStart  int64  `parquet:"window_start"`
	PSubmit      int64  `parquet:"p_submit"`
	PStart       int64  `parquet:"p_start"`
	PEnd         int64  `parquet:"p_end"`
	Submit       int64  `parquet:"q_submit"`
	QStart       int64  `parquet:"q_start"`
	RSec         int64  `parquet:"r_sec"`
	ReactiveRSec int64  `parquet:"reactive_r_sec"`
}

// shardRowOf returns r's shard row. evaluate.Row.QLimitSec (Q's granted
// limit under a time-min) is not kept: a shard's rows read back with the
// chain's limit unknown (0).
func shardRowOf(r *evaluate.Row) shardRow {
	return shardRow{Policy: r.Policy, ChainNodes: r.ChainNodes, Window: r.Window, WindowStart: r.WindowStart,
		PSubmit: r.PSubmit, PStart: r.PStart, PEnd: r.PEnd, Submit: r.Submit, QStart: r.QStart, RSec: r.RSec,
		ReactiveRSec: r.ReactiveRSec}
}

// row returns the evaluate.Row of a shard row (QLimitSec 0: not kept).
func (sr *shardRow) row() evaluate.Row {
	return evaluate.Row{Policy: sr.Policy, ChainNodes: sr.ChainNodes, Window: sr.Window, WindowStart: sr.WindowStart,
		PSubmit: sr.PSubmit, PStart: sr.PStart, PEnd: sr.PEnd, Submit: sr.Submit, QStart: sr.QStart, RSec: sr.RSec,
		ReactiveRSec: sr.ReactiveRSec}
}

// shardRowSchema is the schema of rows-C.parquet.
var shardRowSchema = parquet.SchemaOf(shardRow{})

// writeRowsShard writes rows to path as a zstd-compressed Parquet file
// of shardRow (atomically; an empty file still has the schema).
func writeRowsShard(path string, rows []evaluate.Row) error {
	out := make([]shardRow, len(rows))
	for i, r := range rows {
		out[i] = shardRowOf(&r)
	}
	err := atomicfile.Write(path, func(w io.Writer) error {
		pw := parquet.NewGenericWriter[shardRow](w, shardRowSchema, parquet.Compression(&parquet.Zstd))
		if _, err := pw.Write(out); err != nil {
			return err
		}
		return pw.Close()
	})
	if err != nil {
		return fmt.Errorf("write shard %s: %w", path, err)
	}
	return nil
}

// readRowsShard reads the evaluate shard file path of chain size nodes
// and windows [a, b). It returns an error naming path for a missing or
// unreadable (truncated) file, and one wrapping errShardFile for a file
// whose columns are not shardRow's or whose rows are of another chain
// size or window range.
func readRowsShard(path string, nodes, a, b int) (rows []evaluate.Row, err error) {
	defer func() { // parquet-go panics on some damaged files (its page index, its footer)
		if p := recover(); p != nil {
			rows, err = nil, fmt.Errorf("read shard %s: %w: damaged Parquet file: %v", path, errShardFile, p)
		}
	}()
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read shard: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read shard: %w", err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("read shard %s: %w", path, err)
	}
	if !parquet.EqualNodes(pf.Schema(), shardRowSchema) {
		return nil, fmt.Errorf("read shard %s: %w: columns %s, want %s", path, errShardFile, columns(pf.Schema()), columns(shardRowSchema))
	}
	if pf.NumRows() > st.Size() { // a row takes far more than a byte: the footer lies
		return nil, fmt.Errorf("read shard %s: %w: %d rows claimed in %d bytes", path, errShardFile, pf.NumRows(), st.Size())
	}
	in := make([]shardRow, pf.NumRows())
	r := parquet.NewGenericReader[shardRow](pf)
	n, err := r.Read(in)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != len(in) {
		err = fmt.Errorf("%d rows of %d", n, len(in))
	}
	if err != nil {
		return nil, fmt.Errorf("read shard %s: %w", path, err)
	}
	rows = make([]evaluate.Row, len(in))
	for i, sr := range in {
		if sr.ChainNodes != nodes || sr.Window < a || sr.Window >= b {
			return nil, fmt.Errorf("read shard %s: %w: row %d: chain of %d nodes, window %d; want %d nodes, windows [%d, %d)",
				path, errShardFile, i, sr.ChainNodes, sr.Window, nodes, a, b)
		}
		rows[i] = sr.row()
	}
	return rows, nil
}

// columns lists the leaf columns of s as "name type" pairs.
func columns(s *parquet.Schema) []string {
	var out []string
	for _, c := range s.Columns() {
		leaf, _ := s.Lookup(c...)
		out = append(out, fmt.Sprintf("%s %s", strings.Join(c, "."), leaf.Node.Type()))
	}
	return out
}
