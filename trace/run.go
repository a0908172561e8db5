package trace

import (
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"
)

// writeBatch is the number of rows handed to parquet-go at a time.
const writeBatch = 1024

// runWriter writes one sorted run, dropping adjacent duplicates: it holds
// back the last job so a later duplicate can replace it.
type runWriter struct {
	index   int
	v3      bool // the file has schema version 3's columns (rowV3)
	f       *os.File
	pw      parquetWriter
	cw      *colWriter
	jobs    []Job // batch waiting to be written
	last    Job   // held-back job, valid when hasLast
	hasLast bool
	rows    int64
	err     error
}

type runFile struct {
	path string
	rows int64
}

func newRunWriter(f *os.File, index int, v3 bool, rowGroupRows int, opts []parquet.WriterOption) (*runWriter, error) {
	var pw parquetWriter = parquet.NewGenericWriter[row](f, opts...)
	if v3 {
		pw = parquet.NewGenericWriter[rowV3](f, opts...)
	}
	cw, err := newColWriter(pw, int64(rowGroupRows))
	if err != nil {
		return nil, err
	}
	return &runWriter{
		index: index,
		v3:    v3,
		f:     f,
		pw:    pw,
		cw:    cw,
		jobs:  make([]Job, 0, writeBatch),
	}, nil
}

// add appends j (copied), or replaces the held-back job if j is the same
// job, reporting the replaced one through dup.
func (rw *runWriter) add(j *Job, dup func(kept, dropped *Job)) error {
	if rw.err != nil {
		return rw.err
	}
	if rw.hasLast && SameJob(&rw.last, j) {
		dropped := rw.last
		rw.last = *j
		dup(&rw.last, &dropped)
		return nil
	}
	if rw.hasLast {
		rw.jobs = append(rw.jobs, rw.last)
		if len(rw.jobs) == cap(rw.jobs) {
			if err := rw.flush(); err != nil {
				return err
			}
		}
	}
	rw.last = *j
	rw.hasLast = true
	return nil
}

func (rw *runWriter) flush() error {
	if len(rw.jobs) == 0 {
		return nil
	}
	if err := rw.cw.write(rw.jobs); err != nil {
		rw.err = fmt.Errorf("write sort run: %w", err)
		return rw.err
	}
	rw.rows += int64(len(rw.jobs))
	rw.jobs = rw.jobs[:0]
	return nil
}

func (rw *runWriter) close(meta [][2]string) (*runFile, error) {
	path := rw.f.Name()
	if rw.hasLast {
		rw.jobs = append(rw.jobs, rw.last)
		rw.hasLast = false
	}
	err := rw.flush()
	for _, kv := range meta {
		rw.pw.SetKeyValueMetadata(kv[0], kv[1])
	}
	if err == nil {
		err = rw.cw.close()
	}
	if cerr := rw.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("close sort run: %w", err)
	}
	return &runFile{path: path, rows: rw.rows}, nil
}

func (rw *runWriter) abort() {
	rw.f.Close()
	os.Remove(rw.f.Name())
}

// runReader streams a run back as Jobs.
type runReader struct {
	f    *os.File
	r    *rowReader
	buf  []rowV3
	jobs []Job
	pos  int
	idx  int // run index, the merge's final tie-break
}

func openRun(path string, idx int) (*runReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	pf, err := openParquet(f, st.Size())
	if err != nil {
		f.Close()
		return nil, err
	}
	return &runReader{f: f, r: newRowReader(pf), buf: make([]rowV3, writeBatch), idx: idx}, nil
}

// next returns the next job, or nil at the end of the run.
func (rr *runReader) next() (*Job, error) {
	if rr.pos < len(rr.jobs) {
		rr.pos++
		return &rr.jobs[rr.pos-1], nil
	}
	n, err := rr.r.Read(rr.buf)
	if n == 0 {
		if err == nil || err == io.EOF {
			return nil, nil
		}
		return nil, err
	}
	rr.jobs = rr.jobs[:0]
	for i := range n {
		var j Job
		if cerr := fromRow(&j, &rr.buf[i]); cerr != nil {
			return nil, cerr
		}
		rr.jobs = append(rr.jobs, j)
	}
	rr.pos = 1
	return &rr.jobs[0], nil
}

func (rr *runReader) close() {
	rr.r.Close()
	rr.f.Close()
}

// mergeRuns k-way merges the spilled runs into one run file and publishes
// it.
func (w *Writer) mergeRuns() error {
	readers := make([]*runReader, 0, len(w.runs))
	defer func() {
		for _, r := range readers {
			r.close()
		}
	}()
	var h mergeHeap
	for i, rf := range w.runs {
		rr, err := openRun(rf.path, i)
		if err != nil {
			return fmt.Errorf("merge sort runs: %w", err)
		}
		readers = append(readers, rr)
		j, err := rr.next()
		if err != nil {
			return fmt.Errorf("merge sort runs: %w", err)
		}
		if j != nil {
			h.push(mergeItem{job: j, src: rr})
		}
	}
	out, err := w.newRun(len(w.runs))
	if err != nil {
		return err
	}
	for h.len() > 0 {
		it := h.items[0]
		if err := out.add(it.job, w.dropped); err != nil {
			out.abort()
			return err
		}
		j, err := it.src.next()
		if err != nil {
			out.abort()
			return fmt.Errorf("merge sort runs: %w", err)
		}
		if j == nil {
			h.pop()
		} else {
			h.items[0].job = j
			h.fix0()
		}
	}
	rf, err := out.close(w.metadata(out.v3))
	if err != nil {
		return err
	}
	for _, r := range w.runs {
		os.Remove(r.path)
	}
	w.runs = []*runFile{rf}
	w.rows = rf.rows
	return w.publish(rf.path)
}
