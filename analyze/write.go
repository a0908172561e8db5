package analyze

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/parquet-go/parquet-go"

	"github.com/mirage-hpc/mirage/internal/atomicdir"
	"github.com/mirage-hpc/mirage/internal/atomicfile"
)

// Table names (files in the output directory), in page order.
const (
	TableMonths     = "volume_month.parquet"
	TablePartitions = "volume_partition.parquet"
	TableSizes      = "job_sizes.parquet"
	TableLimits     = "limits.parquet"
	TableUtil       = "utilisation.parquet"
	TableQueue      = "queue.parquet"
	TableProfiles   = "profiles.parquet"
	TableWaits      = "waits.parquet"
	TableWaitCDF    = "wait_cdf.parquet"
	TableRunLimit   = "runtime_limit.parquet"
	TableChains     = "chains.parquet"
	TableLinks      = "chain_links.parquet"
	TableLengths    = "chain_lengths.parquet"
	TableFidelity   = "fidelity.parquet"
	// Page is the self-contained HTML page; Summary the JSON summary.
	Page    = "analysis.html"
	Summary = "summary.json"
)

// DirFiles are the names (filepath.Match patterns) an analysis
// directory holds: Write refuses to replace a directory holding anything
// else (atomicdir.ErrForeign).
var DirFiles = []string{"*.parquet", Summary, Page, "*.png", "*.svg"}

// Run analyzes the trace at path (Analyze) and writes the tables, the
// summary, and with opts.Figures the figures and the page into dir as a
// unit (Write). It returns the analysis.
func Run(ctx context.Context, path, dir string, opts Options) (*Analysis, error) {
	a, err := Analyze(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	if err := a.Write(dir, opts.Figures); err != nil {
		return nil, err
	}
	return a, nil
}

// beforeFile, when not nil, is called before each file Write writes,
// with its name; an error stops Write there (tests: a failure midway).
var beforeFile func(name string) error

// Write writes a's tables and summary.json, and with figures the figures
// (PNG and SVG) and analysis.html, into dir as a unit (internal/atomicdir):
// every file goes into a temporary directory beside dir, renamed over dir
// only once complete, so a failed or killed run leaves the previous
// directory whole, and the next run removes what a killed one left. A
// second live writer of dir gets an error matching atomicfile.ErrLocked;
// a dir holding files other than DirFiles is refused (atomicdir.ErrForeign).
// Every table is written, empty when its section is absent.
func (a *Analysis) Write(dir string, figures bool) error {
	d, err := atomicdir.Create(dir, DirFiles...)
	if err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	if err := a.writeFiles(d.Path, figures); err != nil {
		d.Abort()
		return err
	}
	if err := d.Commit(); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	return nil
}

// writeFiles writes every file of the analysis into dir, which exists.
func (a *Analysis) writeFiles(dir string, figures bool) error {
	write := func(name string, data []byte) error {
		if beforeFile != nil {
			if err := beforeFile(name); err != nil {
				return err
			}
		}
		return atomicfile.WriteFile(filepath.Join(dir, name), data)
	}
	for _, t := range []struct {
		name  string
		write func(string) error
	}{
		{TableMonths, func(p string) error { return writeTable(p, a.Months) }},
		{TablePartitions, func(p string) error { return writeTable(p, a.Partitions) }},
		{TableSizes, func(p string) error { return writeTable(p, a.Sizes) }},
		{TableLimits, func(p string) error { return writeTable(p, a.Limits) }},
		{TableUtil, func(p string) error { return writeTable(p, a.Util) }},
		{TableQueue, func(p string) error { return writeTable(p, a.Queue) }},
		{TableProfiles, func(p string) error { return writeTable(p, a.Profiles) }},
		{TableWaits, func(p string) error { return writeTable(p, a.Waits) }},
		{TableWaitCDF, func(p string) error { return writeTable(p, a.WaitCDF) }},
		{TableRunLimit, func(p string) error { return writeTable(p, a.RunLimit) }},
		{TableChains, func(p string) error {
			return writeStream(p, func(emit func(...ChainRow) error) error {
				var err error
				a.EachChain(func(r ChainRow, _ []LinkRow) {
					if err == nil {
						err = emit(r)
					}
				})
				return err
			})
		}},
		{TableLinks, func(p string) error {
			return writeStream(p, func(emit func(...LinkRow) error) error {
				var err error
				a.EachChain(func(_ ChainRow, ls []LinkRow) {
					if err == nil {
						err = emit(ls...)
					}
				})
				return err
			})
		}},
		{TableLengths, func(p string) error { return writeTable(p, a.Lengths) }},
		{TableFidelity, func(p string) error { return writeTable(p, a.Fidelity) }},
	} {
		if beforeFile != nil {
			if err := beforeFile(t.name); err != nil {
				return fmt.Errorf("analyze: write %s: %w", t.name, err)
			}
		}
		if err := t.write(filepath.Join(dir, t.name)); err != nil {
			return fmt.Errorf("analyze: write %s: %w", t.name, err)
		}
	}
	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	if err := write(Summary, append(b, '\n')); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	if !figures {
		return nil
	}
	figs, err := a.figures()
	if err != nil {
		return fmt.Errorf("analyze: figures: %w", err)
	}
	for _, f := range figs {
		for ext, data := range map[string][]byte{".png": f.png, ".svg": f.svg} {
			if err := write(f.name+ext, data); err != nil {
				return fmt.Errorf("analyze: %w", err)
			}
		}
	}
	page, err := a.page(figs)
	if err != nil {
		return fmt.Errorf("analyze: page: %w", err)
	}
	if err := write(Page, page); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	return nil
}

// tableRowGroupRows is the row-group size of the tables.
const tableRowGroupRows = 65536

// writeTable writes rows as a zstd-compressed Parquet file at path; an
// empty table still has its schema.
func writeTable[T any](path string, rows []T) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		pw := parquet.NewGenericWriter[T](w, parquet.Compression(&parquet.Zstd), parquet.MaxRowsPerRowGroup(tableRowGroupRows))
		for len(rows) > 0 { // a row group at a time: memory is bounded by one
			n := min(len(rows), tableRowGroupRows)
			if _, err := pw.Write(rows[:n]); err != nil {
				return err
			}
			if err := pw.Flush(); err != nil {
				return err
			}
			rows = rows[n:]
		}
		return pw.Close()
	})
}

// writeStream writes the rows gen emits as a Parquet file at path, a row
// group at a time, so the rows are never all in memory.
func writeStream[T any](path string, gen func(emit func(...T) error) error) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		pw := parquet.NewGenericWriter[T](w, parquet.Compression(&parquet.Zstd), parquet.MaxRowsPerRowGroup(tableRowGroupRows))
		buf := make([]T, 0, tableRowGroupRows)
		flush := func() error {
			if len(buf) == 0 {
				return nil
			}
			if _, err := pw.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
			return pw.Flush()
		}
		err := gen(func(rows ...T) error {
			buf = append(buf, rows...)
			if len(buf) >= tableRowGroupRows {
				return flush()
			}
			return nil
		})
		if err == nil {
			err = flush()
		}
		if err != nil {
			return err
		}
		return pw.Close()
	})
}

// ReadTable reads a table written by Write (for tests and callers that
// want the rows back).
func ReadTable[T any](path string) ([]T, error) {
	rows, err := parquet.ReadFile[T](path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return rows, nil
}
