package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/internal/golden"
	"github.com/mirage-hpc/mirage/trace"
)

// jsonFixture is real `sacct -a -D --json` output of Slurm 22.05.8
// (openapi/dbv0.0.38) on the one-node test cluster "localtest".
const jsonFixture = "testdata/json/sacct_all.json"

// jsonRead reads input with ingest.Read and returns the jobs, the
// quarantine records, the summary and the error.
func jsonRead(tb testing.TB, input []byte, opts ingest.Options) ([]trace.Job, []ingest.QuarantineRecord, ingest.Summary, error) {
	tb.Helper()
	var jobs []trace.Job
	var bad []ingest.QuarantineRecord
	sum, err := ingest.Read(context.Background(), bytes.NewReader(input), "in.json", opts,
		func(j *trace.Job) error { jobs = append(jobs, *j); return nil },
		func(r ingest.QuarantineRecord) { bad = append(bad, r) })
	return jobs, bad, sum, err
}

// jsonReadFile returns the contents of path.
func jsonReadFile(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func jsonEpoch(sec int64) time.Time { return time.Unix(sec, 0).UTC() }

// jsonFixtureJob returns the job of the fixture with the given JobID and
// Attempt.
func jsonFixtureJob(tb testing.TB, jobs []trace.Job, id string, attempt int32) trace.Job {
	tb.Helper()
	for _, j := range jobs {
		if j.JobID == id && j.Attempt == attempt {
			return j
		}
	}
	tb.Fatalf("no job %s attempt %d", id, attempt)
	return trace.Job{}
}

func TestReadSacctJSON_Fixture(t *testing.T) {
	jobs, bad, sum, err := jsonRead(t, jsonReadFile(t, jsonFixture), ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Format != "sacct-json" || sum.RowsRead != 50 || sum.Jobs != 25 || sum.StepsFolded != 25 ||
		sum.Quarantined != 0 || !sum.Balanced || len(bad) != 0 || len(sum.Inputs[0].Notes) != 0 {
		t.Fatalf("summary = %+v, quarantined %v", sum, bad)
	}
	// base is a job of the fixture as most of its jobs are.
	base := func(id string, raw int64, line int64) trace.Job {
		j := trace.NewJob()
		j.JobID, j.JobIDRaw = id, raw
		j.Cluster, j.Partition, j.Account, j.User, j.Group, j.QOS = "localtest", "debug", "root", "root", "root", "normal"
		j.Reason, j.State = "", trace.StateCompleted
		j.NNodes, j.NCPUs, j.Steps = 1, 1, 1
		j.SourceFile, j.SourceLine = "in.json", line
		return j
	}
	tests := []struct {
		Name    string
		ID      string
		Attempt int32
		Want    func() trace.Job
	}{
		{"Timeout", "11", 0, func() trace.Job {
			j := base("11", 11, 3176)
			j.Partition, j.JobName, j.State = "short", "overtime", trace.StateTimeout
			j.Submit, j.Eligible, j.Start, j.End = jsonEpoch(1796042358), jsonEpoch(1796042358), jsonEpoch(1796042361), jsonEpoch(1796042441)
			j.TimelimitSec, j.ReqMemMB, j.Priority = 60, 20000, 4294901752
			return j
		}},
		{"CancelledByRoot", "6", 0, func() trace.Job {
			j := base("6", 6, 1727)
			j.JobName, j.State, j.CancelledBy = "tocancel", trace.StateCancelled, 0
			j.Submit, j.Eligible, j.Start, j.End = jsonEpoch(1796042340), jsonEpoch(1796042340), jsonEpoch(1796042351), jsonEpoch(1796042356)
			j.TimelimitSec, j.NCPUs, j.ReqMemMB, j.Priority = 600, 2, 1024, 4294901754
			return j
		}},
		{"Preempted", "15", 0, func() trace.Job {
			j := base("15", 15, 278)
			j.JobName, j.State = "reqjob", trace.StatePreempted
			j.Submit, j.Eligible, j.Start, j.End = jsonEpoch(1796042703), jsonEpoch(1796042703), jsonEpoch(1796042705), jsonEpoch(1796042709)
			j.NCPUs, j.ReqMemMB, j.Priority = 2, 500, 4294901757
			return j
		}},
		{"RequeuedCompleted", "15", 1, func() trace.Job {
			j := base("15", 15, 4940)
			j.JobName, j.Reason, j.Attempt = "reqjob", "BeginTime", 1
			j.Submit, j.Eligible, j.Start, j.End = jsonEpoch(1796042709), jsonEpoch(1796042830), jsonEpoch(1796042835), jsonEpoch(1796042855)
			j.TimelimitSec, j.NCPUs, j.ReqMemMB, j.Priority = 525600*60, 2, 500, 4294901757
			return j
		}},
		{"NodeFail", "17", 0, func() trace.Job {
			j := base("17", 17, 5718)
			j.JobName, j.State = "nodefailjob", trace.StateNodeFail
			j.Submit, j.Eligible, j.Start, j.End = jsonEpoch(1796042716), jsonEpoch(1796042716), jsonEpoch(1796042717), jsonEpoch(1796042720)
			j.ReqMemMB, j.Priority = 200, 4294901755
			return j
		}},
		{"Signal9", "19", 0, func() trace.Job {
			j := base("19", 19, 6466)
			j.JobName, j.State, j.ExitSignal = "memhog", trace.StateFailed, 9
			j.Submit, j.Eligible, j.Start, j.End = jsonEpoch(1796042730), jsonEpoch(1796042730), jsonEpoch(1796042732), jsonEpoch(1796042734)
			j.ReqMemMB, j.Priority = 100, 4294901753
			return j
		}},
		{"RunningEndUnknown", "25", 0, func() trace.Job {
			j := base("25", 25, 8119)
			j.Account, j.JobName, j.State = "hpcteam", "longrun", trace.StateRunning
			j.Submit, j.Eligible, j.Start = jsonEpoch(1796043050), jsonEpoch(1796043050), jsonEpoch(1796043050)
			j.TimelimitSec, j.ReqMemMB, j.Priority = 1800, 100, 4294901749
			return j
		}},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			got := jsonFixtureJob(t, jobs, tt.ID, tt.Attempt)
			if diff := cmp.Diff(tt.Want(), got); diff != "" {
				t.Errorf("job %s attempt %d (-want +got):\n%s", tt.ID, tt.Attempt, diff)
			}
		})
	}
	t.Run("ArrayTasks", func(t *testing.T) {
		type ids struct {
			JobID                        string
			JobIDRaw, ArrayJobID, TaskID int64
			HetJobID, HetOffset          int64
		}
		want := []ids{
			{"3_0", 8, 3, 0, 0, -1}, {"3_1", 9, 3, 1, 0, -1}, {"3_2", 10, 3, 2, 0, -1}, {"3_3", 3, 3, 3, 0, -1},
			{"20_1", 23, 20, 1, 0, -1}, {"20_2", 24, 20, 2, 0, -1}, {"20_3", 20, 20, 3, 0, -1},
		}
		var got []ids
		for _, j := range jobs {
			if j.ArrayJobID != 0 {
				got = append(got, ids{j.JobID, j.JobIDRaw, j.ArrayJobID, j.ArrayTaskID, j.HetJobID, j.HetOffset})
			}
		}
		slices.SortFunc(got, func(a, b ids) int {
			return int(a.ArrayJobID*100+a.TaskID) - int(b.ArrayJobID*100+b.TaskID)
		})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("array tasks (-want +got):\n%s", diff)
		}
	})
	t.Run("Attempts", func(t *testing.T) {
		var got []string
		for _, j := range jobs {
			if j.Attempt > 0 || j.JobID == "15" || j.JobID == "18" {
				got = append(got, j.JobID+"/"+j.State.String()+"/"+strconv.Itoa(int(j.Attempt)))
			}
		}
		want := []string{"18/NODE_FAIL/0", "15/PREEMPTED/0", "15/COMPLETED/1", "18/COMPLETED/1"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("attempts (-want +got):\n%s", diff)
		}
	})
}

