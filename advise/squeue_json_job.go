package advise

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// decodeJob decodes one job object of squeue --json into j like
// json.Unmarshal, reading only the fields squeueJSONJob has and skipping
// the others' values (about 100 per job) without decoding them; anything
// unusual (escaped keys, malformed structure) goes to json.Unmarshal.
func decodeJob(b []byte, j *squeueJSONJob) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return json.Unmarshal(b, j)
	}
	var fallback bool
	for i = skipSpace(b, i+1); i < len(b) && b[i] != '}'; {
		if b[i] != '"' {
			fallback = true
			break
		}
		kEnd, err := skipString(b, i)
		if err != nil {
			fallback = true
			break
		}
		key := b[i+1 : kEnd-1]
		i = skipSpace(b, kEnd)
		if bytes.IndexByte(key, '\\') >= 0 || i >= len(b) || b[i] != ':' {
			fallback = true
			break
		}
		i = skipSpace(b, i+1)
		end, err := skipValue(b, i)
		if err != nil {
			fallback = true
			break
		}
		if err := j.set(key, b[i:end]); err != nil {
			return err
		}
		if i = skipSpace(b, end); i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		} else if i < len(b) && b[i] != '}' {
			fallback = true
			break
		}
	}
	if fallback || i >= len(b) {
		*j = squeueJSONJob{}
		return json.Unmarshal(b, j)
	}
	return nil
}

// set decodes v into the field named key (matched as encoding/json
// matches names: exactly, else case-insensitively); other keys are
// ignored.
func (j *squeueJSONJob) set(key, v []byte) error {
	if n, s := j.field(string(key)); n != nil || s != nil {
		return decodeField(n, s, v)
	}
	for _, r := range key { // the names are lower-case ASCII: only such a key can fold to one
		if r >= 'A' && r <= 'Z' || r >= utf8.RuneSelf {
			for _, name := range jobFieldNames {
				if bytes.EqualFold(key, []byte(name)) {
					n, s := j.field(name)
					return decodeField(n, s, v)
				}
			}
			return nil
		}
	}
	return nil
}

var jobFieldNames = []string{"job_id", "array_job_id", "array_task_id", "name", "user_name", "partition", "job_state",
	"state_reason", "submit_time", "eligible_time", "start_time", "end_time", "time_limit", "node_count", "priority"}

// field returns the number or string field of a JSON name.
func (j *squeueJSONJob) field(name string) (*slurmNumber, *string) {
	switch name {
	case "job_id":
		return &j.JobID, nil
	case "array_job_id":
		return &j.ArrayJobID, nil
	case "array_task_id":
		return &j.ArrayTaskID, nil
	case "submit_time":
		return &j.Submit, nil
	case "eligible_time":
		return &j.Eligible, nil
	case "start_time":
		return &j.Start, nil
	case "end_time":
		return &j.End, nil
	case "time_limit":
		return &j.TimeLimit, nil
	case "node_count":
		return &j.NodeCount, nil
	case "priority":
		return &j.Priority, nil
	case "name":
		return nil, &j.Name
	case "user_name":
		return nil, &j.UserName
	case "partition":
		return nil, &j.Partition
	case "state_reason":
		return nil, &j.Reason
	case "job_state":
		return nil, (*string)(&j.JobState)
	}
	return nil, nil
}

// decodeField decodes v into n or s; a plain string without escapes or
// odd bytes is copied, everything else goes through encoding/json.
func decodeField(n *slurmNumber, s *string, v []byte) error {
	if n != nil {
		return n.UnmarshalJSON(v) // as json.Unmarshal would call it, without its validation pass
	}
	if len(v) >= 2 && v[0] == '"' && plainString(v[1:len(v)-1]) {
		*s = string(v[1 : len(v)-1])
		return nil
	}
	if len(v) > 0 && v[0] == '[' { // job_state as a list (v0.0.39+)
		var st slurmState
		if err := json.Unmarshal(v, &st); err != nil {
			return err
		}
		*s = string(st)
		return nil
	}
	return json.Unmarshal(v, s)
}

// plainString reports whether b needs no JSON unescaping or UTF-8 repair.
func plainString(b []byte) bool {
	for _, c := range b {
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			return utf8.Valid(b) && bytes.IndexByte(b, '\\') < 0 && !hasControl(b)
		}
	}
	return true
}

func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}
