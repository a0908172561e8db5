package ingest

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mirage-hpc/mirage/internal/atomicfile"
	"github.com/mirage-hpc/mirage/trace"
)

// MetaIngest is the trace metadata key under which Run records how the
// file was made (formats, time zone, cluster, inputs), as JSON.
const MetaIngest = "mirage.ingest"

// readFunc reads one decompressed input into c.
type readFunc func(c *collector, r io.Reader, z *zone, opts *Options) error

var readers = map[Format]readFunc{
	FormatSacct: func(c *collector, r io.Reader, z *zone, o *Options) error {
		return readSacct(c, r, z, o, false)
	},
	FormatCSV: func(c *collector, r io.Reader, z *zone, o *Options) error {
		return readSacct(c, r, z, o, true)
	},
	FormatMirage: func(c *collector, r io.Reader, z *zone, o *Options) error {
		return readMirage(c, r, z, o.Cluster)
	},
	FormatSWF:       readSWF,
	FormatSacctJSON: readSacctJSON,
}

// Run reads inputs and writes one trace file at output, sorted by Submit,
// plus the quarantine file (always, possibly empty). Both are written to
// temporary files in their directories and renamed into place only when
// the whole run succeeded: on error the previous output and quarantine
// file, if any, are left exactly as they were.
//
// Before reading anything, Run refuses (ErrOutputIsInput) an output or
// quarantine path that is one of the inputs (the same file, by device and
// inode, or the same name) or that is the other output, and a negative
// opts.RowGroupRows or a cluster name that is not clean text
// (ErrBadOption).
//
// Whole-input problems (unknown format, fixed-width sacct, empty or
// header-only input, a duplicated or missing header column) stop the run
// with an error wrapping ErrUnknownFormat, ErrFixedWidth, ErrEmptyInput,
// ErrHeaderOnly, ErrDuplicateColumn or ErrMissingColumn. With opts.Strict
// the first bad row (a duplicate job included) stops it with a
// *ParseError. A run whose every row was quarantined fails with ErrNoJobs
// unless opts.AllowEmpty; its Summary is still filled in.
func Run(ctx context.Context, inputs []string, output string, opts Options) (Summary, error) {
	sum := Summary{Output: output}
	if len(inputs) == 0 {
		return sum, errors.New("ingest: no input files")
	}
	if opts.RowGroupRows < 0 {
		return sum, fmt.Errorf("ingest: %w: %d rows per row group (want 1 or more, or 0 for the default %d)", ErrBadOption, opts.RowGroupRows, trace.DefaultRowGroupRows)
	}
	if err := checkOptions(&opts); err != nil {
		return sum, err
	}
	if opts.Location == nil {
		opts.Location = time.UTC
	}
	z := newZone(opts.Location)
	sum.TimeZone = z.name()
	qpath := opts.Quarantine
	if qpath == "" {
		qpath = DefaultQuarantinePath(output)
	}
	sum.QuarantineFile = qpath
	if err := checkOutputs(inputs, output, qpath); err != nil {
		return sum, err
	}
	unlock, err := lockOutputs(output, qpath)
	if err != nil {
		return sum, err
	}
	defer unlock()
	tmpOut, err := reserveTemp(output)
	if err != nil {
		return sum, err
	}
	q, err := newQuarantineWriter(qpath)
	if err != nil {
		os.Remove(tmpOut)
		return sum, err
	}
	// Duplicates are found by the writing goroutine; it keeps its own
	// counts, merged into sum once it is done.
	var dups struct {
		n, repaired int64
		perInput    map[string]int64
		strictErr   error
	}
	dups.perInput = map[string]int64{}
	names := SourceNames(inputs)
	pathOf := map[string]string{} // source name: the input as named in messages
	for i, n := range names {
		pathOf[n], _ = cleanString(inputs[i])
	}
	w, err := trace.Create(tmpOut, trace.WriterOptions{
		RowGroupRows: opts.RowGroupRows,
		OnDuplicate: func(kept, dropped *trace.Job) {
			perr := &ParseError{Path: pathOf[dropped.SourceFile], Line: dropped.SourceLine, Field: "JobID",
				Err: fmt.Errorf("%w: %s attempt %d submitted %s is repeated at %s, which is kept",
					ErrDuplicate, dropped.JobID, dropped.Attempt, dropped.Submit.Format(time.RFC3339), kept.Position())}
			dups.n++
			if dropped.Repair != "" {
				dups.repaired++
			}
			if opts.Strict {
				if dups.strictErr == nil {
					dups.strictErr = perr
				}
				return
			}
			dups.perInput[dropped.SourceFile]++
			if werr := q.write(QuarantineRecord{File: dropped.SourceFile, Line: perr.Line, Field: perr.Field, Reason: perr.Err.Error()}); werr != nil && dups.strictErr == nil {
				dups.strictErr = werr
			}
		},
	})
	if err != nil {
		q.abort()
		os.Remove(tmpOut)
		return sum, err
	}
	ok := false
	defer func() {
		if !ok {
			w.Abort()
			q.abort()
			os.Remove(tmpOut)
		}
	}()
	q.pathOf = pathOf
	sum.Inputs = make([]InputSummary, len(inputs))
	var formats []string
	p := newPipe(w)
	for i, path := range inputs {
		sum.Inputs[i].Path, sum.Inputs[i].Name = path, names[i]
		f, err := readInput(ctx, path, i, len(inputs), &sum, p, q, z, &opts)
		if err != nil {
			p.close()
			return sum, err
		}
		if !containsString(formats, f.String()) {
			formats = append(formats, f.String())
		}
	}
	sum.Format = strings.Join(formats, ",")
	if err := p.close(); err != nil {
		return sum, err
	}
	w.SetMetadata(MetaIngest, ingestMetadata(&sum, &opts))
	if err := w.Close(); err != nil {
		return sum, err
	}
	sum.Duplicates = dups.n
	sum.Repaired -= dups.repaired
	if !opts.Strict {
		sum.Quarantined += dups.n
		for i := range sum.Inputs {
			sum.Inputs[i].Quarantined += dups.perInput[sum.Inputs[i].Name]
		}
	}
	if dups.strictErr != nil {
		return sum, dups.strictErr
	}
	logInputs(opts.Logger, &sum)
	sum.Jobs = w.Rows()
	sum.Balanced = sum.RowsRead == sum.Jobs+sum.StepsFolded+sum.Quarantined
	if !sum.Balanced {
		return sum, fmt.Errorf("ingest: counts do not add up: %d rows read != %d jobs + %d steps folded + %d quarantined (a bug; please report it)",
			sum.RowsRead, sum.Jobs, sum.StepsFolded, sum.Quarantined)
	}
	if sum.Jobs == 0 && !opts.AllowEmpty {
		return sum, fmt.Errorf("ingest: %w (%d rows read, %d quarantined%s; the first: %s); %s and %s are unchanged",
			ErrNoJobs, sum.RowsRead, sum.Quarantined, q.topFieldText(), q.firstReason(), output, qpath)
	}
	if err := q.finish(); err != nil {
		return sum, err
	}
	if err := publish(tmpOut, output); err != nil {
		return sum, err
	}
	ok = true
	if err := q.publish(); err != nil {
		return sum, err
	}
	return sum, nil
}