// jsonGoldenJob is a Job as one line of a golden file: fixed field order,
// RFC 3339 times ("" for unknown).
type jsonGoldenJob struct {
	JobID        string `json:"job_id"`
	JobIDRaw     int64  `json:"job_id_raw"`
	ArrayJobID   int64  `json:"array_job_id"`
	ArrayTaskID  int64  `json:"array_task_id"`
	HetJobID     int64  `json:"het_job_id"`
	HetOffset    int64  `json:"het_offset"`
	Cluster      string `json:"cluster"`
	Partition    string `json:"partition"`
	Account      string `json:"account"`
	User         string `json:"user"`
	UID          int64  `json:"uid"`
	Group        string `json:"group"`
	GID          int64  `json:"gid"`
	JobName      string `json:"job_name"`
	QOS          string `json:"qos"`
	State        string `json:"state"`
	CancelledBy  int64  `json:"cancelled_by"`
	Reason       string `json:"reason"`
	ExitCode     int32  `json:"exit_code"`
	ExitSignal   int32  `json:"exit_signal"`
	Submit       string `json:"submit"`
	Eligible     string `json:"eligible"`
	Start        string `json:"start"`
	End          string `json:"end"`
	TimelimitSec int64  `json:"timelimit_sec"`
	NNodes       int32  `json:"nnodes"`
	NCPUs        int32  `json:"ncpus"`
	NGPUs        int32  `json:"ngpus"`
	ReqMemMB     int64  `json:"req_mem_mb"`
	Priority     int64  `json:"priority"`
	Attempt      int32  `json:"attempt"`
	Steps        int32  `json:"steps"`
	Repair       string `json:"repair"`
	Source       string `json:"source"`
}

func jsonGoldenTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}

// jsonGolden renders jobs, then the summary's counts and notes, as JSON
// lines.
func jsonGolden(tb testing.TB, jobs []trace.Job, sum ingest.Summary) []byte {
	tb.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for i := range jobs {
		j := &jobs[i]
		g := jsonGoldenJob{
			j.JobID, j.JobIDRaw, j.ArrayJobID, j.ArrayTaskID, j.HetJobID, j.HetOffset,
			j.Cluster, j.Partition, j.Account, j.User, j.UID, j.Group, j.GID, j.JobName, j.QOS,
			j.State.String(), j.CancelledBy, j.Reason, j.ExitCode, j.ExitSignal,
			jsonGoldenTime(j.Submit), jsonGoldenTime(j.Eligible), jsonGoldenTime(j.Start), jsonGoldenTime(j.End),
			j.TimelimitSec, j.NNodes, j.NCPUs, j.NGPUs, j.ReqMemMB, j.Priority, j.Attempt, j.Steps, j.Repair,
			j.Position(),
		}
		if err := enc.Encode(&g); err != nil {
			tb.Fatal(err)
		}
	}
	summary := struct {
		RowsRead    int64    `json:"rows_read"`
		Jobs        int64    `json:"jobs"`
		StepsFolded int64    `json:"steps_folded"`
		Quarantined int64    `json:"quarantined"`
		Balanced    bool     `json:"balanced"`
		Notes       []string `json:"notes"`
	}{sum.RowsRead, sum.Jobs, sum.StepsFolded, sum.Quarantined, sum.Balanced, sum.Inputs[0].Notes}
	if err := enc.Encode(map[string]any{"summary": summary}); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func TestReadSacctJSON_Golden(t *testing.T) {
	jobs, _, sum, err := jsonRead(t, jsonReadFile(t, jsonFixture), ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/json/sacct_all.golden.jsonl", jsonGolden(t, jobs, sum))
}

func TestDetect_SacctJSON(t *testing.T) {
	head := jsonReadFile(t, jsonFixture)[:4096]
	if f, err := ingest.Detect(head); f != ingest.FormatSacctJSON || err != nil {
		t.Fatalf("Detect = %v, %v; want sacct-json", f, err)
	}
}

func TestRun_SacctJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "trace.parquet")
	sum, err := ingest.Run(context.Background(), []string{jsonFixture}, out, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Format != "sacct-json" || sum.RowsRead != 50 || sum.Jobs != 25 || sum.StepsFolded != 25 || sum.Quarantined != 0 || !sum.Balanced {
		t.Fatalf("summary = %+v", sum)
	}
	got, err := trace.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	want, _, _, err := jsonRead(t, jsonReadFile(t, jsonFixture), ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i].SourceFile = filepath.Base(jsonFixture) // its name, not its path
	}
	slices.SortStableFunc(want, func(a, b trace.Job) int {
		if trace.Less(&a, &b) {
			return -1
		}
		if trace.Less(&b, &a) {
			return 1
		}
		return 0
	})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("trace file (-want +got):\n%s", diff)
	}
}

// jsonDoc returns a sacct --json document with the given jobs, one job
// object per line after line 2:
//
//	line 1: {"meta": {...}, "errors": [],
//	line 2: "jobs": [
//	line 3: job 0
//	line 4: job 1 ...
func jsonDoc(jobs ...string) string {
	return `{"meta": {"plugin": {"type": "openapi\/dbv0.0.38", "name": "Slurm OpenAPI DB v0.0.38"}}, "errors": [],` + "\n" +
		`"jobs": [` + "\n" + strings.Join(jobs, ",\n") + "\n]}\n"
}

// jsonJob returns a one-line v0.0.38 job object with one batch step; edit
// replaces text in it.
func jsonJob(id string, edit ...string) string {
	j := `{"job_id": ` + id + `, "name": "j` + id + `", "user": "alice", "group": "users", "account": "acct", ` +
		`"partition": "debug", "qos": "normal", "cluster": "c1", "array": {"job_id": 0, "task_id": null}, ` +
		`"het": {"job_id": 0, "job_offset": null}, "state": {"current": "COMPLETED", "reason": "None"}, ` +
		`"exit_code": {"status": "SUCCESS", "return_code": 0}, ` +
		`"time": {"submission": 1000, "eligible": 1000, "start": 1010, "end": 1070, "elapsed": 60, "limit": 5}, ` +
		`"priority": 7, "required": {"CPUs": 2, "memory": 100}, "allocation_nodes": 1, ` +
		`"tres": {"allocated": [{"type": "cpu", "name": null, "id": 1, "count": 2}, {"type": "node", "name": null, "id": 4, "count": 1}], ` +
		`"requested": [{"type": "cpu", "name": null, "id": 1, "count": 2}, {"type": "mem", "name": null, "id": 2, "count": 100}]}, ` +
		`"steps": [{"step": {"job_id": ` + id + `, "id": "batch", "name": "batch"}, "state": "COMPLETED"}]}`
	for i := 0; i+1 < len(edit); i += 2 {
		if !strings.Contains(j, edit[i]) {
			panic("jsonJob: no " + edit[i])
		}
		j = strings.Replace(j, edit[i], edit[i+1], 1)
	}
	return j
}

