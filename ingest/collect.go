package ingest

import (
	"context"

	"github.com/mirage-hpc/mirage/trace"
)

// jobWriter receives the jobs of a run: a *trace.Writer, or a callback.
type jobWriter interface {
	Write(j *trace.Job) error
}

// collector receives what a format reader makes of one input: jobs, folded
// steps and bad rows. It keeps the counts, writes jobs to the trace writer
// and bad rows to the quarantine file, and stops at the first bad row when
// strict.
type collector struct {
	ctx    context.Context
	w      jobWriter
	q      recordSink
	strict bool
	sum    *Summary
	in     *InputSummary
	// path names the input in messages (as the caller spelled it);
	// source in the output (source_file, the quarantine file's file):
	// what does not depend on the spelling.
	path, source string

	// maxLine and maxField are Options.MaxLineBytes and MaxFieldBytes
	// (0: the defaults).
	maxLine, maxField int

	progress func(Progress)
	prog     Progress
	bytes    func() int64
}

// row counts one data row read; it checks for cancellation and reports
// progress every ProgressEvery rows.
func (c *collector) row() error {
	c.sum.RowsRead++
	c.in.RowsRead++
	if c.sum.RowsRead%ProgressEvery == 0 {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		c.report(false)
	}
	return nil
}

func (c *collector) report(done bool) {
	if c.progress == nil {
		return
	}
	c.prog.Rows = c.sum.RowsRead
	c.prog.Done = done
	if c.bytes != nil {
		c.prog.Bytes = c.bytes()
	}
	c.progress(c.prog)
}

// job writes a parsed job.
func (c *collector) job(j *trace.Job) error {
	if j.Repair != "" {
		c.sum.Repaired++
		c.in.Repaired++
	}
	return c.w.Write(j)
}

// step counts a step row folded into its allocation.
func (c *collector) step() {
	c.sum.StepsFolded++
	c.in.StepsFolded++
}

// bad quarantines a row, or returns perr when strict.
func (c *collector) bad(perr *ParseError, raw []byte) error {
	if c.strict {
		return perr
	}
	c.sum.Quarantined++
	c.in.Quarantined++
	reason := perr.Err.Error()
	return c.q.write(QuarantineRecord{File: c.source, Line: perr.Line, Field: perr.Field, Reason: reason, Raw: string(raw)})
}

// longLine counts and quarantines a line skipped for its length (or
// returns its *ParseError when strict).
func (c *collector) longLine(le *longLineError) error {
	if err := c.row(); err != nil {
		return err
	}
	return c.bad(&ParseError{Path: c.path, Line: le.line, Err: le.reason()}, le.prefix)
}

// fieldLimit returns the bound on one field's bytes.
func (c *collector) fieldLimit() int {
	if c.maxField > 0 {
		return c.maxField
	}
	return DefaultMaxFieldBytes
}

// rawPrefix returns at most the first quarantinePrefixBytes of raw, for
// the quarantine record of a row with an over-long field.
func rawPrefix(raw []byte) []byte { return raw[:min(len(raw), quarantinePrefixBytes)] }

// rawPrefixIf is rawPrefix(raw) when cut, else raw.
func rawPrefixIf(cut bool, raw []byte) []byte {
	if cut {
		return rawPrefix(raw)
	}
	return raw
}

// note records a remark about the input as a whole.
func (c *collector) note(s string) { c.in.Notes = append(c.in.Notes, s) }
