package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/internal/golden"
	"github.com/mirage-hpc/mirage/trace"
)

// sacctOpts are the options the sacct fixtures are read with: the test
// cluster's clock is UTC, and sacct's default columns name no cluster.
var sacctOpts = ingest.Options{Location: time.UTC, Cluster: "localtest"}

// ingested is everything Read made of one input.
type ingested struct {
	Jobs       []trace.Job
	Quarantine []ingest.QuarantineRecord
	Summary    ingest.Summary
}

// ingestBytes runs ingest.Read over data, collecting jobs and quarantine
// records; name is the SourceFile.
func ingestBytes(tb testing.TB, data []byte, name string, opts ingest.Options) (ingested, error) {
	tb.Helper()
	var res ingested
	sum, err := ingest.Read(context.Background(), bytes.NewReader(data), name, opts,
		func(j *trace.Job) error { res.Jobs = append(res.Jobs, *j); return nil },
		func(r ingest.QuarantineRecord) { res.Quarantine = append(res.Quarantine, r) })
	res.Summary = sum
	return res, err
}

// mustReadFile reads a fixture with ingest.Read and fails tb on error.
func mustReadFile(tb testing.TB, path string, opts ingest.Options) ingested {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	res, err := ingestBytes(tb, data, filepath.Base(path), opts)
	if err != nil {
		tb.Fatalf("Read(%s): %v", path, err)
	}
	return res
}

