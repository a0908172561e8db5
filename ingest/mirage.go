package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mirage-hpc/mirage/trace"
)

// readMirage reads the Mirage artifact's trace format (ls6-a100.log): an
// optional line holding a count, a space-aligned sacct header, a line of
// dashes, then TAB-separated rows. Columns are matched by name; TimelimitR
// (the header's truncation of TimelimitRaw) is in minutes.
//
// A row with more fields than the header is repaired when the header
// starts JobID, JobName, UID: the first three fields and the last ones are
// anchored and the extra tokens in between dropped (JobID 746545 of LS6
// has an extra token after UID). The job is flagged
// trace.RepairShiftedFields.
func readMirage(c *collector, r io.Reader, z *zone, cluster string) error {
	lr := newLineReader(r)
	lr.max = c.maxLine
	line, err := nextNonBlank(lr)
	if err == io.EOF {
		return fmt.Errorf("%s: %w", c.path, ErrEmptyInput)
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", c.path, err)
	}
	declared := int64(-1)
	if t := bytes.TrimSpace(line); isDigits(t) {
		declared, _ = strconv.ParseInt(string(t), 10, 64)
		if line, err = nextNonBlank(lr); err != nil {
			return fmt.Errorf("%s: %w: a count line but no header", c.path, ErrHeaderOnly)
		}
	}
	headerLine := lr.line
	header := bytes.Fields(line)
	lay, lerr := newLayout(header, nil)
	if lerr != nil {
		return &ParseError{Path: c.path, Line: headerLine, Err: lerr}
	}
	p := rowParser{lay: lay, zone: z, cluster: cluster, path: c.path, source: c.source, strs: interner{}}
	noteNoSubmit(c, &lay)
	anchored := len(header) > 3 && strings.EqualFold(string(header[0]), "JobID") &&
		strings.EqualFold(string(header[1]), "JobName") && strings.EqualFold(string(header[2]), "UID")
	var fields [][]byte
	var j trace.Job
	rows := int64(0)
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		var le *longLineError
		if errors.As(err, &le) {
			rows++
			if err := c.longLine(le); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", c.path, err)
		}
		if len(bytes.TrimSpace(line)) == 0 || (rows == 0 && isDashes(bytes.TrimSpace(line))) {
			continue
		}
		rows++
		if err := c.row(); err != nil {
			return err
		}
		n := lr.line
		fields = splitInto(fields, line, '\t')
		repair := ""
		if len(fields) > lay.width && anchored {
			extra := len(fields) - lay.width
			fields = append(fields[:3], fields[3+extra:]...)
			repair = trace.RepairShiftedFields
		}
		var perr *ParseError
		if len(fields) != lay.width {
			perr = &ParseError{Path: c.path, Line: n, Err: fmt.Errorf("%w: %d, header has %d", ErrFieldCount, len(fields), lay.width)}
		}
		var id jobID
		var rawID []byte
		if perr == nil {
			id, rawID, perr = p.jobID(fields, n)
		}
		if perr == nil && id.step != nil {
			perr = &ParseError{Path: c.path, Line: n, Field: lay.names[colJobID], Err: fmt.Errorf("%w: %q", ErrOrphanStep, rawID)}
		}
		if perr == nil {
			perr = p.parse(fields, n, id, rawID, &j)
		}
		if perr != nil {
			if err := c.bad(perr, line); err != nil {
				return err
			}
			continue
		}
		if p.textErr != nil && c.strict {
			return p.textErr
		}
		if repair != "" {
			j.Repair = addRepair(repair, j.Repair)
		}
		if err := c.job(&j); err != nil {
			return err
		}
	}
	if rows == 0 {
		return fmt.Errorf("%s: %w", c.path, ErrHeaderOnly)
	}
	if declared >= 0 && declared != rows+2 && declared != rows {
		c.note(fmt.Sprintf("count line says %d; the file has %d rows", declared, rows))
	}
	c.sum.DSTAmbiguous += p.ambiguous
	return nil
}

func nextNonBlank(lr *lineReader) ([]byte, error) {
	for {
		line, err := lr.next()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
	}
}
