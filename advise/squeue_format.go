package advise

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// SqueueFormat is the fixed `squeue --format` of the fallback for Slurm
// without --json: job ID, raw job ID, user, partition, state (long form),
// reason, submit time, time limit, nodes, priority, start time and, last
// so that a '|' in it cannot shift the other fields, the job name.
const SqueueFormat = "%i|%A|%u|%P|%T|%r|%V|%l|%D|%Q|%S|%j"

// squeueFormatFields is the number of '|'-separated fields of SqueueFormat.
const squeueFormatFields = 12

// SqueueFormatArgs are the arguments of the squeue call
// ParseSqueueFormat reads.
var SqueueFormatArgs = []string{"--noheader", "--all", "--format=" + SqueueFormat}

// FormatError is a bad line of squeue --format output. Line is 1-indexed.
type FormatError struct {
	Line  int
	Field string
	Err   error
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("squeue line %d: %s: %v", e.Line, e.Field, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }

// ParseSqueueFormat reads `squeue` output in SqueueFormat without a header
// (SqueueFormatArgs) and returns its jobs in output order. Times are
// printed in the cluster's zone loc (nil means UTC); squeue's format has
// no eligible time, so Eligible is Submit. A line with too few fields or
// a bad number or time is a *FormatError wrapping ErrFormat; empty lines
// are skipped.
func ParseSqueueFormat(r io.Reader, loc *time.Location) ([]Job, error) {
	if loc == nil {
		loc = time.UTC
	}
	var jobs []Job
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimRight(sc.Bytes(), "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		j, err := parseSqueueLine(string(line), loc)
		if err != nil {
			err.Line = n
			return nil, err
		}
		jobs = append(jobs, j)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read squeue: %w", err)
	}
	return jobs, nil
}

func parseSqueueLine(line string, loc *time.Location) (Job, *FormatError) {
	f := strings.SplitN(line, "|", squeueFormatFields)
	if len(f) != squeueFormatFields {
		return Job{}, &FormatError{Field: "line", Err: fmt.Errorf("%w: %d fields, want %d", ErrFormat, len(f), squeueFormatFields)}
	}
	j := Job{ID: f[0], User: f[2], Partition: f[3], Reason: f[5], Name: f[11]}
	bad := func(field string, err error) (Job, *FormatError) {
		return Job{}, &FormatError{Field: field, Err: fmt.Errorf("%w: %w", ErrFormat, err)}
	}
	var err error
	if j.Raw, err = strconv.ParseInt(f[1], 10, 64); err != nil {
		return bad("raw job id", err)
	}
	j.State = ClassifyState(f[4], f[5])
	if j.Submit, err = parseSlurmTime(f[6], loc); err != nil {
		return bad("submit", err)
	}
	if j.LimitSec, err = parseSlurmLimit(f[7]); err != nil {
		return bad("time limit", err)
	}
	nodes, err := strconv.ParseInt(f[8], 10, 32)
	if err != nil {
		return bad("nodes", err)
	}
	j.Nodes = int32(nodes)
	if j.Priority, err = strconv.ParseInt(f[9], 10, 64); err != nil {
		return bad("priority", err)
	}
	if j.Start, err = parseSlurmTime(f[10], loc); err != nil {
		return bad("start", err)
	}
	normaliseTimes(&j)
	return j, nil
}

// parseSlurmTime parses Slurm's "2006-01-02T15:04:05" in loc; "N/A",
// "Unknown", "None" and "" are 0.
func parseSlurmTime(s string, loc *time.Location) (int64, error) {
	switch s {
	case "", "N/A", "Unknown", "None", "(null)":
		return 0, nil
	}
	t, err := time.ParseInLocation("2006-01-02T15:04:05", s, loc)
	if err != nil {
		return 0, err
	}
	return t.Unix(), nil
}

// parseSlurmLimit parses a Slurm time limit in seconds: "[D-]HH:MM:SS",
// "MM:SS", "MM" (minutes) or "D-HH[:MM]"; "UNLIMITED", "INFINITE",
// "NOT_SET", "N/A" and "" are 0 (none).
func parseSlurmLimit(s string) (int64, error) {
	switch s {
	case "", "UNLIMITED", "INFINITE", "NOT_SET", "N/A", "Partition_Limit":
		return 0, nil
	}
	var days int64
	if d, rest, ok := strings.Cut(s, "-"); ok {
		v, err := strconv.ParseInt(d, 10, 64)
		if err != nil || v < 0 {
			return 0, fmt.Errorf("time limit %q: bad days", s)
		}
		days, s = v, rest
		parts := strings.Split(s, ":") // D-HH, D-HH:MM, D-HH:MM:SS
		var sec int64
		mul := []int64{3600, 60, 1}
		if len(parts) > 3 {
			return 0, fmt.Errorf("time limit %q", s)
		}
		for i, p := range parts {
			v, err := strconv.ParseInt(p, 10, 64)
			if err != nil || v < 0 {
				return 0, fmt.Errorf("time limit %q", s)
			}
			sec += v * mul[i]
		}
		return days*86400 + sec, nil
	}
	parts := strings.Split(s, ":")
	var mul []int64
	switch len(parts) {
	case 1:
		mul = []int64{60}
	case 2:
		mul = []int64{60, 1}
	case 3:
		mul = []int64{3600, 60, 1}
	default:
		return 0, fmt.Errorf("time limit %q", s)
	}
	var sec int64
	for i, p := range parts {
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil || v < 0 {
			return 0, fmt.Errorf("time limit %q", s)
		}
		sec += v * mul[i]
	}
	return sec, nil
}