// checkOptions returns an error wrapping ErrBadOption for an Options value
// out of its range.
func checkOptions(opts *Options) error {
	switch {
	case !isPlainText([]byte(opts.Cluster)):
		return fmt.Errorf("ingest: %w: cluster name %q is not valid UTF-8 or holds a control character", ErrBadOption, opts.Cluster)
	case opts.MaxLineBytes < 0:
		return fmt.Errorf("ingest: %w: --max-line-bytes %d (want 1 or more, or 0 for the default %d)", ErrBadOption, opts.MaxLineBytes, DefaultMaxLineBytes)
	case opts.MaxFieldBytes < 0:
		return fmt.Errorf("ingest: %w: --max-field-bytes %d (want 1 or more, or 0 for the default %d)", ErrBadOption, opts.MaxFieldBytes, DefaultMaxFieldBytes)
	}
	return nil
}

// lockOutputs takes the lock of the trace output (which covers its
// default quarantine file) and of a quarantine file elsewhere, so that a
// concurrent run writing the same output fails (atomicfile.ErrLocked, with
// the holder's PID) instead of mixing its trace with the other's
// quarantine file; then it removes the temporaries that killed runs left
// beside both. It returns the function that releases the locks.
func lockOutputs(output, qpath string) (func(), error) {
	paths := []string{output}
	if qpath != DefaultQuarantinePath(output) {
		paths = append(paths, qpath)
	}
	var locks []*atomicfile.Lock
	unlock := func() {
		for _, l := range locks {
			l.Unlock()
		}
	}
	for _, p := range paths {
		l, err := atomicfile.TryLock(p)
		if err != nil {
			unlock()
			return nil, fmt.Errorf("ingest: %w", err)
		}
		locks = append(locks, l)
	}
	for _, p := range []string{output, qpath} {
		if _, err := atomicfile.RemoveStale(p); err != nil {
			unlock()
			return nil, fmt.Errorf("ingest: %w", err)
		}
	}
	return unlock, nil
}

