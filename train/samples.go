package train

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/mirage-hpc/mirage/features"
)

// SamplesMeta is the key-value metadata of a samples file.
type SamplesMeta struct {
	Features      []features.Feature `json:"features"`
	SchemaVersion int                `json:"feature_schema_version"`
	Protocol      string             `json:"protocol"`
	TraceDigest   string             `json:"trace_sha256"`
	Seed          uint64             `json:"seed"`
	SimConfig     json.RawMessage    `json:"sim_config,omitempty"`
	Options       json.RawMessage    `json:"options,omitempty"`
	// RuntimeModel and RuntimeSHA256 are the run-time model of the
	// features.ModelEstimateName column (its directory and model file's
	// SHA-256); empty when the samples lack that column.
	RuntimeModel  string `json:"runtime_model,omitempty"`
	RuntimeSHA256 string `json:"runtime_model_sha256,omitempty"`
}

// WindowSpan returns the simulated length of one window (warm-up plus
// workload) from the protocol options, or 7 days when they are absent.
func (m SamplesMeta) WindowSpan() time.Duration {
	var o struct {
		Warmup   time.Duration `json:"warmup"`
		Workload time.Duration `json:"workload"`
	}
	if len(m.Options) > 0 && json.Unmarshal(m.Options, &o) == nil && o.Warmup+o.Workload > 0 {
		return o.Warmup + o.Workload
	}
	return 7 * 24 * time.Hour
}

// ErrSamples means a file is not a readable samples table: no feature
// metadata, or a missing or mistyped column.
var ErrSamples = errors.New("not a samples table")

// ReadSamples reads a samples file written by features.WriteParquet. The
// label columns are optional: without them s.LabelRSec and
// s.LabelWaitSec are nil.
func ReadSamples(ctx context.Context, path string) (s *features.Samples, meta SamplesMeta, err error) {
	defer func() { // the Parquet and Arrow libraries panic on some damaged files
		if p := recover(); p != nil {
			s, err = nil, fmt.Errorf("read samples %s: %w: damaged Parquet file: %v", path, ErrSamples, p)
		}
	}()
	f, err := os.Open(path)
	if err != nil {
		return nil, meta, fmt.Errorf("read samples: %w", err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return nil, meta, fmt.Errorf("read samples %s: %w", path, err)
	}
	defer pf.Close()
	if meta, err = readMeta(pf); err != nil {
		return nil, meta, fmt.Errorf("read samples %s: %w: %w", path, ErrSamples, err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64 * 1024}, memory.DefaultAllocator)
	if err != nil {
		return nil, meta, fmt.Errorf("read samples %s: %w", path, err)
	}
	tbl, err := fr.ReadTable(ctx)
	if err != nil {
		return nil, meta, fmt.Errorf("read samples %s: %w", path, err)
	}
	defer tbl.Release()
	s, err = fromTable(tbl, meta)
	if err != nil {
		return nil, meta, fmt.Errorf("read samples %s: %w: %w", path, ErrSamples, err)
	}
	return s, meta, nil
}

func readMeta(pf *file.Reader) (SamplesMeta, error) {
	var m SamplesMeta
	kv := pf.MetaData().KeyValueMetadata()
	get := func(k string) string {
		if v := kv.FindValue(k); v != nil {
			return *v
		}
		return ""
	}
	fj := get(features.MetaFeatures)
	if fj == "" {
		return m, fmt.Errorf("no %s metadata (not a samples file?)", features.MetaFeatures)
	}
	if err := json.Unmarshal([]byte(fj), &m.Features); err != nil {
		return m, fmt.Errorf("metadata %s: %w", features.MetaFeatures, err)
	}
	v, err := strconv.Atoi(get(features.MetaSchemaVersion))
	if err != nil {
		return m, fmt.Errorf("metadata %s: %w", features.MetaSchemaVersion, err)
	}
	m.SchemaVersion = v
	m.Protocol = get(features.MetaProtocol)
	m.TraceDigest = get(features.MetaTraceDigest)
	m.Seed, _ = strconv.ParseUint(get(features.MetaSeed), 10, 64)
	if c := get(features.MetaSimConfig); c != "" {
		m.SimConfig = json.RawMessage(c)
	}
	if o := get(features.MetaOptions); o != "" {
		m.Options = json.RawMessage(o)
	}
	m.RuntimeModel, m.RuntimeSHA256 = get(features.MetaRuntimeModel), get(features.MetaRuntimeSHA256)
	return m, nil
}

func fromTable(tbl arrow.Table, meta SamplesMeta) (*features.Samples, error) {
	sch := tbl.Schema()
	col := func(name string) (*arrow.Chunked, error) {
		idx := sch.FieldIndices(name)
		if len(idx) != 1 {
			return nil, fmt.Errorf("column %q: found %d", name, len(idx))
		}
		return tbl.Column(idx[0]).Data(), nil
	}
	s := &features.Samples{}
	var err error
	if s.WindowID, err = ints[int32, *array.Int32](col, features.ColWindowID); err != nil {
		return nil, err
	}
	if s.WindowStart, err = ints[int64, *array.Int64](col, features.ColWindowStart); err != nil {
		return nil, err
	}
	if s.ChainNodes, err = ints[int32, *array.Int32](col, features.ColChainNodes); err != nil {
		return nil, err
	}
	if s.ProbeTime, err = ints[int64, *array.Int64](col, features.ColProbeTime); err != nil {
		return nil, err
	}
	// Labels are optional (a feature table to predict may have none).
	for _, l := range []struct {
		name string
		dst  *[]int64
	}{{features.ColLabelR, &s.LabelRSec}, {features.ColLabelWait, &s.LabelWaitSec}} {
		if len(sch.FieldIndices(l.name)) == 0 {
			continue
		}
		if *l.dst, err = ints[int64, *array.Int64](col, l.name); err != nil {
			return nil, err
		}
	}
	if len(sch.FieldIndices(features.ColWeight)) > 0 {
		if s.Weight, err = ints[float64, *array.Float64](col, features.ColWeight); err != nil {
			return nil, err
		}
	}
	for _, f := range meta.Features {
		v, err := ints[float64, *array.Float64](col, f.Name)
		if err != nil {
			return nil, err
		}
		s.Names = append(s.Names, f.Name)
		s.Features = append(s.Features, v)
	}
	return s, nil
}

type valuer[T any] interface {
	arrow.Array
	Values() []T
}

func ints[T any, A valuer[T]](col func(string) (*arrow.Chunked, error), name string) ([]T, error) {
	c, err := col(name)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, c.Len())
	for _, ch := range c.Chunks() {
		a, ok := ch.(A)
		if !ok {
			return nil, fmt.Errorf("column %q: type %s", name, ch.DataType())
		}
		if a.NullN() > 0 {
			return nil, fmt.Errorf("column %q: %d nulls", name, a.NullN())
		}
		out = append(out, a.Values()...)
	}
	return out, nil
}
