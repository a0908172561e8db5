package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/trace"
)

// dialectV0038 reads job objects of data_parser v0.0.38: `sacct --json` of
// Slurm 20.11 to 22.05, whose meta names the plugin "openapi/dbv0.0.38".
//
// Slurm prints NO_VAL and INFINITE as null; this version prints names, not
// numbers, for users and groups, so UID and GID stay trace.NoID. Fields:
//
//	JobID        job_id, or "A_T" for array task T of array.job_id A
//	             (JobIDRaw = job_id, ArrayJobID = A, ArrayTaskID = T),
//	             "A_[1-3]" for pending tasks (array.task, a range or
//	             Slurm's hex bitmap, "%N" appended for a running-task
//	             limit), or "H+K" for het.job_id H, het.job_offset K.
//	State        state.current (trace.ParseState); Reason state.reason ("None" -> "").
//	CancelledBy  for a CANCELLED job, the UID of kill_request_user when it
//	             is a number or "root" (UID 0); otherwise NoID, since the
//	             JSON names the user and the UID is not known.
//	ExitCode     exit_code.return_code (0 when null); ExitSignal
//	             exit_code.signal.signal_id. Slurm 22.05 prints every
//	             normal exit as {"status": "SUCCESS", "return_code": 0},
//	             whatever the exit status was, so a FAILED job may show
//	             ExitCode 0 where `sacct -P` shows "3:0".
//	Submit...    time.submission, time.eligible, time.start, time.end:
//	             epoch seconds; 0 or null is unknown. End before Start, or
//	             Start before Submit, is ErrTimeOrder, as for sacct -P.
//	Timelimit    time.limit in minutes; null is NoLimit.
//	NNodes       tres.allocated node, else allocation_nodes, else
//	             tres.requested node.
//	NCPUs        tres.allocated cpu, else tres.requested cpu, else
//	             required.CPUs.
//	NGPUs        type "gres", name "gpu" (or the sum of "gpu:TYPE" when
//	             there is no untyped count) in tres.allocated, else in
//	             tres.requested.
//	ReqMemMB     tres.requested mem (MB, the whole job, as `sacct`'s
//	             ReqMem), else required.memory when > 0 (which may be per
//	             node or per CPU: v0.0.38 drops the flag that says which).
//	Priority     priority; null is Unknown.
//	Steps        the number of elements of steps, each of which must be
//	             an object.
type dialectV0038 struct{}

// v0038Job is the part of a v0.0.38 job object that Mirage reads.
type v0038Job struct {
	JobID       *int64 `json:"job_id"`
	Name        string `json:"name"`
	User        string `json:"user"`
	Group       string `json:"group"`
	Account     string `json:"account"`
	Partition   string `json:"partition"`
	QOS         string `json:"qos"`
	Cluster     string `json:"cluster"`
	Association struct {
		Cluster string `json:"cluster"`
	} `json:"association"`
	Array struct {
		JobID  *int64 `json:"job_id"`
		TaskID *int64 `json:"task_id"`
		Task   string `json:"task"`
		Limits struct {
			Max struct {
				Running struct {
					Tasks *int64 `json:"tasks"`
				} `json:"running"`
			} `json:"max"`
		} `json:"limits"`
	} `json:"array"`
	Het struct {
		JobID     *int64 `json:"job_id"`
		JobOffset *int64 `json:"job_offset"`
	} `json:"het"`
	State struct {
		Current string `json:"current"`
		Reason  string `json:"reason"`
	} `json:"state"`
	KillRequestUser string `json:"kill_request_user"`
	ExitCode        struct {
		ReturnCode *int64 `json:"return_code"`
		Signal     struct {
			SignalID *int64 `json:"signal_id"`
		} `json:"signal"`
	} `json:"exit_code"`
	Time struct {
		Submission *int64 `json:"submission"`
		Eligible   *int64 `json:"eligible"`
		Start      *int64 `json:"start"`
		End        *int64 `json:"end"`
		Limit      *int64 `json:"limit"` // minutes
	} `json:"time"`
	Priority *int64 `json:"priority"`
	Required struct {
		CPUs   *int64 `json:"CPUs"`
		Memory *int64 `json:"memory"` // MB
	} `json:"required"`
	AllocationNodes *int64 `json:"allocation_nodes"`
	TRES            struct {
		Allocated []v0038TRES `json:"allocated"`
		Requested []v0038TRES `json:"requested"`
	} `json:"tres"`
	Steps []v0038Step `json:"steps"`
}