func TestReadSacctJSON_Fields(t *testing.T) {
	tests := []struct {
		Name  string
		Input string
		Want  func(j *trace.Job)
	}{
		{"OK", jsonDoc(jsonJob("7")), func(j *trace.Job) {}},
		{"Het", jsonDoc(jsonJob("8", `"het": {"job_id": 0, "job_offset": null}`, `"het": {"job_id": 7, "job_offset": 1}`)), func(j *trace.Job) {
			j.JobID, j.JobIDRaw, j.HetJobID, j.HetOffset, j.JobName = "7+1", 8, 7, 1, "j8"
		}},
		{"PendingArray", jsonDoc(jsonJob("9", `"array": {"job_id": 0, "task_id": null}`,
			`"array": {"job_id": 9, "limits": {"max": {"running": {"tasks": 2}}}, "task": "0x2E", "task_id": null}`)), func(j *trace.Job) {
			j.JobID, j.JobIDRaw, j.ArrayJobID, j.JobName = "9_[1-3,5%2]", 9, 9, "j9"
		}},
		{"NoLimitNoPriority", jsonDoc(jsonJob("7", `"limit": 5`, `"limit": null`, `"priority": 7`, `"priority": null`)), func(j *trace.Job) {
			j.TimelimitSec, j.Priority = trace.NoLimit, trace.Unknown
		}},
		{"NeverStarted", jsonDoc(jsonJob("7", `"start": 1010, "end": 1070`, `"start": 0, "end": 1070`,
			`"allocated": [{"type": "cpu", "name": null, "id": 1, "count": 2}, {"type": "node", "name": null, "id": 4, "count": 1}]`, `"allocated": []`,
			`"allocation_nodes": 1`, `"allocation_nodes": 0`)), func(j *trace.Job) {
			j.Start, j.NNodes = time.Time{}, 0
		}},
		{"GPUs", jsonDoc(jsonJob("7", `{"type": "node", "name": null, "id": 4, "count": 1}]`,
			`{"type": "node", "name": null, "id": 4, "count": 1}, {"type": "gres", "name": "gpu:a100", "id": 1001, "count": 2}, {"type": "gres", "name": "gpu:v100", "id": 1002, "count": 1}]`)), func(j *trace.Job) {
			j.NGPUs = 3
		}},
		{"UntypedGPUs", jsonDoc(jsonJob("7", `{"type": "node", "name": null, "id": 4, "count": 1}]`,
			`{"type": "node", "name": null, "id": 4, "count": 1}, {"type": "gres", "name": "gpu", "id": 1000, "count": 4}, {"type": "gres", "name": "gpu:a100", "id": 1001, "count": 4}]`)), func(j *trace.Job) {
			j.NGPUs = 4
		}},
		{"CancelledByName", jsonDoc(jsonJob("7", `"current": "COMPLETED"`, `"current": "CANCELLED"`, `"name": "j7"`, `"kill_request_user": "bob", "name": "j7"`)), func(j *trace.Job) {
			j.State = trace.StateCancelled
		}},
		{"CancelledByNumber", jsonDoc(jsonJob("7", `"current": "COMPLETED"`, `"current": "CANCELLED"`, `"name": "j7"`, `"kill_request_user": "1234", "name": "j7"`)), func(j *trace.Job) {
			j.State, j.CancelledBy = trace.StateCancelled, 1234
		}},
		{"NoClusterFallsBack", jsonDoc(jsonJob("7", `"cluster": "c1"`, `"cluster": null`)), func(j *trace.Job) {
			j.Cluster = "opt"
		}},
		{"MemFromRequired", jsonDoc(jsonJob("7", `, {"type": "mem", "name": null, "id": 2, "count": 100}]`, `]`, `"memory": 100`, `"memory": 300`)), func(j *trace.Job) {
			j.ReqMemMB = 300
		}},
		{"NullSteps", jsonDoc(jsonJob("7", `"steps": [{"step": {"job_id": 7, "id": "batch", "name": "batch"}, "state": "COMPLETED"}]`, `"steps": null`)), func(j *trace.Job) {
			j.Steps = 0
		}},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			jobs, bad, sum, err := jsonRead(t, []byte(tt.Input), ingest.Options{Cluster: "opt"})
			if err != nil {
				t.Fatal(err)
			}
			if len(jobs) != 1 || len(bad) != 0 || !sum.Balanced {
				t.Fatalf("jobs %d, quarantined %v, summary %+v", len(jobs), bad, sum)
			}
			want := trace.NewJob()
			want.JobID, want.JobIDRaw, want.JobName = "7", 7, "j7"
			want.Cluster, want.Partition, want.Account, want.User, want.Group, want.QOS = "c1", "debug", "acct", "alice", "users", "normal"
			want.State, want.Reason = trace.StateCompleted, ""
			want.Submit, want.Eligible, want.Start, want.End = jsonEpoch(1000), jsonEpoch(1000), jsonEpoch(1010), jsonEpoch(1070)
			want.TimelimitSec, want.Priority, want.NNodes, want.NCPUs, want.ReqMemMB, want.Steps = 300, 7, 1, 2, 100, 1
			want.SourceFile, want.SourceLine = "in.json", 3
			tt.Want(&want)
			if diff := cmp.Diff(want, jobs[0]); diff != "" {
				t.Errorf("job (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadSacctJSON_Quarantine(t *testing.T) {
	rec := func(line int64, field, reason string) ingest.QuarantineRecord {
		return ingest.QuarantineRecord{File: "in.json", Line: line, Field: field, Reason: reason}
	}
	orphan := func(line, jobLine int64) ingest.QuarantineRecord {
		return rec(line, "steps[0]", "step without its allocation row: its job (line "+strconv.FormatInt(jobLine, 10)+") is quarantined")
	}
	orphan2 := func(line, jobLine int64) ingest.QuarantineRecord {
		r := orphan(line, jobLine)
		r.Field = "steps[1]"
		return r
	}
	multiLine := strings.ReplaceAll(jsonJob("8", `"start": 1010`, `"start": true`), ", ", ",\n  ")
	multiLineStep := int64(strings.Count(multiLine[:strings.Index(multiLine, `[{"step"`)], "\n"))
	tests := []struct {
		Name  string
		Input string
		Jobs  int
		Err   error // the first record's sentinel
		Want  []ingest.QuarantineRecord
	}{
		{"BadType", jsonDoc(jsonJob("7"), jsonJob("8", `"start": 1010`, `"start": "yesterday"`), jsonJob("9")), 2, ingest.ErrBadTime,
			[]ingest.QuarantineRecord{rec(4, "time.start", "invalid time: time.start is a string, want an integer"), orphan(4, 4)}},
		{"Fraction", jsonDoc(jsonJob("7", `"priority": 7`, `"priority": 7.5`)), 0, ingest.ErrBadNumber,
			[]ingest.QuarantineRecord{rec(3, "priority", "invalid number: priority is number 7.5, want an integer"), orphan(3, 3)}},
		{"BadState", jsonDoc(jsonJob("7", `"current": "COMPLETED"`, `"current": "BOGUS"`)), 0, trace.ErrBadState,
			[]ingest.QuarantineRecord{rec(3, "state.current", `invalid job state: "BOGUS"`), orphan(3, 3)}},
		{"StateNotObject", jsonDoc(jsonJob("7", `"state": {"current": "COMPLETED", "reason": "None"}`, `"state": "COMPLETED"`)), 0, trace.ErrBadState,
			[]ingest.QuarantineRecord{rec(3, "state", "invalid job state: state is a string, want an object"), orphan(3, 3)}},
		{"TimeOrder", jsonDoc(jsonJob("7", `"end": 1070`, `"end": 1005`)), 0, ingest.ErrTimeOrder,
			[]ingest.QuarantineRecord{rec(3, "time.end", "times out of order: End 1970-01-01T00:16:45Z is before Start 1970-01-01T00:16:50Z"), orphan(3, 3)}},
		{"NegativeTime", jsonDoc(jsonJob("7", `"submission": 1000`, `"submission": -5`)), 0, ingest.ErrBadTime,
			[]ingest.QuarantineRecord{rec(3, "time.submission", "invalid time: year 1969 is outside 1970-2100 (epoch seconds -5)"), orphan(3, 3)}},
		{"NoJobID", jsonDoc(jsonJob("7", `"job_id": 7, `, ``)), 0, ingest.ErrBadJobID,
			[]ingest.QuarantineRecord{rec(3, "job_id", "invalid job ID: missing"), orphan(3, 3)}},
		{"HetWithoutOffset", jsonDoc(jsonJob("7", `"het": {"job_id": 0`, `"het": {"job_id": 6`)), 0, ingest.ErrBadJobID,
			[]ingest.QuarantineRecord{rec(3, "het.job_offset", "invalid job ID: het job 6 has no valid het.job_offset"), orphan(3, 3)}},
		{"BadTRES", jsonDoc(jsonJob("7", `"id": 4, "count": 1`, `"id": 4, "count": -1`)), 0, ingest.ErrBadNumber,
			[]ingest.QuarantineRecord{rec(3, "tres.allocated", "invalid number: tres.allocated node count -1"), orphan(3, 3)}},
		{"BadTaskBitmap", jsonDoc(jsonJob("7", `"array": {"job_id": 0, "task_id": null}`, `"array": {"job_id": 7, "task": "0x1G", "task_id": null}`)), 0, ingest.ErrBadJobID,
			[]ingest.QuarantineRecord{rec(3, "array.task", `invalid job ID: array task bitmap "0x1G"`), orphan(3, 3)}},
		{"NotAnObject", jsonDoc(jsonJob("7"), `[1, 2]`), 1, ingest.ErrBadRecord,
			[]ingest.QuarantineRecord{rec(4, "", "invalid record: job is an array, want an object")}},
		{"StepsNotArray", jsonDoc(jsonJob("7", `"steps": [`, `"steps": 5, "x": [`)), 0, ingest.ErrBadRecord,
			[]ingest.QuarantineRecord{rec(3, "steps", `invalid record: steps is a number, want an array`)}},
		{"StepsObject", jsonDoc(jsonJob("7", `"steps": [`, `"steps": {"a": [{}]}, "x": [`)), 0, ingest.ErrBadRecord,
			[]ingest.QuarantineRecord{rec(3, "steps", `invalid record: steps is an object, want an array`)}},
		{"StepNotObject", jsonDoc(jsonJob("7", `"steps": [`, `"steps": [null, `)), 0, ingest.ErrBadRecord,
			[]ingest.QuarantineRecord{rec(3, "steps[0]", "invalid record: step is null, want an object"), orphan(3, 3), orphan2(3, 3)}},
		{"MultiLineJob", jsonDoc(jsonJob("7"), multiLine), 1, ingest.ErrBadTime,
			[]ingest.QuarantineRecord{rec(4, "time.start", "invalid time: time.start is a boolean, want an integer"), orphan(4+multiLineStep, 4)}},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			jobs, bad, sum, err := jsonRead(t, []byte(tt.Input), ingest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var raws []string
			for i := range bad {
				raws = append(raws, bad[i].Raw)
				bad[i].Raw = ""
			}
			if diff := cmp.Diff(tt.Want, bad); diff != "" {
				t.Errorf("quarantine (-want +got):\n%s", diff)
			}
			if len(raws) > 0 && !json.Valid([]byte(raws[0])) {
				t.Errorf("raw %q is not JSON", raws[0])
			}
			if len(jobs) != tt.Jobs || !sum.Balanced || sum.Quarantined != int64(len(tt.Want)) {
				t.Errorf("jobs %d (want %d), summary %+v", len(jobs), tt.Jobs, sum)
			}
			// Strict mode stops at the first bad record with its *ParseError.
			_, _, _, err = jsonRead(t, []byte(tt.Input), ingest.Options{Strict: true})
			var pe *ingest.ParseError
			if !errors.As(err, &pe) || !errors.Is(err, tt.Err) {
				t.Fatalf("strict: err = %v, want a *ParseError wrapping %v", err, tt.Err)
			}
			w := tt.Want[0]
			if got := (ingest.QuarantineRecord{File: pe.Path, Line: pe.Line, Field: pe.Field, Reason: pe.Err.Error()}); got != w {
				t.Errorf("strict:\n got %+v\nwant %+v", got, w)
			}
		})
	}
}

func TestReadSacctJSON_Input(t *testing.T) {
	fixture := jsonReadFile(t, jsonFixture)
	meta := func(plugin string) string {
		return `{"meta": {"plugin": ` + plugin + `}, "errors": [], "jobs": [` + "\n" + jsonJob("7") + "\n]}"
	}
	tests := []struct {
		Name  string
		Input string
		Jobs  int
		Notes []string
		Err   error  // a sentinel the error wraps; nil for success
		Msg   string // text the error contains
		Line  int64  // for a *ParseError
	}{
		{"Empty", "", 0, nil, ingest.ErrEmptyInput, "", 0},
		{"Blank", " \n\t\n", 0, nil, ingest.ErrEmptyInput, "", 0},
		{"NoJobs", `{"jobs": []}`, 0, nil, ingest.ErrHeaderOnly, "", 0},
		{"NullJobs", `{"meta": {}, "jobs": null}`, 0, nil, ingest.ErrHeaderOnly, "", 0},
		{"SacctErrors", `{"errors": [{"error": "Unable to connect to slurmdbd", "errno": 1}], "jobs": []}`, 0, nil, ingest.ErrHeaderOnly,
			"sacct reported: {\"error\": \"Unable to connect to slurmdbd\", \"errno\": 1}", 0},
		{"DataParser2302", `{"meta": {"plugins": {"data_parser": "data_parser/v0.0.38"}}, "jobs": [` + jsonJob("7") + `]}`, 1, nil, nil, "", 0},
		{"DataParser2311", meta(`{"type": "", "data_parser": "data_parser/v0.0.38"}`), 1, nil, nil, "", 0},
		{"UnknownVersion", meta(`{"data_parser": "data_parser/v0.0.40"}`), 0, nil, ingest.ErrUnknownFormat,
			"data_parser v0.0.40 (\"data_parser/v0.0.40\") is not supported (supported: v0.0.38)", 1},
		{"Squeue", meta(`{"type": "openapi/v0.0.38"}`), 0, nil, ingest.ErrUnknownFormat, "not a sacct --json data_parser", 1},
		{"NoVersion", meta(`{}`), 1, []string{`sacct --json: "meta" names no data_parser plugin; read as data_parser v0.0.38`}, nil, "", 0},
		{"JobsBeforeMeta", `{"jobs": [` + jsonJob("7") + `], "meta": {"plugin": {"type": "openapi/dbv0.0.38"}}}`, 1,
			[]string{`sacct --json: no "meta" before "jobs"; read as data_parser v0.0.38`}, nil, "", 0},
		{"JobsBeforeOtherMeta", `{"jobs": [` + jsonJob("7") + "],\n" + `"meta": {"plugin": {"type": "openapi/dbv0.0.39"}}}`, 1, nil,
			ingest.ErrUnknownFormat, "not supported", 2},
		{"ExtraKeys", `{"warnings": [{"description": "x"}], "meta": {"plugin": {"type": "openapi/dbv0.0.38"}}, "jobs": [` + jsonJob("7") + `], "last": 1}`, 1, nil, nil, "", 0},
		{"NoMeta", `{"jobs": [` + jsonJob("7") + `]}`, 1, []string{`sacct --json: no "meta" before "jobs"; read as data_parser v0.0.38`}, nil, "", 0},
		{"BareArray", "[" + jsonJob("7") + "]", 1, []string{"sacct --json: the input is a bare array of jobs; read as data_parser v0.0.38"}, nil, "", 0},
		{"Concatenated", jsonDoc(jsonJob("7", `"COMPLETED"`, `"PREEMPTED"`)) + jsonDoc(jsonJob("7")), 2, nil, nil, "", 0},
		{"JobsNotArray", "{\"meta\": {},\n\"jobs\": {}}", 0, nil, ingest.ErrBadRecord, `"jobs" is an object, want an array`, 2},
		{"TopLevelString", `"jobs"`, 0, nil, ingest.ErrBadRecord, "top-level value a string", 1},
		// Cut inside the 15th job; the last byte read is the '\n' that ends line 4505.
		{"Truncated", string(fixture[:100000]), 14, nil, ingest.ErrBadRecord, "unexpected end of input", 4505},
		{"TruncatedAfterJob", jsonDoc(jsonJob("7"))[:len(jsonDoc(jsonJob("7")))-4], 1, nil, ingest.ErrBadRecord, "unexpected end of input", 3},
		{"BadByte", jsonDoc(jsonJob("7"), jsonJob("8", `"priority": 7`, `"priority": 7x`), jsonJob("9")), 1, nil, ingest.ErrBadRecord,
			"invalid character 'x' after object key:value pair", 4},
		{"BadByteOnLaterLine", jsonDoc(jsonJob("7"), strings.Replace(jsonJob("8"), `"tres"`, "\n\n\"tres\" 1", 1)), 1, nil, ingest.ErrBadRecord,
			"invalid character '1' after object key", 6},
		{"BadDelimiter", jsonDoc(jsonJob("7")) + "\n\n}", 1, nil, ingest.ErrBadRecord, "invalid character '}' looking for beginning of value", 7},
		{"MissingComma", "{\"meta\": {}\n\"jobs\": []}", 0, nil, ingest.ErrBadRecord, "invalid character '\"' after object key:value pair", 2},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			jobs, _, sum, err := jsonRead(t, []byte(tt.Input), ingest.Options{Format: ingest.FormatSacctJSON})
			if len(jobs) != tt.Jobs {
				t.Errorf("jobs = %d, want %d", len(jobs), tt.Jobs)
			}
			if tt.Err == nil {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.Notes, sum.Inputs[0].Notes); diff != "" || !sum.Balanced {
					t.Errorf("notes (-want +got):\n%s\nsummary %+v", diff, sum)
				}
				return
			}
			if !errors.Is(err, tt.Err) || !strings.Contains(err.Error(), tt.Msg) {
				t.Fatalf("err = %v\nwant one wrapping %v and containing %q", err, tt.Err, tt.Msg)
			}
			var pe *ingest.ParseError
			if errors.As(err, &pe) != (tt.Line > 0) || pe != nil && (pe.Path != "in.json" || pe.Line != tt.Line) {
				t.Errorf("err = %#v, want a *ParseError at in.json:%d", err, tt.Line)
			}
		})
	}
	t.Run("ConcatenatedAttempts", func(t *testing.T) {
		in := jsonDoc(jsonJob("7", `"COMPLETED"`, `"PREEMPTED"`)) + jsonDoc(jsonJob("7"))
		jobs, _, _, err := jsonRead(t, []byte(in), ingest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) != 2 || jobs[0].Attempt != 0 || jobs[1].Attempt != 1 || jobs[1].SourceLine != 7 {
			t.Errorf("jobs = %+v", jobs)
		}
	})
}

