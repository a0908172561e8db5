package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/mirage-hpc/mirage/trace"
)

// swfFields is the number of fields of an SWF data line.
const swfFields = 18

// The fields of an SWF data line, 0-indexed (the SWF specification numbers
// them from 1).
const (
	swfJob = iota
	swfSubmit
	swfWait
	swfRun
	swfAllocProcs
	swfAvgCPU
	swfUsedMem
	swfReqProcs
	swfReqTime
	swfReqMem
	swfStatus
	swfUID
	swfGID
	swfExecutable
	swfQueue
	swfPartition
	swfPrecedingJob
	swfThinkTime
)

// swfFieldNames are the field names ParseError.Field uses for SWF lines.
var swfFieldNames = [swfFields]string{
	"job_number", "submit_time", "wait_time", "run_time", "allocated_processors",
	"average_cpu_time", "used_memory", "requested_processors", "requested_time",
	"requested_memory", "status", "user_id", "group_id", "executable_number",
	"queue_number", "partition_number", "preceding_job_number", "think_time",
}

// swfKind says what values an SWF field may hold. Every field may be -1
// (unknown) except the job number; other negative values are refused.
type swfKind uint8

const (
	swfAny    swfKind = iota // a number, not interpreted (fields Mirage does not keep)
	swfJobNum                // a whole number >= 0
	swfTime                  // seconds; a fraction is truncated; at most swfMaxSeconds
	swfCount                 // a whole number of processors, at most math.MaxInt32
	swfWhole                 // a whole number (IDs, status, queue, partition)
	swfMem                   // kilobytes; a fraction is kept
)

var swfKinds = [swfFields]swfKind{
	swfJob: swfJobNum, swfSubmit: swfTime, swfWait: swfTime, swfRun: swfTime,
	swfAllocProcs: swfCount, swfAvgCPU: swfAny, swfUsedMem: swfAny, swfReqProcs: swfCount,
	swfReqTime: swfTime, swfReqMem: swfMem, swfStatus: swfWhole, swfUID: swfWhole,
	swfGID: swfWhole, swfExecutable: swfAny, swfQueue: swfWhole, swfPartition: swfWhole,
	swfPrecedingJob: swfAny, swfThinkTime: swfAny,
}

// SWF status codes (field 11).
const (
	swfFailed      = 0
	swfCompleted   = 1
	swfPartialMore = 2 // a partial execution that will be continued
	swfPartialDone = 3 // the last partial execution; the job completed
	swfPartialFail = 4 // the last partial execution; the job failed
	swfCancelled   = 5
)

// swfMaxSeconds bounds time fields and UnixStartTime (about 317 years), so
// that sums of them stay far inside time.Time's and Parquet's ranges.
const swfMaxSeconds = 1e10

// swfMaxMemMB bounds a job's total requested memory (1 EiB).
const swfMaxMemMB = 1 << 40