// v0038Step stands for one element of "steps": Mirage only counts steps,
// so it keeps only the kind of JSON value (its first byte).
type v0038Step struct{ kind byte }

// UnmarshalJSON records the kind of b, a JSON value.
func (s *v0038Step) UnmarshalJSON(b []byte) error {
	s.kind = b[0]
	return nil
}

type v0038TRES struct {
	Type  string `json:"type"`
	Name  string `json:"name"`
	Count *int64 `json:"count"`
}

const (
	maxUint32 = math.MaxUint32
	maxInt32  = math.MaxInt32
	// slurmNoVal is Slurm's NO_VAL; NO_VAL and INFINITE (maxUint32) mean
	// "not set" in a uint32 field that was not printed as null.
	slurmNoVal = maxUint32 - 1
)

func (dialectV0038) job(raw []byte, j *trace.Job, strs interner) (int, string, error) {
	var v v0038Job
	if err := json.Unmarshal(raw, &v); err != nil {
		field, err := jsonTypeError(err)
		return 0, field, err
	}
	for i, st := range v.Steps {
		if st.kind != '{' {
			return 0, "steps[" + strconv.Itoa(i) + "]", fmt.Errorf("%w: step is %s, want an object", ErrBadRecord, rawKind([]byte{st.kind}))
		}
	}
	if len(v.Steps) > maxInt32 {
		return 0, "steps", fmt.Errorf("%w: %d steps", ErrBadRecord, len(v.Steps))
	}
	field, err := v.fill(j, strs)
	return len(v.Steps), field, err
}

// fill sets the fields of j from v.
func (v *v0038Job) fill(j *trace.Job, strs interner) (string, error) {
	if field, err := v.ids(j); err != nil {
		return field, err
	}
	j.Cluster = jsonIntern(strs, v.Cluster)
	if j.Cluster == "" {
		j.Cluster = jsonIntern(strs, v.Association.Cluster)
	}
	j.Partition = jsonIntern(strs, v.Partition)
	j.Account = jsonIntern(strs, v.Account)
	j.User = jsonIntern(strs, v.User)
	j.Group = jsonIntern(strs, v.Group)
	j.QOS = jsonIntern(strs, v.QOS)
	j.JobName = jsonIntern(strs, v.Name)
	if v.State.Reason != "None" {
		j.Reason = jsonIntern(strs, v.State.Reason)
	}
	if cur := strings.TrimSpace(v.State.Current); cur != "" {
		st, by, err := trace.ParseState(cur)
		if err != nil {
			return "state.current", err
		}
		j.State, j.CancelledBy = st, by
	}
	if j.State == trace.StateCancelled && j.CancelledBy == trace.NoID {
		j.CancelledBy = v0038UID(v.KillRequestUser)
	}
	if field, err := v.exit(j); err != nil {
		return field, err
	}
	if field, err := v.times(j); err != nil {
		return field, err
	}
	if v.Priority != nil {
		p := *v.Priority
		if p < 0 || p > maxUint32 {
			return "priority", fmt.Errorf("%w: priority %d", ErrBadNumber, p)
		}
		j.Priority = p
	}
	return v.counts(j)
}