// goldenJobLine is the golden-file form of a trace.Job: fixed field order,
// RFC3339 times ("" when unknown). SourceFile is left out (it is the case
// name).
type goldenJobLine struct {
	JobID       string `json:"job_id"`
	JobIDRaw    int64  `json:"job_id_raw"`
	ArrayJobID  int64  `json:"array_job_id"`
	ArrayTaskID int64  `json:"array_task_id"`
	HetJobID    int64  `json:"het_job_id"`
	HetOffset   int64  `json:"het_offset"`
	Cluster     string `json:"cluster"`
	Partition   string `json:"partition"`
	Account     string `json:"account"`
	User        string `json:"user"`
	UID         int64  `json:"uid"`
	Group       string `json:"group"`
	GID         int64  `json:"gid"`
	JobName     string `json:"job_name"`
	QOS         string `json:"qos"`
	State       string `json:"state"`
	CancelledBy int64  `json:"cancelled_by"`
	Reason      string `json:"reason"`
	ExitCode    int32  `json:"exit_code"`
	ExitSignal  int32  `json:"exit_signal"`
	Submit      string `json:"submit"`
	Eligible    string `json:"eligible"`
	Start       string `json:"start"`
	End         string `json:"end"`
	// StartUnknown and ElapsedSec appear only for a job that ran from an
	// unknown start (SWF wait -1), so the other formats' golden files do
	// not carry them.
	StartUnknown bool   `json:"start_unknown,omitempty"`
	ElapsedSec   *int64 `json:"elapsed_sec,omitempty"`
	TimelimitSec int64  `json:"timelimit_sec"`
	NNodes       int32  `json:"nnodes"`
	NCPUs        int32  `json:"ncpus"`
	NGPUs        int32  `json:"ngpus"`
	ReqMemMB     int64  `json:"req_mem_mb"`
	Priority     int64  `json:"priority"`
	Attempt      int32  `json:"attempt"`
	Steps        int32  `json:"steps"`
	Repair       string `json:"repair"`
	SourceLine   int64  `json:"source_line"`
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func toGoldenLine(j *trace.Job) goldenJobLine {
	var elapsed *int64
	if j.StartUnknown || j.ElapsedSec != trace.Unknown {
		elapsed = &j.ElapsedSec
	}
	return goldenJobLine{
		StartUnknown: j.StartUnknown, ElapsedSec: elapsed,
		JobID: j.JobID, JobIDRaw: j.JobIDRaw, ArrayJobID: j.ArrayJobID, ArrayTaskID: j.ArrayTaskID,
		HetJobID: j.HetJobID, HetOffset: j.HetOffset, Cluster: j.Cluster, Partition: j.Partition,
		Account: j.Account, User: j.User, UID: j.UID, Group: j.Group, GID: j.GID, JobName: j.JobName,
		QOS: j.QOS, State: j.State.String(), CancelledBy: j.CancelledBy, Reason: j.Reason,
		ExitCode: j.ExitCode, ExitSignal: j.ExitSignal, Submit: rfc3339(j.Submit),
		Eligible: rfc3339(j.Eligible), Start: rfc3339(j.Start), End: rfc3339(j.End),
		TimelimitSec: j.TimelimitSec, NNodes: j.NNodes, NCPUs: j.NCPUs, NGPUs: j.NGPUs,
		ReqMemMB: j.ReqMemMB, Priority: j.Priority, Attempt: j.Attempt, Steps: j.Steps,
		Repair: j.Repair, SourceLine: j.SourceLine,
	}
}

// encodeIngested renders res as JSON lines: one job per line in input
// order, then {"quarantine": ...} lines, then {"summary": ...}.
func encodeIngested(tb testing.TB, res ingested) []byte {
	tb.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for i := range res.Jobs {
		if err := enc.Encode(toGoldenLine(&res.Jobs[i])); err != nil {
			tb.Fatal(err)
		}
	}
	for _, q := range res.Quarantine {
		if err := enc.Encode(struct {
			Q ingest.QuarantineRecord `json:"quarantine"`
		}{q}); err != nil {
			tb.Fatal(err)
		}
	}
	if err := enc.Encode(struct {
		S ingest.Summary `json:"summary"`
	}{res.Summary}); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// sacctErrCases are the fixtures that must be refused as a whole, and the
// error each must wrap.
var sacctErrCases = map[string]error{
	"fixed_default":     ingest.ErrFixedWidth,
	"fixed_all":         ingest.ErrFixedWidth,
	"fixed_allocations": ingest.ErrFixedWidth,
	"fixed_widths":      ingest.ErrFixedWidth,
	"fixed_p_widths":    ingest.ErrFixedWidth,
	"delimiter_t":       ingest.ErrUnknownFormat,
	"p2_header_only":    ingest.ErrHeaderOnly,
}

// fixtures returns the <case>.txt files of dir, by case name.
func fixtureCases(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	if len(paths) == 0 {
		tb.Fatalf("no fixtures in %s", dir)
	}
	m := make(map[string]string, len(paths))
	for _, p := range paths {
		m[strings.TrimSuffix(filepath.Base(p), ".txt")] = p
	}
	return m
}

func TestGolden_Sacct(t *testing.T) {
	cases := fixtureCases(t, filepath.Join("testdata", "sacct"))
	for name := range sacctErrCases {
		if _, ok := cases[name]; !ok {
			t.Errorf("error case %s has no fixture", name)
		}
	}
	for name, path := range cases {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			res, err := ingestBytes(t, data, filepath.Base(path), sacctOpts)
			if want, ok := sacctErrCases[name]; ok {
				if !errors.Is(err, want) {
					t.Fatalf("Read error:\ngot  %v\nwant %v", err, want)
				}
				if len(res.Jobs) != 0 {
					t.Errorf("got %d jobs from a refused input", len(res.Jobs))
				}
				return
			}
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if !res.Summary.Balanced {
				t.Errorf("summary not balanced: %+v", res.Summary)
			}
			golden.Check(t, strings.TrimSuffix(path, ".txt")+".golden.jsonl", encodeIngested(t, res))
		})
	}
}

func TestGolden_Mirage(t *testing.T) {
	loc := mustLoadLocation(t, "America/Chicago")
	for name, path := range fixtureCases(t, filepath.Join("testdata", "mirage")) {
		t.Run(name, func(t *testing.T) {
			res := mustReadFile(t, path, ingest.Options{Location: loc, Cluster: "ls6"})
			if !res.Summary.Balanced {
				t.Errorf("summary not balanced: %+v", res.Summary)
			}
			golden.Check(t, strings.TrimSuffix(path, ".txt")+".golden.jsonl", encodeIngested(t, res))
		})
	}
}

func mustLoadLocation(tb testing.TB, name string) *time.Location {
	tb.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		tb.Fatal(err)
	}
	return loc
}
