package ingest

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/trace"
)

// col identifies a sacct column that ingest understands.
type col uint8

const (
	colJobID col = iota
	colJobIDRaw
	colJobName
	colCluster
	colPartition
	colAccount
	colUser
	colUID
	colGroup
	colGID
	colQOS
	colState
	colExitCode
	colReason
	colSubmit
	colEligible
	colStart
	colEnd
	colElapsed
	colElapsedRaw
	colTimelimit
	colTimelimitRaw
	colNNodes
	colAllocNodes
	colReqNodes
	colNCPUS
	colAllocCPUS
	colReqCPUS
	colReqTRES
	colAllocTRES
	colReqMem
	colPriority
	colTimeMin // TimelimitMin or TimeMin: --time-min, formatted as Timelimit
	// colTimelimitSec and colNGPUs are read only through a ColumnMap:
	// the limit in seconds, and a plain GPU count.
	colTimelimitSec
	colNGPUs
	numCols
)

// colByName maps lower-case sacct column names (and the truncated
// "TimelimitR" of the Mirage artifact's header) to columns.
var colByName = map[string]col{
	"jobid": colJobID, "jobidraw": colJobIDRaw, "jobname": colJobName, "cluster": colCluster,
	"partition": colPartition, "account": colAccount, "user": colUser, "uid": colUID,
	"group": colGroup, "gid": colGID, "qos": colQOS, "state": colState, "exitcode": colExitCode,
	"reason": colReason, "submit": colSubmit, "eligible": colEligible, "start": colStart,
	"end": colEnd, "elapsed": colElapsed, "elapsedraw": colElapsedRaw, "timelimit": colTimelimit,
	"timelimitraw": colTimelimitRaw, "timelimitr": colTimelimitRaw, "nnodes": colNNodes,
	"allocnodes": colAllocNodes, "reqnodes": colReqNodes, "ncpus": colNCPUS,
	"alloccpus": colAllocCPUS, "reqcpus": colReqCPUS, "reqtres": colReqTRES,
	"alloctres": colAllocTRES, "reqmem": colReqMem, "priority": colPriority,
	"timelimitmin": colTimeMin, "timemin": colTimeMin,
}

// layout maps columns to field positions of a header.
type layout struct {
	idx   [numCols]int    // field index, -1 when absent
	names [numCols]string // the header's spelling, for messages
	width int             // number of header fields
}

// newLayout maps the fields of a header to columns, by name and ignoring
// case, through cmap first when it is not nil; unknown names are skipped. A column named twice (JobName and
// jobname, TimelimitR and TimelimitRaw) is ErrDuplicateColumn, and a header
// without JobID and JobIDRaw is ErrMissingColumn. Fields are numbered from
// 1 in messages.
func newLayout(header [][]byte, cmap *ColumnMap) (layout, error) {
	var l layout
	for i := range l.idx {
		l.idx[i] = -1
	}
	l.width = len(header)
	for i, h := range header {
		name := strings.TrimSpace(string(h))
		c, ok := cmap.lookup(name)
		if !ok {
			c, ok = colByName[strings.ToLower(name)]
		}
		if !ok {
			continue
		}
		if l.idx[c] >= 0 {
			return l, fmt.Errorf("%w: %q (field %d) and %q (field %d) are the same column", ErrDuplicateColumn, l.names[c], l.idx[c]+1, name, i+1)
		}
		l.idx[c], l.names[c] = i, name
	}
	if l.idx[colJobID] < 0 && l.idx[colJobIDRaw] < 0 {
		return l, fmt.Errorf("%w: JobID (or JobIDRaw) in header %q", ErrMissingColumn, bytes.Join(header, []byte("|")))
	}
	return l, nil
}

// has reports whether the header has column c.
func (l *layout) has(c col) bool { return l.idx[c] >= 0 }