// ids sets JobID, JobIDRaw and the array and het fields.
func (v *v0038Job) ids(j *trace.Job) (string, error) {
	id, err := v0038ID(v.JobID, false)
	if err != nil {
		return "job_id", err
	}
	j.JobIDRaw = id
	j.JobID = strconv.FormatInt(id, 10)
	arr, err := v0038ID(v.Array.JobID, true)
	if err != nil {
		return "array.job_id", err
	}
	het, err := v0038ID(v.Het.JobID, true)
	if err != nil {
		return "het.job_id", err
	}
	switch {
	case arr != 0: // as sacct prints it: array before het
		j.ArrayJobID = arr
		if v.Array.TaskID != nil {
			t, err := v0038ID(v.Array.TaskID, true)
			if err != nil {
				return "array.task_id", err
			}
			j.ArrayTaskID = t
			j.JobID = strconv.FormatInt(arr, 10) + "_" + strconv.FormatInt(t, 10)
			return "", nil
		}
		tasks, err := v0038Tasks(v.Array.Task)
		if err != nil {
			return "array.task", err
		}
		if tasks == "" {
			return "", nil
		}
		if n := v.Array.Limits.Max.Running.Tasks; n != nil && *n > 0 && *n < slurmNoVal {
			tasks += "%" + strconv.FormatInt(*n, 10)
		}
		j.JobID = strconv.FormatInt(arr, 10) + "_[" + tasks + "]"
	case het != 0:
		off, err := v0038ID(v.Het.JobOffset, true)
		if err != nil || v.Het.JobOffset == nil {
			return "het.job_offset", fmt.Errorf("%w: het job %d has no valid het.job_offset", ErrBadJobID, het)
		}
		j.HetJobID, j.HetOffset = het, off
		j.JobID = strconv.FormatInt(het, 10) + "+" + strconv.FormatInt(off, 10)
	}
	return "", nil
}

// v0038ID checks a uint32 ID: 1 to 4294967295, or also 0 (and null, as
// 0) when zeroOK.
func v0038ID(p *int64, zeroOK bool) (int64, error) {
	if p == nil {
		if zeroOK {
			return 0, nil
		}
		return 0, fmt.Errorf("%w: missing", ErrBadJobID)
	}
	n := *p
	if n < 0 || n > maxUint32 || n == 0 && !zeroOK {
		return 0, fmt.Errorf("%w: %d", ErrBadJobID, n)
	}
	return n, nil
}

// maxTaskRange bounds the text v0038Tasks makes of a bitmap.
const maxTaskRange = 1 << 10

// v0038Tasks returns the task list of a pending array record as sacct
// prints it inside "N_[...]": "1-3,5". v0.0.38 prints Slurm's hex bitmap
// ("0xE" for tasks 1-3); other text is returned trimmed of brackets.
func v0038Tasks(s string) (string, error) {
	s = strings.TrimSpace(s)
	hex, ok := strings.CutPrefix(s, "0x")
	if !ok {
		hex, ok = strings.CutPrefix(s, "0X")
	}
	if !ok {
		return strings.Trim(s, "[]"), nil
	}
	var b strings.Builder
	first, prev := int64(-1), int64(-1)
	flush := func() {
		if first < 0 {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(first, 10))
		if prev > first {
			b.WriteByte('-')
			b.WriteString(strconv.FormatInt(prev, 10))
		}
	}
	for i := len(hex) - 1; i >= 0; i-- {
		d, err := strconv.ParseUint(hex[i:i+1], 16, 8)
		if err != nil {
			return "", fmt.Errorf("%w: array task bitmap %q", ErrBadJobID, s)
		}
		for bit := range int64(4) {
			if d&(1<<bit) == 0 {
				continue
			}
			t := int64(len(hex)-1-i)*4 + bit
			if t != prev+1 || first < 0 {
				flush()
				first = t
			}
			prev = t
		}
		if b.Len() > maxTaskRange {
			return "", fmt.Errorf("%w: array task bitmap %q is too long", ErrBadJobID, s[:min(len(s), 32)]+"...")
		}
	}
	flush()
	return b.String(), nil
}

// v0038UID returns the UID a kill_request_user names: a number, or 0 for
// root; NoID otherwise.
func v0038UID(name string) int64 {
	name = strings.TrimSpace(name)
	if name == "root" {
		return 0
	}
	if name == "" || strings.Trim(name, "0123456789") != "" || len(name) > 10 {
		return trace.NoID
	}
	if n, err := strconv.ParseInt(name, 10, 64); err == nil && n <= maxUint32 {
		return n
	}
	return trace.NoID
}