// readSWF reads the Standard Workload Format v2.2 of the Parallel Workloads
// Archive: header comments (lines starting with ';'), then one line per job
// of 18 numbers separated by ASCII white space (space, TAB, CR, VT, FF).
// -1 means unknown; other negative values are refused. Blank lines and
// comments are not rows; every data line is one (Summary.RowsRead).
//
// Header comments are read until the first data line; later comments are
// ignored (swf_header.go). UnixStartTime gives the instant the relative
// times count from; without it (or with -1) Options.StartTime does, and
// without that they count from the Unix epoch and a note says that dates
// are relative to 1970-01-01. A UnixStartTime that is not a number stops
// the read with a *ParseError, Strict or not, since every time would be
// wrong. MaxProcs/MaxNodes give the cores per node (a bad one is noted and
// ignored). TimeZoneString is ignored: SWF times are relative seconds, so
// the zone plays no part and z is unused.
//
// Each data line becomes a trace.Job:
//
//	JobID, JobIDRaw  the job number (JobID in canonical decimal form)
//	Submit           start + submit time (UTC); unknown when the submit
//	                 time is -1, and then so are Start and End
//	Start, End       see "Times" below
//	TimelimitSec     requested time; trace.NoLimit when -1
//	NCPUs            allocated processors, or requested processors when the
//	                 allocated count is -1 or 0; 0 when neither is known
//	NNodes           ceil(NCPUs / cores per node): MaxProcs/MaxNodes when the
//	                 header gives both and they divide evenly, else
//	                 Options.CoresPerNode when > 0, else NNodes = NCPUs (and
//	                 a note says processors were taken as nodes)
//	ReqMemMB         requested memory (KB per processor) * NCPUs / 1024,
//	                 rounded; trace.Unknown when memory or processors are -1
//	State            from the status: see swfState
//	UID, GID         user and group ID; trace.NoID when -1
//	Partition        the partition number in decimal ("" when -1)
//	QOS              the queue number in decimal ("" when -1); by SWF
//	                 convention queue 0 marks interactive jobs
//	Cluster          Options.Cluster
//
// Times, by status (field 11), wait time (3) and run time (4):
//
//	cancelled (5), run <= 0      never ran: no Start; End = Submit + wait
//	                             when the wait is known, else unknown
//	wait >= 0                    Start = Submit + wait; End = Start + run
//	                             when the run time is known
//	wait -1, run >= 0            ran from an unknown start: StartUnknown,
//	                             ElapsedSec = run, no Start or End
//	wait -1, run -1              nothing is known: no Start or End
//
// Time fields may be decimals ("12.5"); they are truncated to whole
// seconds. Processor counts, IDs, status, queue and partition must be whole
// numbers ("4.0" is accepted). Fields Mirage does not keep (average CPU
// time, used memory, executable, preceding job, think time) must still be
// numbers. A bad line is quarantined with the field's name (job_number,
// submit_time, ..., think_time; see swfFieldNames) and ErrFieldCount,
// ErrBadNumber, ErrBadJobID or trace.ErrBadState; a line whose every field
// but the job number is -1 is quarantined as a whole with ErrAllUnknown.
//
// Checkpointed or swapped jobs appear in SWF as a summary line (status 0,
// 1 or 5) plus one line per partial execution (status 2: to be continued,
// 3: last part, completed, 4: last part, failed), all with the same job
// number. The summary line is the job; its partial-execution lines, when
// adjacent to it (before or after), are folded into it like sacct steps
// (Job.Steps, Summary.StepsFolded). Adjacent partial lines without a
// summary line become one job: Submit and Start from the first, End and
// State from the last (2 PREEMPTED, 3 COMPLETED, 4 FAILED); when the first
// part's start is unknown, ElapsedSec sums the parts' run times.
func readSWF(c *collector, r io.Reader, _ *zone, opts *Options) error {
	if err := checkStartTime(opts.StartTime); err != nil {
		return fmt.Errorf("%s: %w", c.path, err)
	}
	s := &swfReader{c: c, opts: opts, strs: interner{}}
	lr := newLineReader(r)
	lr.max = c.maxLine
	comments := false
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		var le *longLineError
		if errors.As(err, &le) { // quarantined like any bad row
			if err := c.longLine(le); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", c.path, err)
		}
		t := trimSWFSpace(line)
		if len(t) == 0 {
			continue
		}
		if t[0] == ';' {
			comments = true
			if !s.inData {
				if err := s.header(t[1:], lr.line); err != nil {
					return err
				}
			}
			continue
		}
		if !s.inData {
			s.begin()
		}
		if err := c.row(); err != nil {
			return err
		}
		if err := s.line(t, line, lr.line); err != nil {
			return err
		}
	}
	if !s.inData {
		if comments {
			return fmt.Errorf("%s: %w", c.path, ErrHeaderOnly)
		}
		return fmt.Errorf("%s: %w", c.path, ErrEmptyInput)
	}
	if err := s.flush(); err != nil {
		return err
	}
	s.noteStartUnknown()
	return nil
}