// rowParser turns the fields of one sacct-style row into a Job.
type rowParser struct {
	lay     layout
	zone    *zone
	cluster string
	path    string // the input as named in messages
	source  string // the input as written in source_file
	strs    interner
	last    [numCols]lastString    // per-column cache in front of strs
	states  map[string]parsedState // ParseState results by text
	hours   [4]isoHour             // Submit, Eligible, Start, End
	tres    [2]lastTRES            // AllocTRES, ReqTRES
	// ambiguous counts rows with a local time that occurs twice.
	ambiguous int64
	// textErr locates the first string field of the last parsed row that
	// cleanText repaired (ErrBadText); nil when none. The reader returns it
	// under Options.Strict.
	textErr *ParseError
	line    int64 // the row being parsed, for textErr
	// wholeNums accepts a number column written with a zero fraction
	// ("172800.0", as CSV exports of float columns write them): the
	// fraction is dropped. A nonzero fraction stays a bad number.
	wholeNums bool
}

// numberCols are the columns whose value is an integer (counts, IDs,
// seconds, minutes).
var numberCols = func() (n [numCols]bool) {
	for _, c := range [...]col{colJobID, colJobIDRaw, colUID, colGID, colElapsedRaw, colTimelimitRaw, colNNodes,
		colAllocNodes, colReqNodes, colNCPUS, colAllocCPUS, colReqCPUS, colPriority, colTimelimitSec, colNGPUs} {
		n[c] = true
	}
	return n
}()

// trimZeroFraction drops a fraction of zeros from a decimal number
// ("10.0" is "10"); other text is returned as it is.
func trimZeroFraction(b []byte) []byte {
	i := bytes.IndexByte(b, '.')
	if i <= 0 || i == len(b)-1 {
		return b
	}
	for _, c := range b[i+1:] {
		if c != '0' {
			return b
		}
	}
	return b[:i]
}

// field returns the (trimmed) field of column c, nil when absent.
func (p *rowParser) field(fields [][]byte, c col) []byte {
	i := p.lay.idx[c]
	if i < 0 || i >= len(fields) {
		return nil
	}
	if p.wholeNums && numberCols[c] {
		return trimZeroFraction(trimSpace(fields[i]))
	}
	return trimSpace(fields[i])
}

// trimSpace is bytes.TrimSpace with a fast path for the usual field that
// neither starts nor ends with a space (ASCII or, from a byte >= 0x80, not).
func trimSpace(b []byte) []byte {
	if len(b) == 0 || b[0] > ' ' && b[0] < 0x80 && b[len(b)-1] > ' ' && b[len(b)-1] < 0x80 {
		return b
	}
	return bytes.TrimSpace(b)
}

func (p *rowParser) errf(line int64, c col, err error) *ParseError {
	return &ParseError{Path: p.path, Line: line, Field: p.lay.names[c], Err: err}
}

// jobID parses the row's JobID (or JobIDRaw when there is no JobID).
func (p *rowParser) jobID(fields [][]byte, line int64) (jobID, []byte, *ParseError) {
	c := colJobID
	if !p.lay.has(c) {
		c = colJobIDRaw
	}
	raw := p.field(fields, c)
	id, err := parseJobID(raw)
	if err != nil {
		return id, raw, p.errf(line, c, err)
	}
	return id, raw, nil
}

// times holds a row's time fields before DST resolution.
type times struct {
	submit, eligible, start, end localTime
	elapsed                      int64 // seconds, -1 unknown
	limit                        int64 // seconds, -1 unknown
}