// exit sets ExitCode and ExitSignal.
func (v *v0038Job) exit(j *trace.Job) (string, error) {
	if p := v.ExitCode.ReturnCode; p != nil {
		if *p < 0 || *p > 255 {
			return "exit_code.return_code", fmt.Errorf("%w: return_code %d", ErrBadExitCode, *p)
		}
		j.ExitCode = int32(*p)
	}
	if p := v.ExitCode.Signal.SignalID; p != nil {
		if *p < 0 || *p > 255 {
			return "exit_code.signal.signal_id", fmt.Errorf("%w: signal_id %d", ErrBadExitCode, *p)
		}
		j.ExitSignal = int32(*p)
	}
	return "", nil
}

// times sets Submit, Eligible, Start, End and TimelimitSec and checks their
// order as the sacct reader does.
func (v *v0038Job) times(j *trace.Job) (string, error) {
	for _, f := range [...]struct {
		name string
		sec  *int64
		dst  *time.Time
	}{
		{"time.submission", v.Time.Submission, &j.Submit},
		{"time.eligible", v.Time.Eligible, &j.Eligible},
		{"time.start", v.Time.Start, &j.Start},
		{"time.end", v.Time.End, &j.End},
	} {
		if f.sec == nil || *f.sec == 0 {
			continue
		}
		if err := checkUnix(*f.sec); err != nil {
			return f.name, fmt.Errorf("%w (epoch seconds %d)", err, *f.sec)
		}
		*f.dst = time.Unix(*f.sec, 0).UTC()
	}
	if p := v.Time.Limit; p != nil {
		switch m := *p; {
		case m < 0 || m > maxUint32:
			return "time.limit", fmt.Errorf("%w: %d minutes", ErrBadDuration, m)
		case m < slurmNoVal:
			j.TimelimitSec = m * 60
		}
	}
	if !j.Start.IsZero() && !j.End.IsZero() && j.End.Before(j.Start) {
		return "time.end", fmt.Errorf("%w: End %s is before Start %s", ErrTimeOrder, j.End.Format(time.RFC3339), j.Start.Format(time.RFC3339))
	}
	if !j.Submit.IsZero() && !j.Start.IsZero() && j.Start.Before(j.Submit) {
		return "time.start", fmt.Errorf("%w: Start %s is before Submit %s", ErrTimeOrder, j.Start.Format(time.RFC3339), j.Submit.Format(time.RFC3339))
	}
	return "", nil
}

// v0038Counts holds the counts of one TRES list.
type v0038Counts struct {
	nodes, cpus, mem, gpus, typedGPUs            int64
	hasNodes, hasCPUs, hasMem, hasGPUs, hasTyped bool
}

// gpuCount returns the untyped gres/gpu count, or the sum of the typed ones.
func (c *v0038Counts) gpuCount() (int64, bool) {
	if c.hasGPUs {
		return c.gpus, true
	}
	return c.typedGPUs, c.hasTyped
}

func v0038TRESCounts(list []v0038TRES, field string) (v0038Counts, error) {
	var c v0038Counts
	for _, t := range list {
		if t.Count == nil {
			continue
		}
		n := *t.Count
		limit := int64(maxInt32)
		if t.Type == "mem" {
			limit = math.MaxInt64 / 2
		}
		if n < 0 || n > limit {
			return c, fmt.Errorf("%w: %s %s count %d", ErrBadNumber, field, t.Type, n)
		}
		switch {
		case t.Type == "node":
			c.nodes, c.hasNodes = n, true
		case t.Type == "cpu":
			c.cpus, c.hasCPUs = n, true
		case t.Type == "mem":
			c.mem, c.hasMem = n, true
		case t.Type == "gres" && t.Name == "gpu":
			c.gpus, c.hasGPUs = n, true
		case t.Type == "gres" && strings.HasPrefix(t.Name, "gpu:"):
			c.typedGPUs, c.hasTyped = c.typedGPUs+n, true
			if c.typedGPUs > maxInt32 {
				return c, fmt.Errorf("%w: %s gres/gpu:* counts sum to %d", ErrBadNumber, field, c.typedGPUs)
			}
		}
	}
	return c, nil
}

