package trace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// Reader streams the Jobs of a trace file in file order (sorted by Less).
// Memory is bounded by one row group.
type Reader struct {
	path string
	size int64 // the file's size in bytes
	f    *os.File
	pf   *parquet.File
	r    *rowReader
	buf  []rowV3
}

// Open opens a trace file written by Writer. It returns an error wrapping
// ErrSchemaVersion when the file has no schema version or a newer one.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open trace: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open trace: %w", err)
	}
	if !hasParquetMagic(f) {
		f.Close()
		base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		return nil, fmt.Errorf("open trace %s: %w (it does not start with PAR1); a trace is the Parquet file mirage ingest writes: convert it first with mirage ingest -o %s.parquet %s",
			path, ErrNotParquet, base, path)
	}
	pf, err := openParquet(f, st.Size())
	if err != nil {
		f.Close()
		if !errors.Is(err, ErrDamaged) {
			err = fmt.Errorf("%w: %w", ErrDamaged, err)
		}
		return nil, fmt.Errorf("open trace %s: %w (a trace is the Parquet file mirage ingest writes)", path, err)
	}
	v, ok := pf.Lookup(MetaSchemaVersion)
	n, perr := strconv.Atoi(v)
	if !ok || perr != nil || n < 1 || n > SchemaVersion {
		f.Close()
		return nil, fmt.Errorf("open trace %s: %w: %q (this build reads 1..%d)", path, ErrSchemaVersion, v, SchemaVersion)
	}
	return &Reader{
		path: path,
		size: st.Size(),
		f:    f,
		pf:   pf,
		r:    newRowReader(pf),
	}, nil
}

// NumRows returns the number of jobs in the file.
func (r *Reader) NumRows() int64 { return r.pf.NumRows() }

// RowsHint is NumRows bounded by the file's size in bytes (a trace row
// takes well over a byte): how many jobs a caller may allocate for up
// front, since a damaged or hostile footer can claim any row count.
func (r *Reader) RowsHint() int {
	return int(max(0, min(r.pf.NumRows(), r.size)))
}

// Metadata returns the value of a key-value metadata entry.
func (r *Reader) Metadata(key string) (string, bool) { return r.pf.Lookup(key) }

// Read fills jobs with the next jobs and returns how many it read. At the
// end of the file it returns 0, io.EOF.
func (r *Reader) Read(jobs []Job) (int, error) {
	if len(jobs) == 0 {
		return 0, nil
	}
	if cap(r.buf) < len(jobs) {
		r.buf = make([]rowV3, len(jobs))
	}
	buf := r.buf[:len(jobs)]
	n, err := r.r.Read(buf)
	for i := range n {
		if cerr := fromRow(&jobs[i], &buf[i]); cerr != nil {
			return i, fmt.Errorf("read trace %s: row %d: %w", r.path, i, cerr)
		}
	}
	if err != nil && err != io.EOF {
		return n, fmt.Errorf("read trace %s: %w", r.path, err)
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// Close releases the file.
func (r *Reader) Close() error {
	r.r.Close()
	return r.f.Close()
}

// ReadAll reads every job of a trace file into memory.
func ReadAll(path string) ([]Job, error) {
	return ReadAllContext(context.Background(), path)
}

// hasParquetMagic reports whether f starts with Parquet's magic bytes
// "PAR1" (a sacct dump, an SWF log or an empty file does not).
func hasParquetMagic(f *os.File) bool {
	var b [4]byte
	n, _ := f.ReadAt(b[:], 0)
	return n == 4 && string(b[:]) == "PAR1"
}
