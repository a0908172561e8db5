package advise

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ErrFormat is wrapped by the parsers' errors for input that is not what
// the command prints.
var ErrFormat = errors.New("unrecognised squeue/sacct output")

// SqueueJSONArgs are the arguments of the squeue call ParseSqueueJSON
// reads (Slurm 21.08 and later): every job of every partition.
var SqueueJSONArgs = []string{"--json", "--all"}

// slurmNumber is a number in Slurm's JSON: a plain number (data_parser
// v0.0.38 and before), null, or {"set": bool, "infinite": bool, "number":
// n} (v0.0.39 and later). Unset or infinite values read as 0 with inf set.
type slurmNumber struct {
	n   int64
	inf bool
	ok  bool // a value was given (not null, not unset)
}

func (s *slurmNumber) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*s = slurmNumber{}
		return nil
	case len(b) > 0 && b[0] == '{':
		var o struct {
			Set      *bool       `json:"set"`
			Infinite bool        `json:"infinite"`
			Number   json.Number `json:"number"`
		}
		if err := json.Unmarshal(b, &o); err != nil {
			return err
		}
		if o.Infinite || (o.Set != nil && !*o.Set) {
			*s = slurmNumber{inf: o.Infinite}
			return nil
		}
		return s.parse(string(o.Number))
	}
	return s.parse(string(b))
}

func (s *slurmNumber) parse(t string) error {
	if t == "" {
		*s = slurmNumber{}
		return nil
	}
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		*s = slurmNumber{n: n, ok: true}
		return nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return fmt.Errorf("number %q: %w", t, err)
	}
	*s = slurmNumber{n: int64(f), ok: true}
	return nil
}

// slurmState is job_state: a string (v0.0.38) or a list of flags whose
// first is the base state (v0.0.39 and later).
type slurmState string

func (s *slurmState) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var l []string
		if err := json.Unmarshal(b, &l); err != nil {
			return err
		}
		if len(l) > 0 {
			*s = slurmState(l[0])
		}
		return nil
	}
	var t string
	if err := json.Unmarshal(b, &t); err != nil {
		return err
	}
	*s = slurmState(t)
	return nil
}

// squeueJSONJob holds the fields of one squeue --json job we read.
type squeueJSONJob struct {
	JobID       slurmNumber `json:"job_id"`
	ArrayJobID  slurmNumber `json:"array_job_id"`
	ArrayTaskID slurmNumber `json:"array_task_id"`
	Name        string      `json:"name"`
	UserName    string      `json:"user_name"`
	Partition   string      `json:"partition"`
	JobState    slurmState  `json:"job_state"`
	Reason      string      `json:"state_reason"`
	Submit      slurmNumber `json:"submit_time"`
	Eligible    slurmNumber `json:"eligible_time"`
	Start       slurmNumber `json:"start_time"`
	End         slurmNumber `json:"end_time"`
	TimeLimit   slurmNumber `json:"time_limit"` // minutes
	NodeCount   slurmNumber `json:"node_count"`
	Priority    slurmNumber `json:"priority"`
}

// ParseSqueueJSON reads `squeue --json` output and returns its jobs in
// output order, classified with ClassifyState. Fields it does not read are
// skipped; an unparsable document, or one without a "jobs" list, is an
// error wrapping ErrFormat. A pending job's start_time (Slurm's expected
// start) is dropped.
//
// The document is delimited once and its jobs are decoded on GOMAXPROCS
// goroutines (a 10,000-job queue is about 33 MB); only the jobs list is
// then validated. A document the splitter cannot delimit is decoded, or
// refused, by encoding/json as a whole.
func ParseSqueueJSON(r io.Reader) ([]Job, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read squeue --json: %w", err)
	}
	return ParseSqueueJSONBytes(b)
}

// ParseSqueueJSONBytes is ParseSqueueJSON on the whole output, without
// copying it; b is not retained (names are copied).
func ParseSqueueJSONBytes(b []byte) ([]Job, error) {
	list, err := decodeSqueueJSON(b)
	if err != nil {
		return nil, err
	}
	jobs := make([]Job, 0, len(list))
	for _, sj := range list {
		j := Job{
			Raw: sj.JobID.n, Name: sj.Name, User: sj.UserName, Partition: sj.Partition,
			Reason: sj.Reason, Nodes: int32(sj.NodeCount.n), Submit: sj.Submit.n,
			Eligible: sj.Eligible.n, Start: sj.Start.n, End: sj.End.n, Priority: sj.Priority.n,
		}
		j.ID = strconv.FormatInt(sj.JobID.n, 10)
		if sj.ArrayJobID.n > 0 && sj.ArrayTaskID.ok {
			j.ID = strconv.FormatInt(sj.ArrayJobID.n, 10) + "_" + strconv.FormatInt(sj.ArrayTaskID.n, 10)
		}
		if !sj.TimeLimit.inf && sj.TimeLimit.n > 0 {
			j.LimitSec = sj.TimeLimit.n * 60
		}
		j.State = ClassifyState(string(sj.JobState), j.Reason)
		normaliseTimes(&j)
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// decodeSqueueJSON returns the document's jobs: split and decoded in
// parallel, or by one json.Unmarshal when the splitter gives up (which
// then reports any syntax error).
func decodeSqueueJSON(b []byte) ([]squeueJSONJob, error) {
	elems, found, err := splitJobs(b)
	if err == nil && found {
		list, err := decodeJobs(b, elems)
		if err != nil {
			return nil, fmt.Errorf("squeue --json: %w: %w", ErrFormat, err)
		}
		return list, nil
	}
	var doc struct {
		Jobs *[]squeueJSONJob `json:"jobs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("squeue --json: %w: %w", ErrFormat, err)
	}
	if doc.Jobs == nil {
		return nil, fmt.Errorf("squeue --json: %w: no \"jobs\" list", ErrFormat)
	}
	return *doc.Jobs, nil
}

// normaliseTimes drops the times a state does not have: a pending job's
// expected start and end, a running job's expected end.
func normaliseTimes(j *Job) {
	switch j.State {
	case JobPending, JobHeld:
		j.Start, j.End = 0, 0
	case JobRunning:
		j.End = 0
	}
	if j.Eligible <= 0 && j.State != JobHeld {
		j.Eligible = j.Submit
	}
}

// heldReasons are the pending reasons of jobs that may not start yet.
var heldReasons = map[string]bool{
	"Dependency": true, "DependencyNeverSatisfied": true, "BeginTime": true,
	"JobHeldUser": true, "JobHeldAdmin": true, "JobArrayTaskLimit": false,
}

// ClassifyState maps a Slurm job state (long form, "PENDING"; or short,
// "PD"; a sacct "CANCELLED by 0" reads as CANCELLED) and pending reason
// to a JobState.
func ClassifyState(state, reason string) JobState {
	if i := bytes.IndexByte([]byte(state), ' '); i >= 0 {
		state = state[:i]
	}
	switch state {
	case "PENDING", "PD", "REQUEUED", "RQ", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD":
		if heldReasons[reason] || state != "PENDING" && state != "PD" {
			return JobHeld
		}
		return JobPending
	case "RUNNING", "R", "COMPLETING", "CG", "CONFIGURING", "CF", "SUSPENDED", "S", "STAGE_OUT", "SO", "RESIZING", "RS", "SIGNALING", "SI":
		return JobRunning
	}
	return JobEnded
}