// counts sets NNodes, NCPUs, NGPUs and ReqMemMB.
func (v *v0038Job) counts(j *trace.Job) (string, error) {
	alloc, err := v0038TRESCounts(v.TRES.Allocated, "tres.allocated")
	if err != nil {
		return "tres.allocated", err
	}
	req, err := v0038TRESCounts(v.TRES.Requested, "tres.requested")
	if err != nil {
		return "tres.requested", err
	}
	for _, f := range [...]struct {
		name string
		p    *int64
	}{{"allocation_nodes", v.AllocationNodes}, {"required.CPUs", v.Required.CPUs}} {
		if f.p != nil && (*f.p < 0 || *f.p > maxInt32) {
			return f.name, fmt.Errorf("%w: %s %d", ErrBadNumber, f.name, *f.p)
		}
	}
	switch {
	case alloc.hasNodes:
		j.NNodes = int32(alloc.nodes)
	case v.AllocationNodes != nil && *v.AllocationNodes > 0:
		j.NNodes = int32(*v.AllocationNodes)
	case req.hasNodes:
		j.NNodes = int32(req.nodes)
	}
	switch {
	case alloc.hasCPUs:
		j.NCPUs = int32(alloc.cpus)
	case req.hasCPUs:
		j.NCPUs = int32(req.cpus)
	case v.Required.CPUs != nil:
		j.NCPUs = int32(*v.Required.CPUs)
	}
	if n, ok := alloc.gpuCount(); ok {
		j.NGPUs = int32(n)
	} else if n, ok := req.gpuCount(); ok {
		j.NGPUs = int32(n)
	}
	switch m := v.Required.Memory; {
	case req.hasMem:
		j.ReqMemMB = req.mem
	case m != nil && *m < 0:
		return "required.memory", fmt.Errorf("%w: required.memory %d", ErrBadMemory, *m)
	case m != nil && *m > 0 && *m < slurmNoVal:
		j.ReqMemMB = *m
	}
	return "", nil
}

// jsonTypeError returns the JSON path and a sentinel-wrapping error for a
// json.Unmarshal error of a job object: a value of the wrong type ("time.start
// is a string, want an integer").
func jsonTypeError(err error) (string, error) {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return "", fmt.Errorf("%w: %v", ErrBadRecord, err)
	}
	field := te.Field
	want := "an object"
	switch te.Type.Kind() {
	case reflect.Int64, reflect.Int32, reflect.Int:
		want = "an integer"
	case reflect.String:
		want = "a string"
	case reflect.Slice:
		want = "an array"
	}
	sentinel := ErrBadRecord
	for _, p := range [...]struct {
		prefix string
		err    error
	}{
		{"time.limit", ErrBadDuration}, {"time.", ErrBadTime}, {"job_id", ErrBadJobID},
		{"array.", ErrBadJobID}, {"het.", ErrBadJobID}, {"exit_code", ErrBadExitCode},
		{"state", trace.ErrBadState},
	} {
		if strings.HasPrefix(field, p.prefix) {
			sentinel = p.err
			break
		}
	}
	if sentinel == ErrBadRecord && want == "an integer" {
		sentinel = ErrBadNumber
	}
	name := field
	if name == "" {
		name = "job"
	}
	return field, fmt.Errorf("%w: %s is %s, want %s", sentinel, name, jsonValueKind(te.Value), want)
}

// jsonValueKind turns an UnmarshalTypeError's Value ("string", "number
// 1.5") into words for messages.
func jsonValueKind(v string) string {
	switch v {
	case "string":
		return "a string"
	case "array":
		return "an array"
	case "object":
		return "an object"
	case "bool":
		return "a boolean"
	case "number":
		return "a number"
	}
	return v // "number 1.5"
}

// jsonIntern returns s, shared with earlier equal strings.
func jsonIntern(in interner, s string) string {
	if s == "" {
		return ""
	}
	if t, ok := in[s]; ok {
		return t
	}
	if len(in) < maxInterned {
		in[s] = s
	}
	return s
}
