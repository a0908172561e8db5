package trace

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// textColumns are the string columns of row.
var textColumns = []string{"job_id", "cluster", "partition", "account", "user", "group",
	"job_name", "qos", "state", "reason", "repair", "source_file"}

// DefaultRowGroupRows is the default number of rows per Parquet row group,
// which is also the number of jobs Writer holds in memory while sorting.
const DefaultRowGroupRows = 64 << 10

// WriterOptions configures a Writer. The zero value is valid.
type WriterOptions struct {
	// RowGroupRows bounds the rows per row group and the jobs held in
	// memory; 0 means DefaultRowGroupRows.
	RowGroupRows int
	// Metadata is written into the file's key-value metadata, in key order,
	// next to MetaSchemaVersion; see also Writer.SetMetadata.
	Metadata map[string]string
	// OnDuplicate, if not nil, is called for every job dropped because a
	// later-written job is the same attempt of the same job (SameJob): the
	// later one is kept. Without it duplicates are dropped silently.
	OnDuplicate func(kept, dropped *Job)
	// TempDir holds the sorted runs of inputs larger than RowGroupRows;
	// "" means the output's directory. A run is named after the output,
	// .NAME.runN-RANDOM.tmp: writing to an atomicfile temporary (as
	// ingest does) names the runs after it, so the next writer of the
	// output removes those of a killed run (atomicfile.RemoveStale).
	TempDir string
}

// Writer writes Jobs, in any order, to a trace file sorted by Less.
//
// It sorts with replacement selection: input that is sorted, or out of
// order by less than RowGroupRows jobs, is written in one pass; otherwise
// sorted runs are spilled to temporary Parquet files and merged by Close.
// Memory is bounded by RowGroupRows, not by the input. The output appears
// atomically (temp file + rename) when Close succeeds.
type Writer struct {
	path string
	opts WriterOptions
	cap  int

	// win is the fast path for sorted or nearly sorted input: a window of
	// up to cap jobs kept sorted by insertion, win[head:] being live. The
	// first job that would need a long shift, or that sorts before what was
	// already written, moves the window into heap for replacement selection.
	win      []Job
	head     int
	heapMode bool

	heap  selectHeap
	seq   uint64
	runs  []*runFile
	cur   *runWriter
	rows  int64
	dups  int64
	nruns int
	done  bool
	// timeMin is set once a job with a time-min has gone into a run:
	// runs started from then on, and the output, are schema version 3.
	timeMin bool
}

