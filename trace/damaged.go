package trace

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// ErrDamaged means a file is not a readable Parquet file: truncated, a
// byte changed, not Parquet at all, or another program's file the
// Parquet library cannot decode. Open returns it (wrapped, naming the
// file) for every file the library cannot open, and Open and Reader.Read
// where the library would panic.
var ErrDamaged = errors.New("damaged Parquet file")

// ErrNotParquet means a file given as a trace is not Parquet at all (a
// raw sacct dump or SWF log, say): it needs mirage ingest first.
var ErrNotParquet = errors.New("not a Parquet file")

// openParquet is parquet.OpenFile, with a panic of the library on a
// damaged file (an index out of range in its page index or footer) made
// an error wrapping ErrDamaged.
func openParquet(r io.ReaderAt, size int64) (pf *parquet.File, err error) {
	defer func() {
		if p := recover(); p != nil {
			pf, err = nil, fmt.Errorf("%w: %v", ErrDamaged, p)
		}
	}()
	return parquet.OpenFile(r, size)
}

// readRows is r.Read(buf) with a panic of the library on damaged pages
// made an error wrapping ErrDamaged.
func readRows[T any](r *parquet.GenericReader[T], buf []T) (n int, err error) {
	defer func() {
		if p := recover(); p != nil {
			n, err = 0, fmt.Errorf("%w: %v", ErrDamaged, p)
		}
	}()
	return r.Read(buf)
}
