package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

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

	// csv splits rows as comma-separated values with quotes (FormatCSV);
	// scratch holds their unescaped quoted fields.
	csv     bool
	scratch []byte
	// numbered counts, per plain numeric job ID, the rows with that ID
	// seen so far, when the input is read through a ColumnMap (nil
	// otherwise); see number.
	numbered map[int64]int64
	// renumbered counts the rows number renamed; firstRenumbered is the
	// first one's line.
	renumbered, firstRenumbered int64
}

// readSacct reads sacct --parsable2 output, or with csv comma-separated
// values with a header (FormatCSV), its columns renamed by opts.Columns.
func readSacct(c *collector, r io.Reader, z *zone, opts *Options, csv bool) error {
	cluster := opts.Cluster
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
	s := &sacctReader{c: c, attempts: attempts{}, csv: csv}
	s.sep = '|'
	if bytes.IndexByte(header, '|') < 0 && bytes.IndexByte(header, '\t') >= 0 {
		s.sep = '\t'
	}
	var fields [][]byte
	var n int
	if csv {
		s.sep = ','
		var err error
		if fields, n, err = splitCSV(nil, header, &s.scratch, maxColumns); err != nil {
			return &ParseError{Path: c.path, Line: lr.line, Err: fmt.Errorf("header: %w", err)}
		}
		fields = cloneFields(fields)
	} else {
		fields, n = splitLimit(nil, header, s.sep, maxColumns)
	}
	if n > maxColumns {
		return &ParseError{Path: c.path, Line: lr.line, Err: fmt.Errorf("%w: the header has %d columns, more than %d", ErrFieldCount, n, maxColumns)}
	}
	if len(fields) > 1 && len(fields[len(fields)-1]) == 0 {
		s.trim = true
		fields = fields[:len(fields)-1]
	}
	if len(fields) == 1 && len(bytes.Fields(header)) > 1 && !csv {
		return fmt.Errorf("%s: %w", c.path, ErrFixedWidth)
	}
	var cmap *ColumnMap
	if !opts.Columns.IsZero() {
		cmap = &opts.Columns
		if miss := cmap.missing(fields); len(miss) > 0 {
			return &ParseError{Path: c.path, Line: lr.line, Err: fmt.Errorf("%w: --columns names %q, which the header %q does not have", ErrMissingColumn, miss, header)}
		}
		s.numbered = map[int64]int64{}
	}
	lay, err := newLayout(fields, cmap)
	if err != nil {
		return &ParseError{Path: c.path, Line: lr.line, Err: err}
	}
	s.columns = fields
	s.p = rowParser{lay: lay, zone: z, cluster: cluster, path: c.path, source: c.source, strs: interner{}, wholeNums: csv || cmap != nil}
	noteNoSubmit(c, &lay)
	rows0 := c.in.RowsRead
	if err := s.rows(lr); err != nil {
		return err
	}
	if c.in.RowsRead == rows0 {
		return fmt.Errorf("%s: %w", c.path, ErrHeaderOnly)
	}
	if s.renumbered > 0 {
		c.note(fmt.Sprintf("%d rows repeat the job ID of an earlier row (the first at line %d) and the input has no array index: each is kept as its own job, an array task N_K of the ID N with K its place among the later rows with that ID (the first row keeps N), marked %s", s.renumbered, s.firstRenumbered, RepairArrayTaskNumbered))
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
		if s.csv {
			var qerr error
			if fields, nf, qerr = splitCSV(fields, line, &s.scratch, s.p.lay.width+1); qerr != nil {
				if err := s.flush(); err != nil {
					return err
				}
				if err := s.c.bad(&ParseError{Path: s.c.path, Line: n, Err: qerr}, rawPrefixIf(len(line) > 1024, line)); err != nil {
					return err
				}
				continue
			}
		} else {
			fields, nf = splitLimit(fields, line, s.sep, s.p.lay.width+1)
		}
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
		s.number(&next, id, n)
		if err := s.flush(); err != nil {
			return err
		}
		s.open, s.hasOpen = next, true
	}
	return s.flush()
}

// RepairArrayTaskNumbered is the trace.Job.Repair value of a row that
// repeats an earlier row's job ID in an input read through a ColumnMap
// with no array index (exports that list each array task under the
// array's ID): it is kept as the array task N_K, K its place among the
// later rows with ID N.
const RepairArrayTaskNumbered = "array-task-numbered"

// number makes a row that repeats a plain job ID of an earlier row its
// own job, when the input is read through a ColumnMap: exports such as
// NREL Eagle's list each task of an array under the array's ID, with no
// index, and those rows are distinct jobs, not duplicates. A requeue
// attempt (j.Attempt > 0) keeps its ID.
func (s *sacctReader) number(j *trace.Job, id jobID, line int64) {
	if s.numbered == nil || id.array || id.het || id.step != nil || j.Attempt > 0 {
		return
	}
	k := s.numbered[id.id]
	s.numbered[id.id] = k + 1
	if k == 0 {
		return
	}
	j.JobID = strconv.FormatInt(id.id, 10) + "_" + strconv.FormatInt(k, 10)
	j.ArrayJobID, j.ArrayTaskID = id.id, k
	if !s.p.lay.has(colJobIDRaw) {
		j.JobIDRaw = 0
	}
	j.Repair = addRepair(j.Repair, RepairArrayTaskNumbered)
	if s.renumbered == 0 {
		s.firstRenumbered = line
	}
	s.renumbered++
}

// cloneFields copies fields out of the buffers they share.
func cloneFields(fields [][]byte) [][]byte {
	out := make([][]byte, len(fields))
	for i, f := range fields {
		out[i] = bytes.Clone(f)
	}
	return out
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
