package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/mirage-hpc/mirage/trace"
)

// sacctReader reads `sacct --parsable2` (or `--parsable`, whose lines end
// with the delimiter) output with a header line. Columns are matched by
// name, in any order and subset; the delimiter is '|' or, with
// --delimiter=$'\t', TAB.
//
// Step rows (N.batch, N.extern, N.0, ...) follow their allocation in
// sacct's output and are folded into it. With sacct -D a requeued job
// appears once per attempt; an attempt after a requeueable state (see
// trace.State.Requeueable) gets the next Attempt index.
type sacctReader struct {
	c    *collector
	p    rowParser
	sep  byte
	trim bool // --parsable: drop the empty field after the trailing '|'
	// columns are the header's column names, in order.
	columns [][]byte

	open     trace.Job // allocation waiting for its steps
	hasOpen  bool
	attempts attempts
}

func readSacct(c *collector, r io.Reader, z *zone, cluster string) error {
	lr := newLineReader(r)
	lr.max = c.maxLine
	var header []byte
	for {
		line, err := lr.next()
		if err == io.EOF {
			return fmt.Errorf("%s: %w", c.path, ErrEmptyInput)
		}
		var le *longLineError
		if errors.As(err, &le) {
			return &ParseError{Path: c.path, Line: le.line, Err: fmt.Errorf("header: %w", le.reason())}
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", c.path, err)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			header = bytes.Clone(line)
			break
		}
	}
	s := &sacctReader{c: c, attempts: attempts{}}
	s.sep = '|'
	if bytes.IndexByte(header, '|') < 0 && bytes.IndexByte(header, '\t') >= 0 {
		s.sep = '\t'
	}
	fields, n := splitLimit(nil, header, s.sep, maxColumns)
	if n > maxColumns {
		return &ParseError{Path: c.path, Line: lr.line, Err: fmt.Errorf("%w: the header has %d columns, more than %d", ErrFieldCount, n, maxColumns)}
	}
	if len(fields) > 1 && len(fields[len(fields)-1]) == 0 {
		s.trim = true
		fields = fields[:len(fields)-1]
	}
	if len(fields) == 1 && len(bytes.Fields(header)) > 1 {
		return fmt.Errorf("%s: %w", c.path, ErrFixedWidth)
	}
	lay, err := newLayout(fields)
	if err != nil {
		return &ParseError{Path: c.path, Line: lr.line, Err: err}
	}
	s.columns = fields
	s.p = rowParser{lay: lay, zone: z, cluster: cluster, path: c.path, source: c.source, strs: interner{}}
	noteNoSubmit(c, &lay)
	rows0 := c.in.RowsRead
	if err := s.rows(lr); err != nil {
		return err
	}
	if c.in.RowsRead == rows0 {
		return fmt.Errorf("%s: %w", c.path, ErrHeaderOnly)
	}
	c.sum.DSTAmbiguous += s.p.ambiguous
	return nil
}

func (s *sacctReader) rows(lr *lineReader) error {
	var fields [][]byte
	var next trace.Job
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		var le *longLineError
		if errors.As(err, &le) {
			// Its job is unknown: close the open allocation, so that the
			// steps after it are orphans, not folded into the wrong job.
			if err := s.flush(); err != nil {
				return err
			}
			if err := s.c.longLine(le); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", s.c.path, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := s.c.row(); err != nil {
			return err
		}
		n := lr.line
		var nf int
		fields, nf = splitLimit(fields, line, s.sep, s.p.lay.width+1)
		if s.trim && nf == len(fields) && nf > 1 && len(fields[nf-1]) == 0 {
			fields = fields[:nf-1]
			nf--
		}
		if nf != s.p.lay.width {
			perr := &ParseError{Path: s.c.path, Line: n, Err: fmt.Errorf("%w: %d, header has %d", ErrFieldCount, nf, s.p.lay.width)}
			if err := s.c.bad(perr, rawPrefixIf(nf > s.p.lay.width+1, line)); err != nil {
				return err
			}
			continue
		}
		if i := longField(fields, s.c.fieldLimit()); i >= 0 {
			if err := s.flush(); err != nil {
				return err
			}
			perr := &ParseError{Path: s.c.path, Line: n, Field: string(s.columns[i]),
				Err: fmt.Errorf("%w: %d bytes, the limit is %d (--max-field-bytes)", ErrFieldTooLong, len(fields[i]), s.c.fieldLimit())}
			if err := s.c.bad(perr, rawPrefix(line)); err != nil {
				return err
			}
			continue
		}
		id, rawID, perr := s.p.jobID(fields, n)
		if perr == nil && id.step != nil {
			if s.hasOpen && string(id.base) == s.open.JobID {
				s.open.Steps++
				s.c.step()
				continue
			}
			perr = &ParseError{Path: s.c.path, Line: n, Field: s.p.lay.names[colJobID], Err: fmt.Errorf("%w: %q", ErrOrphanStep, rawID)}
		}
		if perr == nil {
			if perr = s.p.parse(fields, n, id, rawID, &next); perr != nil {
				// A bad allocation row closes the open one, so that its
				// steps are orphans instead of folding into the wrong job.
				if err := s.flush(); err != nil {
					return err
				}
			}
		}
		if perr != nil {
			if err := s.c.bad(perr, line); err != nil {
				return err
			}
			continue
		}
		if s.p.textErr != nil && s.c.strict {
			return s.p.textErr
		}
		s.attempts.set(&next)
		if err := s.flush(); err != nil {
			return err
		}
		s.open, s.hasOpen = next, true
	}
	return s.flush()
}

func (s *sacctReader) flush() error {
	if !s.hasOpen {
		return nil
	}
	s.hasOpen = false
	return s.c.job(&s.open)
}

// noSubmitNote is the note for a header without a Submit column.
const noSubmitNote = "no Submit column: every job's submit time is unknown (NULL), so waits cannot be computed and the simulator cannot replay the jobs; re-run sacct with --format=...,Submit,Eligible,Start,End,..."

// noteNoSubmit notes a header without a Submit column. It is a warning,
// not an error: sacct's default --parsable2 columns have no Submit, and
// such a dump is still a valid list of jobs.
func noteNoSubmit(c *collector, lay *layout) {
	if !lay.has(colSubmit) {
		c.note(noSubmitNote)
	}
}
