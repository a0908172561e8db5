package ingest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mirage-hpc/mirage/trace"
)

// funcWriter adapts a callback to jobWriter.
type funcWriter func(*trace.Job) error

func (f funcWriter) Write(j *trace.Job) error { return f(j) }

// Read parses one input stream (decompressed by magic bytes, format
// detected unless opts.Format is set) and calls fn for every job in input
// order, and bad for every quarantined row (bad may be nil). name is used
// as the SourceFile and in errors. Nothing is sorted, deduplicated or
// written: Read is the streaming core of Run, for library users and tests.
// The returned Summary has no Output, and Jobs counts fn's calls.
func Read(ctx context.Context, r io.Reader, name string, opts Options, fn func(*trace.Job) error, bad func(QuarantineRecord)) (Summary, error) {
	sum := Summary{Inputs: []InputSummary{{Path: name}}}
	if err := checkOptions(&opts); err != nil {
		return sum, err
	}
	if opts.Location == nil {
		opts.Location = time.UTC
	}
	z := newZone(opts.Location)
	sum.TimeZone = z.name()
	dr, comp, closeFn, err := decompress(r)
	if err != nil {
		return sum, fmt.Errorf("read %s: %w", name, err)
	}
	defer closeFn()
	in := &sum.Inputs[0]
	in.Compression = comp
	br := bufio.NewReaderSize(dr, headBytes)
	skipBOM(br)
	format := opts.Format
	if format == FormatAuto {
		head, err := br.Peek(headBytes)
		if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
			return sum, fmt.Errorf("read %s: %w", name, err)
		}
		if format, err = detectWith(head, &opts); err != nil {
			return sum, fmt.Errorf("%s: %w", name, err)
		}
	}
	read, ok := readers[format]
	if !ok {
		return sum, fmt.Errorf("%s: %w: no reader for %s", name, ErrUnknownFormat, format)
	}
	in.Format, sum.Format = format.String(), format.String()
	var q recordSink = discardRecords{}
	if bad != nil {
		q = funcRecords(bad)
	}
	name, _ = cleanString(name)
	c := &collector{
		ctx: ctx, strict: opts.Strict, sum: &sum, in: in, path: name, source: name, q: q,
		maxLine: opts.MaxLineBytes, maxField: opts.MaxFieldBytes,
		w: funcWriter(func(j *trace.Job) error { sum.Jobs++; return fn(j) }),
	}
	if err := read(c, br, z, &opts); err != nil {
		return sum, err
	}
	sum.Balanced = sum.RowsRead == sum.Jobs+sum.StepsFolded+sum.Quarantined
	return sum, nil
}

// recordSink receives quarantine records.
type recordSink interface {
	write(QuarantineRecord) error
}

type discardRecords struct{}

func (discardRecords) write(QuarantineRecord) error { return nil }

type funcRecords func(QuarantineRecord)

func (f funcRecords) write(r QuarantineRecord) error { f(r); return nil }