// parse fills j from an allocation row whose JobID is already parsed.
func (p *rowParser) parse(fields [][]byte, line int64, id jobID, rawID []byte, j *trace.Job) *ParseError {
	*j = trace.NewJob()
	p.textErr, p.line = nil, line
	j.JobID = string(rawID)
	j.SourceFile, j.SourceLine = p.source, line
	j.JobIDRaw = id.id
	if id.array {
		j.ArrayJobID, j.ArrayTaskID = id.id, id.task
	}
	if id.het {
		j.HetJobID, j.HetOffset = id.id, id.hetOff
	}
	if id.array && id.task >= 0 || id.het && id.hetOff > 0 {
		// An array task or het component has its own job ID, which only
		// a JobIDRaw column gives.
		j.JobIDRaw = 0
	}
	if b := p.field(fields, colJobIDRaw); len(b) > 0 && p.lay.has(colJobID) {
		n, err := parseInt(b)
		if err != nil || n <= 0 {
			return p.errf(line, colJobIDRaw, fmt.Errorf("%w: %q", ErrBadJobID, b))
		}
		j.JobIDRaw = n
	}
	j.Cluster = p.cluster
	if b := p.field(fields, colCluster); len(b) > 0 {
		j.Cluster = p.str(b, colCluster)
	}
	j.Partition = p.str(p.field(fields, colPartition), colPartition)
	j.Account = p.str(p.field(fields, colAccount), colAccount)
	j.User = p.str(p.field(fields, colUser), colUser)
	j.Group = p.str(p.field(fields, colGroup), colGroup)
	j.QOS = p.str(p.field(fields, colQOS), colQOS)
	if b := p.field(fields, colReason); string(b) != "None" {
		j.Reason = p.str(b, colReason)
	}
	j.JobName = p.str(p.field(fields, colJobName), colJobName)
	for _, c := range [...]col{colUID, colGID, colPriority} {
		b := p.field(fields, c)
		if len(b) == 0 {
			continue
		}
		n, err := parseInt(b)
		if err != nil || n < 0 {
			return p.errf(line, c, fmt.Errorf("%w: %q", ErrBadNumber, b))
		}
		switch c {
		case colUID:
			j.UID = n
		case colGID:
			j.GID = n
		case colPriority:
			j.Priority = n
		}
	}
	if b := p.field(fields, colState); len(b) > 0 {
		st, by, err := p.state(b)
		if err != nil {
			return p.errf(line, colState, err)
		}
		j.State, j.CancelledBy = st, by
	}
	if p.lay.has(colExitCode) {
		code, sig, err := parseExitCode(p.field(fields, colExitCode))
		if err != nil {
			return p.errf(line, colExitCode, err)
		}
		j.ExitCode, j.ExitSignal = code, sig
	}
	if perr := p.counts(fields, line, j); perr != nil {
		return perr
	}
	t, perr := p.times(fields, line)
	if perr != nil {
		return perr
	}
	j.TimelimitSec = t.limit
	if b := p.field(fields, colTimeMin); len(b) > 0 {
		v, err := parseDuration(b)
		if err != nil {
			return p.errf(line, colTimeMin, err)
		}
		j.TimeMinSec = max(v, 0) // UNLIMITED and the like: none
	}
	if perr := p.resolveTimes(&t, line, j); perr != nil {
		return perr
	}
	if p.textErr != nil {
		j.Repair = addRepair(j.Repair, RepairInvalidText)
	}
	return nil
}

// str interns b, the text of column c. Text that is not valid UTF-8 or
// holds a control character is repaired by cleanText (never interned) and
// recorded in p.textErr.
func (p *rowParser) str(b []byte, c col) string {
	last := &p.last[c]
	if string(b) == last.s {
		return last.s
	}
	if s, ok := p.strs[string(b)]; ok {
		last.s = s
		return s
	}
	if !isPlainText(b) {
		if p.textErr == nil {
			p.textErr = p.errf(p.line, c, textError(b))
		}
		s, _ := cleanText(b)
		return s
	}
	return last.get(p.strs, b)
}

// parsedState is a cached trace.ParseState result.
type parsedState struct {
	st trace.State
	by int64
}

// maxStates bounds the cache of parsed State texts ("CANCELLED by N"
// varies with N).
const maxStates = 4096

// state parses a State field, caching the results of valid texts.
func (p *rowParser) state(b []byte) (trace.State, int64, error) {
	if r, ok := p.states[string(b)]; ok {
		return r.st, r.by, nil
	}
	st, by, err := trace.ParseState(string(b))
	if err != nil {
		return st, by, err
	}
	if p.states == nil {
		p.states = map[string]parsedState{}
	}
	if len(p.states) < maxStates {
		p.states[string(b)] = parsedState{st, by}
	}
	return st, by, nil
}