// reserveTemp creates an empty temporary file next to path, for the trace
// writer to fill and replace; the caller removes it on failure. Its name
// (atomicfile.CreateTemp) lets the next run remove it if this one is
// killed.
func reserveTemp(path string) (string, error) {
	f, err := atomicfile.CreateTemp(path)
	if err != nil {
		return "", fmt.Errorf("create output %s: %w", path, err)
	}
	name := f.Name()
	if err := f.Close(); err != nil {
		os.Remove(name)
		return "", fmt.Errorf("create output %s: %w", path, err)
	}
	return name, nil
}

// publish renames the finished temporary trace tmp to path.
func publish(tmp, path string) error {
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write output %s: %w", path, err)
	}
	return nil
}

// checkOutputs returns an error wrapping ErrOutputIsInput when an output
// path names one of the inputs (the same name, or the same file by device
// and inode: a hard link, a symbolic link, another spelling of the path),
// or when the two outputs are one file.
func checkOutputs(inputs []string, output, quarantine string) error {
	outs := []struct{ what, path string }{{"output", output}, {"quarantine file", quarantine}}
	if samePath(output, quarantine) {
		return fmt.Errorf("ingest: %w: the output and the quarantine file are both %s", ErrOutputIsInput, output)
	}
	for _, out := range outs {
		for _, in := range inputs {
			if samePath(out.path, in) {
				return fmt.Errorf("ingest: %w: the %s %s is the input %s; writing it would destroy the input", ErrOutputIsInput, out.what, out.path, in)
			}
		}
	}
	return nil
}

// samePath reports whether a and b name the same file: equal cleaned
// absolute paths, or, when both exist, os.SameFile.
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	ab, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == ab {
		return true
	}
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(sa, sb)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// headBytes is how much of an input Detect looks at.
const headBytes = 64 << 10

// readInput reads one input file and returns its format.
func readInput(ctx context.Context, path string, idx, n int, sum *Summary, w jobWriter, q *quarantineWriter, z *zone, opts *Options) (Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return FormatAuto, fmt.Errorf("open input: %w", err)
	}
	defer f.Close()
	var size int64
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	h := sha256.New()
	cr := &countingReader{r: io.TeeReader(f, h)}
	r, comp, closeFn, err := decompress(cr)
	if err != nil {
		return FormatAuto, fmt.Errorf("read %s: %w", path, err)
	}
	defer closeFn()
	in := &sum.Inputs[idx]
	in.Compression = comp
	br := bufio.NewReaderSize(r, headBytes)
	skipBOM(br)
	format := opts.Format
	if format == FormatAuto {
		head, err := br.Peek(headBytes)
		if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
			return FormatAuto, fmt.Errorf("read %s: %w", path, err)
		}
		if format, err = detectWith(head, opts); err != nil {
			return FormatAuto, fmt.Errorf("%s: %w", path, err)
		}
	}
	read, ok := readers[format]
	if !ok {
		return format, fmt.Errorf("%s: %w: no reader for %s", path, ErrUnknownFormat, format)
	}
	in.Format = format.String()
	// The path and the name are strings of messages and of the output
	// (source_file): clean text, like every other string (a file name may
	// hold any byte).
	name, _ := cleanString(path)
	c := &collector{
		ctx: ctx, w: w, q: q, strict: opts.Strict, sum: sum, in: in, path: name, source: in.Name,
		maxLine: opts.MaxLineBytes, maxField: opts.MaxFieldBytes,
		progress: opts.Progress,
		prog:     Progress{Input: path, InputIndex: idx, Inputs: n, Size: size},
		bytes:    cr.n.Load,
	}
	if err := read(c, br, z, opts); err != nil {
		return format, err
	}
	// The digest covers the whole file, also what the reader left unread
	// (what follows a compressed stream).
	if _, err := io.Copy(io.Discard, cr); err != nil {
		return format, fmt.Errorf("read %s: %w", path, err)
	}
	in.SHA256 = hex.EncodeToString(h.Sum(nil))
	c.report(true)
	return format, nil
}

// SourceNames returns the name each input is recorded under in the
// output (InputSummary.Name): its base name, as clean text, or NAME#N
// (N the input's 1-based place) when another input has the same base
// name.
func SourceNames(inputs []string) []string {
	names := make([]string, len(inputs))
	count := map[string]int{}
	for i, p := range inputs {
		names[i], _ = cleanString(filepath.Base(p))
		count[names[i]]++
	}
	for i, n := range names {
		if count[n] > 1 {
			names[i] = n + "#" + strconv.Itoa(i+1)
		}
	}
	return names
}

// logInputs logs each input's counts once duplicates (found only when
// the output is written) are merged in, so the log and the summary agree.
func logInputs(log *slog.Logger, sum *Summary) {
	if log == nil {
		return
	}
	for _, in := range sum.Inputs {
		log.Info("ingested input", "path", in.Path, "format", in.Format, "compression", in.Compression,
			"rows_read", in.RowsRead, "quarantined", in.Quarantined, "steps_folded", in.StepsFolded)
	}
}