func TestReadSacctJSON_Canceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var in strings.Builder
	in.WriteString(`{"jobs": [`)
	for i := range ingest.ProgressEvery {
		if i > 0 {
			in.WriteString(",")
		}
		in.WriteString(`{"job_id": 1, "steps": [{}]}`)
	}
	in.WriteString("]}")
	_, err := ingest.Read(ctx, strings.NewReader(in.String()), "in.json", ingest.Options{}, func(*trace.Job) error { return nil }, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func FuzzSacctJSON(f *testing.F) {
	// The whole fixture (188 KB) would make mutation and minimization slow;
	// its head (meta and the first job, in Slurm's layout), a compact copy
	// of its first job and a cut-off head stand in for it.
	fixture := jsonReadFile(f, jsonFixture)
	second := bytes.Index(fixture, []byte("\n    {\n"))
	second += 1 + bytes.Index(fixture[second+1:], []byte("\n    {\n"))
	head := append(bytes.TrimSuffix(bytes.Clone(fixture[:second]), []byte(",")), "\n  ]\n}"...)
	f.Add(head)
	f.Add(head[:len(head)/2])
	var doc struct{ Jobs []json.RawMessage }
	if err := json.Unmarshal(fixture, &doc); err != nil {
		f.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, doc.Jobs[0]); err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"meta":{"plugin":{"type":"openapi\/dbv0.0.38"}},"errors":[],"jobs":[` + compact.String() + `]}`))
	f.Add([]byte(jsonDoc(jsonJob("7"), jsonJob("8", `"array": {"job_id": 0, "task_id": null}`, `"array": {"job_id": 8, "task": "0x7", "task_id": null}`))))
	f.Add([]byte(jsonDoc(jsonJob("7", `"het": {"job_id": 0`, `"het": {"job_id": 6, "job_offset": 1`), jsonJob("7", `"COMPLETED"`, `"NODE_FAIL"`), jsonJob("7"))))
	f.Add([]byte(`{"jobs": [` + jsonJob("7", `"start": 1010`, `"start": "x"`) + `], "meta": {"plugin": {"type": "openapi/dbv0.0.38"}}}`))
	f.Add([]byte("[" + jsonJob("7") + "]"))
	f.Add([]byte(`{"jobs": [{"job_id": 1, "steps": [1, {}, null]}, 5, {}]}`))
	bad, _ := filepath.Glob(filepath.Join("testdata", "bad", "*.json"))
	for _, p := range bad {
		f.Add(jsonReadFile(f, p))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var jobs []trace.Job
		var bad []ingest.QuarantineRecord
		sum, err := ingest.Read(context.Background(), bytes.NewReader(data), "fuzz.json", ingest.Options{Format: ingest.FormatSacctJSON},
			func(j *trace.Job) error { jobs = append(jobs, *j); return nil },
			func(r ingest.QuarantineRecord) { bad = append(bad, r) })
		if err != nil {
			if !ingest.IsInputError(err) {
				t.Fatalf("error is not an input error: %v", err)
			}
			return
		}
		if !sum.Balanced || sum.Jobs != int64(len(jobs)) || sum.Quarantined != int64(len(bad)) {
			t.Fatalf("summary %+v with %d jobs, %d quarantined", sum, len(jobs), len(bad))
		}
		lines := int64(bytes.Count(data, []byte{'\n'})) + 1
		for _, j := range jobs {
			if j.JobID == "" || j.JobIDRaw <= 0 || j.SourceLine < 1 || j.SourceLine > lines {
				t.Fatalf("job %+v", j)
			}
			if rt, ok := j.RunTime(); ok && rt < 0 {
				t.Fatalf("job %s ends before it starts", j.JobID)
			}
			checkJobText(t, &j)
		}
		for _, r := range bad {
			if r.Line < 1 || r.Line > lines || r.Reason == "" {
				t.Fatalf("quarantine record %+v", r)
			}
		}
	})
}

func BenchmarkReadSacctJSON(b *testing.B) {
	in := jsonReadFile(b, jsonFixture)
	if _, _, sum, err := jsonRead(b, in, ingest.Options{}); err != nil || sum.Jobs != 25 {
		b.Fatalf("jobs %d, err %v", sum.Jobs, err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		_, err := ingest.Read(context.Background(), bytes.NewReader(in), "in.json", ingest.Options{},
			func(*trace.Job) error { return nil }, nil)
		if err != nil {
			b.Fatal(err)
		}
	}
}