// lastTRES caches the GPU count of the last TRES text of one column:
// consecutive jobs often have the same TRES.
type lastTRES struct {
	text []byte
	n    int64
	ok   bool
}

// gpus is tresGPUs for column c (colAllocTRES or colReqTRES), cached.
func (p *rowParser) gpus(c col, b []byte) (int64, bool, error) {
	t := &p.tres[0]
	if c == colReqTRES {
		t = &p.tres[1]
	}
	if t.text != nil && string(b) == string(t.text) {
		return t.n, t.ok, nil
	}
	n, ok, err := tresGPUs(b)
	if err == nil {
		t.text, t.n, t.ok = append(t.text[:0], b...), n, ok
	}
	return n, ok, err
}

// counts fills NNodes, NCPUs, NGPUs and ReqMemMB.
func (p *rowParser) counts(fields [][]byte, line int64, j *trace.Job) *ParseError {
	nodes, perr := p.firstCount(fields, line, colNNodes, colAllocNodes, colReqNodes)
	if perr != nil {
		return perr
	}
	cpus, perr := p.firstCount(fields, line, colNCPUS, colAllocCPUS, colReqCPUS)
	if perr != nil {
		return perr
	}
	j.NNodes, j.NCPUs = int32(nodes), int32(cpus)
	if p.lay.has(colNGPUs) {
		n, perr := p.firstCount(fields, line, colNGPUs)
		if perr != nil {
			return perr
		}
		j.NGPUs = int32(n)
	}
	for _, c := range [...]col{colAllocTRES, colReqTRES} {
		b := p.field(fields, c)
		if len(b) == 0 {
			continue
		}
		n, ok, err := p.gpus(c, b)
		if err != nil {
			return p.errf(line, c, err)
		}
		if ok {
			j.NGPUs = int32(n)
			break
		}
	}
	if b := p.field(fields, colReqMem); len(b) > 0 {
		mb, per, err := parseMem(b)
		if err != nil {
			return p.errf(line, colReqMem, err)
		}
		switch per {
		case 'n':
			mb *= float64(max(1, j.NNodes))
		case 'c':
			mb *= float64(max(1, j.NCPUs))
		}
		if mb >= 1<<62 {
			return p.errf(line, colReqMem, fmt.Errorf("%w: %q is too large", ErrBadMemory, b))
		}
		j.ReqMemMB = int64(mb + 0.5)
	}
	return nil
}

// firstCount returns the first non-empty of the given count columns, 0
// when none is present. For CSV and mapped inputs (wholeNums) a 0 falls
// through to the next column: their exports write an allocated count of
// 0 for a job that never ran, whose count is then the requested one.
func (p *rowParser) firstCount(fields [][]byte, line int64, cols ...col) (int64, *ParseError) {
	for _, c := range cols {
		b := p.field(fields, c)
		if len(b) == 0 {
			continue
		}
		n, err := parseInt(b)
		if err != nil || n < 0 || n > 1<<31-1 {
			return 0, p.errf(line, c, fmt.Errorf("%w: %q", ErrBadNumber, b))
		}
		if n == 0 && p.wholeNums {
			continue
		}
		return n, nil
	}
	return 0, nil
}