// Create starts a trace file at path. Nothing appears at path until Close
// returns nil.
func Create(path string, opts WriterOptions) (*Writer, error) {
	if opts.RowGroupRows <= 0 {
		opts.RowGroupRows = DefaultRowGroupRows
	}
	if opts.TempDir == "" {
		opts.TempDir = filepath.Dir(path)
	}
	if st, err := os.Stat(opts.TempDir); err != nil {
		return nil, fmt.Errorf("create trace %s: %w", path, err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("create trace %s: %s is not a directory", path, opts.TempDir)
	}
	return &Writer{path: path, opts: opts, cap: opts.RowGroupRows}, nil
}

// maxShift is the longest insertion the sorted window tolerates before
// Writer switches to its heap.
const maxShift = 512

// Write adds a copy of j.
func (w *Writer) Write(j *Job) error {
	if w.done {
		return errors.New("trace writer: write after close")
	}
	if !w.heapMode {
		if ok, err := w.writeWindow(j); ok || err != nil {
			return err
		}
	}
	return w.writeHeap(j)
}

// writeWindow inserts j into the sorted window and emits the window's
// smallest job when it is full. It returns false, having changed nothing,
// when j needs the heap; the Writer is then in heap mode.
func (w *Writer) writeWindow(j *Job) (bool, error) {
	if w.cur != nil && w.cur.hasLast && compareJobs(j, &w.cur.last) < 0 {
		w.toHeap()
		return false, nil
	}
	n := len(w.win)
	pos := n
	for pos > w.head && compareJobs(j, &w.win[pos-1]) < 0 {
		pos--
		if n-pos > maxShift {
			w.toHeap()
			return false, nil
		}
	}
	if w.win == nil {
		w.win = make([]Job, 0, 2*w.cap+1)
	}
	w.win = append(w.win, Job{})
	copy(w.win[pos+1:], w.win[pos:n])
	w.win[pos] = *j
	if len(w.win)-w.head <= w.cap {
		return true, nil
	}
	if err := w.emit(&w.win[w.head], 0); err != nil {
		return true, err
	}
	w.win[w.head] = Job{}
	w.head++
	if w.head >= w.cap {
		k := copy(w.win, w.win[w.head:])
		clear(w.win[k:])
		w.win, w.head = w.win[:k], 0
	}
	return true, nil
}

// toHeap moves the window's jobs into the heap, in order.
func (w *Writer) toHeap() {
	w.heapMode = true
	for i := w.head; i < len(w.win); i++ {
		w.seq++
		w.heap.push(&w.win[i], w.runForNew(&w.win[i]), w.seq)
	}
	w.win, w.head = nil, 0
}

func (w *Writer) writeHeap(j *Job) error {
	w.seq++
	if w.heap.len() < w.cap {
		w.heap.push(j, w.runForNew(j), w.seq)
		return nil
	}
	out, run := w.heap.top()
	if err := w.emit(out, run); err != nil {
		return err
	}
	nextRun := run
	if compareJobs(j, out) < 0 {
		nextRun = run + 1
	}
	w.heap.replaceTop(j, nextRun, w.seq)
	return nil
}

// runForNew is the run of a job pushed while the heap is still filling:
// the current run, unless it sorts before what that run already holds.
func (w *Writer) runForNew(j *Job) int {
	if w.cur == nil || !w.cur.hasLast {
		return len(w.runs)
	}
	if compareJobs(j, &w.cur.last) < 0 {
		return len(w.runs) + 1
	}
	return len(w.runs)
}

// emit appends j to run number run, starting that run if needed.
func (w *Writer) emit(j *Job, run int) error {
	w.timeMin = w.timeMin || j.TimeMinSec > 0
	for w.cur == nil || run > w.cur.index || w.timeMin && !w.cur.v3 {
		// The run's index is the sort's run number; a run split to gain
		// the time_min_sec column (the first job with a time-min) keeps
		// its number, and the merge (which such a split forces) reads its
		// two files in order.
		index := len(w.runs)
		if w.cur != nil {
			index = w.cur.index
			if run > index {
				index++
			}
		}
		if err := w.finishRun(); err != nil {
			return err
		}
		rw, err := w.newRun(index)
		if err != nil {
			return err
		}
		w.cur = rw
	}
	return w.cur.add(j, w.dropped)
}

func (w *Writer) dropped(kept, dropped *Job) {
	w.dups++
	if w.opts.OnDuplicate != nil {
		w.opts.OnDuplicate(kept, dropped)
	}
}

func (w *Writer) newRun(index int) (*runWriter, error) {
	f, err := os.CreateTemp(w.opts.TempDir, "."+filepath.Base(w.path)+".run"+strconv.Itoa(index)+"-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("create sort run: %w", err)
	}
	rw, err := newRunWriter(f, index, w.timeMin, w.opts.RowGroupRows, w.writerOptions(w.timeMin))
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return rw, nil
}

// writerOptions returns the options of a run file, of schema version 3
// when v3 and 2 otherwise.
func (w *Writer) writerOptions(v3 bool) []parquet.WriterOption {
	opts := []parquet.WriterOption{
		parquet.Compression(&zstd.Codec{Level: zstd.SpeedFastest}),
		parquet.MaxRowsPerRowGroup(int64(w.opts.RowGroupRows)),
		parquet.CreatedBy("mirage", strconv.Itoa(schemaOf(v3)), ""),
		// Delta-encoded integers (times, IDs, counts) are far smaller
		// before compression, so zstd has less to do.
		parquet.DefaultEncodingFor(parquet.Int64, &parquet.DeltaBinaryPacked),
		parquet.DefaultEncodingFor(parquet.Int32, &parquet.DeltaBinaryPacked),
	}
	// Page min/max of text columns (in the column index and in page
	// headers) help no query and cost a scan of every page; numeric and
	// time columns keep theirs.
	for _, col := range textColumns {
		opts = append(opts, parquet.SkipPageBounds(col), parquet.SkipPageStatistics(col))
	}
	return opts
}

// SetMetadata sets a key-value metadata entry of the output; call it
// before Close. Entries are written in key order.
func (w *Writer) SetMetadata(key, value string) {
	if w.opts.Metadata == nil {
		w.opts.Metadata = map[string]string{}
	}
	w.opts.Metadata[key] = value
}

// schemaOf returns the schema version of a file with (v3) or without the
// time_min_sec column.
func schemaOf(v3 bool) int {
	if v3 {
		return SchemaVersion
	}
	return schemaV2
}

// metadata returns the entries to write, MetaSchemaVersion included (3
// for a file with the time_min_sec column, v3; else 2), in key order.
func (w *Writer) metadata(v3 bool) [][2]string {
	m := maps.Clone(w.opts.Metadata)
	if m == nil {
		m = map[string]string{}
	}
	m[MetaSchemaVersion] = strconv.Itoa(schemaOf(v3))
	out := make([][2]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, [2]string{k, m[k]})
	}
	return out
}