// swfReader holds the state of one SWF input.
type swfReader struct {
	c    *collector
	opts *Options
	strs interner
	buf  []byte // scratch for decimal strings

	start    int64 // UnixStartTime, seconds
	hasStart bool
	maxNodes int64 // MaxNodes header, 0 when absent
	maxProcs int64 // MaxProcs header, 0 when absent
	cpn      int64 // cores per node, 0: processors are nodes
	inData   bool  // a data line was seen: the header is over

	startUnknown int64 // jobs written with StartUnknown

	fields [swfFields][]byte
	vals   [swfFields]int64
	next   trace.Job

	open        trace.Job // job waiting for adjacent partial-execution lines
	hasOpen     bool
	openPartial bool // open was made from partial-execution lines alone
}

// swfSpace marks the bytes that separate SWF fields: ASCII white space.
var swfSpace = [256]bool{' ': true, '\t': true, '\r': true, '\v': true, '\f': true}

func isSWFSpace(c byte) bool { return swfSpace[c] }

// trimSWFSpace trims ASCII white space from both ends of b.
func trimSWFSpace(b []byte) []byte {
	for len(b) > 0 && isSWFSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSWFSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// line parses one data line (t is the line trimmed, raw as read) and hands
// it on as a job, a folded partial execution, or a bad row.
func (s *swfReader) line(t, raw []byte, n int64) error {
	status, perr := s.parse(t, n, &s.next)
	if perr != nil {
		return s.c.bad(perr, raw)
	}
	return s.add(&s.next, status)
}

// split splits t at runs of white space into s.fields and returns the
// number of fields found (which may exceed swfFields).
func (s *swfReader) split(t []byte) int {
	nf := 0
	for i := 0; i < len(t); {
		for i < len(t) && isSWFSpace(t[i]) {
			i++
		}
		if i == len(t) {
			break
		}
		k := i
		for i < len(t) && !isSWFSpace(t[i]) {
			i++
		}
		if nf < swfFields {
			s.fields[nf] = t[k:i]
		}
		nf++
	}
	return nf
}

// parse fills j from the data line t and returns its status.
func (s *swfReader) parse(t []byte, line int64, j *trace.Job) (int64, *ParseError) {
	if nf := s.split(t); nf != swfFields {
		return 0, &ParseError{Path: s.c.path, Line: line,
			Err: fmt.Errorf("%w: %d, want %d", ErrFieldCount, nf, swfFields)}
	}
	if s.allUnknown() {
		return 0, &ParseError{Path: s.c.path, Line: line,
			Err: fmt.Errorf("%w: every field but the job number is -1", ErrAllUnknown)}
	}
	v := &s.vals
	for i := range s.fields {
		x, perr := s.value(i, line)
		if perr != nil {
			return 0, perr
		}
		v[i] = x
	}
	status := v[swfStatus]
	if status < -1 || status > swfCancelled {
		return 0, s.errf(line, swfStatus, fmt.Errorf("%w: SWF status %q (want 0, 1, 2, 3, 4, 5 or -1)", trace.ErrBadState, s.fields[swfStatus]))
	}

	*j = trace.NewJob()
	j.JobIDRaw = v[swfJob]
	j.JobID = strconv.FormatInt(v[swfJob], 10)
	j.Cluster = s.opts.Cluster
	j.SourceFile, j.SourceLine = s.c.source, line
	j.State = swfState(status)
	s.times(j, status)
	if perr := s.checkYears(j, line); perr != nil {
		return 0, perr
	}
	if v[swfReqTime] >= 0 {
		j.TimelimitSec = v[swfReqTime]
	}
	if perr := s.counts(j, line); perr != nil {
		return 0, perr
	}
	if v[swfUID] >= 0 {
		j.UID = v[swfUID]
	}
	if v[swfGID] >= 0 {
		j.GID = v[swfGID]
	}
	j.Partition = s.decimal(v[swfPartition])
	j.QOS = s.decimal(v[swfQueue])
	return status, nil
}

// allUnknown reports whether every field of the split line but the job
// number is -1 ("-1", "-1.0", ...).
func (s *swfReader) allUnknown() bool {
	for _, b := range s.fields[swfJob+1:] {
		if n, frac, _, err := swfNumber(b); err != nil || n != -1 || frac {
			return false
		}
	}
	return true
}

func (s *swfReader) errf(line int64, field int, err error) *ParseError {
	return &ParseError{Path: s.c.path, Line: line, Field: swfFieldNames[field], Err: err}
}

// value parses field i by its kind. It returns -1 for unknown.
func (s *swfReader) value(i int, line int64) (int64, *ParseError) {
	b := s.fields[i]
	kind := swfKinds[i]
	n, frac, neg, err := swfNumber(b)
	switch {
	case err != nil && kind == swfJobNum:
		return 0, s.errf(line, i, fmt.Errorf("%w: %q", ErrBadJobID, b))
	case err != nil:
		return 0, s.errf(line, i, fmt.Errorf("%w: %q", ErrBadNumber, b))
	case kind == swfAny:
		return n, nil
	case kind == swfJobNum && (neg || frac):
		return 0, s.errf(line, i, fmt.Errorf("%w: %q (want a whole number >= 0)", ErrBadJobID, b))
	case n == -1 && !frac:
		return -1, nil
	case neg:
		return 0, s.errf(line, i, fmt.Errorf("%w: %q (want -1 for unknown, or a value >= 0)", ErrBadNumber, b))
	case frac && kind != swfTime && kind != swfMem:
		return 0, s.errf(line, i, fmt.Errorf("%w: %q (want a whole number)", ErrBadNumber, b))
	case kind == swfTime && n > swfMaxSeconds, kind == swfCount && n > math.MaxInt32:
		return 0, s.errf(line, i, fmt.Errorf("%w: %q is out of range", ErrBadNumber, b))
	}
	return n, nil
}

// swfNumber parses an SWF number: an optionally signed decimal integer,
// optionally followed by '.' and digits. It returns the integer part
// (truncated toward zero), whether a non-zero fraction was dropped, and
// whether the number is below zero.
func swfNumber(b []byte) (n int64, frac, neg bool, err error) {
	ip := b
	for i, c := range b { // fields are short: a loop beats bytes.IndexByte
		if c != '.' {
			continue
		}
		ip = b[:i]
		for _, c := range b[i+1:] {
			if c < '0' || c > '9' {
				return 0, false, false, ErrBadNumber
			}
			frac = frac || c != '0'
		}
		break
	}
	n, err = parseInt(ip)
	if err != nil {
		return 0, false, false, err
	}
	neg = n < 0 || (len(ip) > 0 && ip[0] == '-' && frac)
	return n, frac, neg, nil
}

// swfFloat returns the value of an SWF number already checked by swfNumber.
func swfFloat(b []byte, whole int64) float64 {
	if bytes.IndexByte(b, '.') < 0 {
		return float64(whole)
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return float64(whole)
	}
	return f
}

// swfState maps an SWF status to a State, as in the SWF definition's
// usage note on checkpointing and swapping:
//
//	status  SWF meaning                                   State
//	 0      job failed                                    FAILED
//	 1      job completed successfully                    COMPLETED
//	 2      this partial execution will be continued      PREEMPTED
//	 3      last partial execution, job completed         COMPLETED
//	 4      last partial execution, job failed            FAILED
//	 5      job cancelled (before starting or during run) CANCELLED
//	-1      unknown (models, or not recorded)             UNKNOWN
//
// Whether a cancelled job ran is decided by its run time (see times).
func swfState(status int64) trace.State {
	switch status {
	case swfCompleted, swfPartialDone:
		return trace.StateCompleted
	case swfFailed, swfPartialFail:
		return trace.StateFailed
	case swfCancelled:
		return trace.StateCancelled
	case swfPartialMore:
		return trace.StatePreempted
	}
	return trace.StateUnknown
}

// times fills Submit, Start, End, StartUnknown and ElapsedSec from the
// parsed values, as the table in readSWF's comment says.
func (s *swfReader) times(j *trace.Job, status int64) {
	v := &s.vals
	submit, wait, run := s.start+v[swfSubmit], v[swfWait], v[swfRun]
	known := v[swfSubmit] >= 0
	if known {
		j.Submit = time.Unix(submit, 0).UTC()
	}
	switch {
	case status == swfCancelled && run <= 0:
		if known && wait >= 0 {
			j.End = time.Unix(submit+wait, 0).UTC()
		}
	case wait < 0 && run >= 0:
		j.StartUnknown, j.ElapsedSec = true, run
	case known && wait >= 0:
		start := submit + wait
		j.Start = time.Unix(start, 0).UTC()
		if run >= 0 {
			j.End = time.Unix(start+run, 0).UTC()
		}
	}
}

// counts fills NCPUs, NNodes and ReqMemMB.
func (s *swfReader) counts(j *trace.Job, line int64) *ParseError {
	v := &s.vals
	procs := v[swfAllocProcs]
	switch req := v[swfReqProcs]; {
	case procs > 0:
	case req > 0:
		procs = req
	default:
		procs = max(procs, req)
	}
	if procs < 0 {
		return nil
	}
	j.NCPUs = int32(procs)
	j.NNodes = int32(procs)
	if s.cpn > 0 {
		nodes := procs / s.cpn
		if procs%s.cpn != 0 {
			nodes++
		}
		j.NNodes = int32(nodes)
	}
	if v[swfReqMem] < 0 {
		return nil
	}
	mb := swfFloat(s.fields[swfReqMem], v[swfReqMem]) * float64(procs) / 1024
	if mb > swfMaxMemMB {
		return s.errf(line, swfReqMem, fmt.Errorf("%w: %q KB per processor * %d processors is out of range", ErrBadNumber, s.fields[swfReqMem], procs))
	}
	j.ReqMemMB = int64(mb + 0.5)
	return nil
}

// decimal returns n in decimal, interned; "" for -1.
func (s *swfReader) decimal(n int64) string {
	if n < 0 {
		return ""
	}
	s.buf = strconv.AppendInt(s.buf[:0], n, 10)
	return s.strs.get(s.buf)
}

// add takes a parsed line: it folds partial-execution lines into the
// adjacent summary line of the same job number, and writes the previous job
// when a new one begins.
func (s *swfReader) add(j *trace.Job, status int64) error {
	partial := status >= swfPartialMore && status <= swfPartialFail
	if s.hasOpen && j.JobIDRaw == s.open.JobIDRaw {
		switch {
		case partial && !s.openPartial: // a partial execution after its summary
			s.open.Steps++
			s.c.step()
			return nil
		case partial: // more partial executions, no summary yet
			s.extend(j)
			s.open.Steps++
			s.c.step()
			return nil
		case s.openPartial: // the summary after its partial executions
			j.Steps = s.open.Steps + 1
			s.c.step() // the first partial line, held as the job until now
			s.open, s.openPartial = *j, false
			return nil
		}
	}
	if err := s.flush(); err != nil {
		return err
	}
	s.open, s.hasOpen, s.openPartial = *j, true, partial
	return nil
}

// extend makes the open job, made of partial executions, end as the
// partial execution p ends.
func (s *swfReader) extend(p *trace.Job) {
	o := &s.open
	o.State = p.State
	if o.StartUnknown && p.StartUnknown {
		o.ElapsedSec += p.ElapsedSec
	}
	if o.Start.IsZero() {
		return
	}
	if p.End.IsZero() || !p.End.Before(o.Start) {
		o.End = p.End
	}
}

// flush writes the open job, if any.
func (s *swfReader) flush() error {
	if !s.hasOpen {
		return nil
	}
	s.hasOpen = false
	if s.open.StartUnknown {
		s.startUnknown++
	}
	return s.c.job(&s.open)
}

// checkYears refuses a job whose Submit, Start or End (anchor plus
// relative seconds) lies after MaxYear, naming the field that pushed it
// there: submit_time, wait_time or run_time.
func (s *swfReader) checkYears(j *trace.Job, line int64) *ParseError {
	for _, f := range [...]struct {
		t     time.Time
		field int
	}{{j.Submit, swfSubmit}, {j.Start, swfWait}, {j.End, swfRun}} {
		if f.t.IsZero() {
			continue
		}
		if err := checkUnix(f.t.Unix()); err != nil {
			return s.errf(line, f.field, fmt.Errorf("%w (%s)", err, f.t.Format(time.RFC3339)))
		}
	}
	return nil
}