func (p *rowParser) times(fields [][]byte, line int64) (times, *ParseError) {
	t := times{elapsed: -1, limit: limitUnknown}
	for i, f := range [...]struct {
		c   col
		dst *localTime
	}{{colSubmit, &t.submit}, {colEligible, &t.eligible}, {colStart, &t.start}, {colEnd, &t.end}} {
		v, err := p.zone.parseTimeIn(p.field(fields, f.c), &p.hours[i])
		if err != nil {
			return t, p.errf(line, f.c, err)
		}
		*f.dst = v
	}
	var err error
	switch {
	case p.lay.has(colElapsedRaw) && len(p.field(fields, colElapsedRaw)) > 0:
		b := p.field(fields, colElapsedRaw)
		if t.elapsed, err = parseInt(b); err != nil || t.elapsed < 0 {
			return t, p.errf(line, colElapsedRaw, fmt.Errorf("%w: %q", ErrBadNumber, b))
		}
	case p.lay.has(colElapsed) && len(p.field(fields, colElapsed)) > 0:
		if t.elapsed, err = parseDuration(p.field(fields, colElapsed)); err != nil {
			return t, p.errf(line, colElapsed, err)
		}
	}
	switch {
	case p.lay.has(colTimelimitSec):
		b := p.field(fields, colTimelimitSec)
		switch {
		case len(b) == 0 || isNoLimit(b):
			t.limit = limitUnknown
		default:
			if t.limit, err = parseInt(b); err != nil || t.limit < 0 || t.limit > maxDurationSec {
				return t, p.errf(line, colTimelimitSec, fmt.Errorf("%w: %q (want whole seconds)", ErrBadNumber, b))
			}
		}
	case len(p.field(fields, colTimelimitRaw)) > 0 || p.lay.has(colTimelimitRaw) && !p.lay.has(colTimelimit):
		if t.limit, err = parseMinutes(p.field(fields, colTimelimitRaw)); err != nil {
			return t, p.errf(line, colTimelimitRaw, err)
		}
	case len(p.field(fields, colTimelimit)) > 0:
		if t.limit, err = parseDuration(p.field(fields, colTimelimit)); err != nil {
			return t, p.errf(line, colTimelimit, err)
		}
	}
	return t, nil
}

// overrunSlack is how far past its limit a job can run before Slurm
// kills it (OverTimeLimit and KillWait are minutes at most, in practice).
const overrunSlack = 15 * 60

// resolveTimes picks, for local times that occur twice, the instants that
// best satisfy the row's constraints, then checks the order of the times.
func (p *rowParser) resolveTimes(t *times, line int64, j *trace.Job) *ParseError {
	fs := [4]*localTime{&t.submit, &t.eligible, &t.start, &t.end}
	var amb []int
	for i, f := range fs {
		if f.known && f.ambiguous() {
			amb = append(amb, i)
		}
	}
	if len(amb) > 0 {
		best, bestScore := 0, 1<<30
		for combo := 0; combo < 1<<len(amb); combo++ {
			var v [4]localTime
			for i, f := range fs {
				v[i] = *f
			}
			for k, i := range amb {
				if combo&(1<<k) != 0 {
					v[i].sec = v[i].alt
				}
			}
			if s := violations(v, t.elapsed, t.limit); s < bestScore {
				best, bestScore = combo, s
			}
		}
		for k, i := range amb {
			if best&(1<<k) != 0 {
				fs[i].sec = fs[i].alt
			}
			fs[i].alt = fs[i].sec
		}
		p.ambiguous++
	}
	j.Submit, j.Eligible, j.Start, j.End = t.submit.time(), t.eligible.time(), t.start.time(), t.end.time()
	if t.start.known && t.end.known && t.end.sec < t.start.sec {
		return p.errf(line, colEnd, fmt.Errorf("%w: End %s is before Start %s", ErrTimeOrder, j.End.Format(time.RFC3339), j.Start.Format(time.RFC3339)))
	}
	if t.submit.known && t.start.known && t.start.sec < t.submit.sec {
		return p.errf(line, colStart, fmt.Errorf("%w: Start %s is before Submit %s", ErrTimeOrder, j.Start.Format(time.RFC3339), j.Submit.Format(time.RFC3339)))
	}
	return nil
}

// violations counts the constraints a choice of instants breaks.
func violations(v [4]localTime, elapsed, limit int64) int {
	n := 0
	le := func(a, b localTime) {
		if a.known && b.known && a.sec > b.sec {
			n++
		}
	}
	le(v[0], v[1])
	le(v[0], v[2])
	le(v[1], v[2])
	le(v[2], v[3])
	if v[2].known && v[3].known {
		run := v[3].sec - v[2].sec
		if elapsed >= 0 && (run-elapsed > 1 || elapsed-run > 1) {
			n++
		}
		if limit >= 0 && run > limit+overrunSlack {
			n++
		}
	}
	return n
}