func (w *Writer) finishRun() error {
	if w.cur == nil {
		return nil
	}
	rf, err := w.cur.close(w.metadata(w.cur.v3))
	w.cur = nil
	if err != nil {
		return err
	}
	w.runs = append(w.runs, rf)
	w.nruns++
	return nil
}

// Close drains the sort, merges spilled runs and renames the result into
// place. It returns the first error; on error nothing is left at the path
// and temporary files are removed.
func (w *Writer) Close() error {
	if w.done {
		return nil
	}
	w.done = true
	err := w.close()
	if err != nil {
		w.cleanup()
	}
	return err
}

func (w *Writer) close() error {
	for i := w.head; i < len(w.win); i++ {
		if err := w.emit(&w.win[i], 0); err != nil {
			return err
		}
	}
	w.win, w.head = nil, 0
	for w.heap.len() > 0 {
		j, run := w.heap.top()
		if err := w.emit(j, run); err != nil {
			return err
		}
		w.heap.pop()
	}
	if w.cur == nil && len(w.runs) == 0 {
		// No rows: still write a valid, empty file.
		rw, err := w.newRun(0)
		if err != nil {
			return err
		}
		w.cur = rw
	}
	if err := w.finishRun(); err != nil {
		return err
	}
	if len(w.runs) == 1 {
		w.rows = w.runs[0].rows
		return w.publish(w.runs[0].path)
	}
	return w.mergeRuns()
}

// publish makes the finished run file tmp durable and renames it into
// place, readable by everyone the umask allows.
func (w *Writer) publish(tmp string) error {
	f, err := os.OpenFile(tmp, os.O_RDWR, 0)
	if err == nil {
		err = f.Chmod(0o644)
		if serr := f.Sync(); err == nil {
			err = serr
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("publish trace %s: %w", w.path, err)
	}
	if err := os.Rename(tmp, w.path); err != nil {
		return fmt.Errorf("publish trace %s: %w", w.path, err)
	}
	w.runs = nil
	return nil
}

// Abort discards everything written; it is a no-op after Close.
func (w *Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.cleanup()
}

func (w *Writer) cleanup() {
	if w.cur != nil {
		w.cur.abort()
		w.cur = nil
	}
	for _, r := range w.runs {
		os.Remove(r.path)
	}
	w.runs = nil
}

// Rows returns the number of jobs in the file; valid after Close.
func (w *Writer) Rows() int64 { return w.rows }

// Duplicates returns the number of jobs dropped as duplicates; valid after
// Close.
func (w *Writer) Duplicates() int64 { return w.dups }

// Runs returns the number of sorted runs the input needed (1 when it was
// sorted within RowGroupRows); valid after Close.
func (w *Writer) Runs() int { return max(1, w.nruns) }
