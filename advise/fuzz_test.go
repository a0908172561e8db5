package advise

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"testing"
	"time"
)

func addSeeds(f *testing.F, paths ...string) {
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}

// FuzzParseSqueueJSON checks that any input gives jobs or an error, never
// a panic, and that pending jobs carry no start.
func FuzzParseSqueueJSON(f *testing.F) {
	// Small seeds only: the fuzzer minimises every new input it finds, and
	// on the 116 KB squeue capture that took the whole -fuzztime. The
	// seed file holds four jobs of a real squeue --json (running, pending,
	// held, begin time), trimmed to the fields the parser reads.
	addSeeds(f, "testdata/squeue-fuzz-seed.json")
	f.Add([]byte(`{"jobs":[{"job_id":{"set":true,"number":1},"job_state":["RUNNING"],"time_limit":{"infinite":true}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		jobs, err := ParseSqueueJSON(bytes.NewReader(b))
		if err != nil {
			return
		}
		for _, j := range jobs {
			if (j.State == JobPending || j.State == JobHeld) && j.Start != 0 {
				t.Fatalf("pending job %s with start %d", j.ID, j.Start)
			}
		}
	})
}

// FuzzParseSqueueFormat checks that any input gives jobs or an error, and
// that the name (the last field) keeps every '|' of the line's tail.
func FuzzParseSqueueFormat(f *testing.F) {
	addSeeds(f, "testdata/squeue-format-22.05.8.txt")
	f.Add([]byte("1|1|u|p|RUNNING|None|2026-01-01T00:00:00|1-00:00:00|2|5|2026-01-01T00:00:01|a|b|c\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		jobs, err := ParseSqueueFormat(bytes.NewReader(b), time.UTC)
		if err != nil {
			return
		}
		for _, j := range jobs {
			if j.LimitSec < 0 {
				t.Fatalf("negative limit %d", j.LimitSec)
			}
		}
	})
}

// FuzzParseSacct checks that sacct text never panics the live reader.
func FuzzParseSacct(f *testing.F) {
	addSeeds(f, "testdata/sacct-p2-22.05.8.txt")
	f.Add([]byte("JobID|State|Submit|Start|End\n1|RUNNING|2026-01-01T00:00:00|2026-01-01T00:00:01|Unknown\n"))
	// SacctRuntimeArgs' layout: tab-separated, with the run-time model's fields.
	f.Add([]byte("JobID\tJobIDRaw\tUser\tPartition\tState\tSubmit\tEligible\tStart\tEnd\tTimelimit\tNNodes\tJobName\tAccount\tQOS\tNCPUS\tAllocTRES\tReqTRES\n" +
		"7\t7\tu\tgpu\tRUNNING\t2026-01-01T00:00:00\t2026-01-01T00:00:00\t2026-01-01T00:00:05\tUnknown\t1-00:00:00\t2\ta|b\tacct\tnormal\t256\tbilling=256,cpu=256,gres/gpu=8,node=2\tcpu=256,gres/gpu=8\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		jobs, _, err := ParseSacct(context.Background(), bytes.NewReader(b), time.UTC)
		if err != nil {
			return
		}
		for _, j := range jobs {
			if j.CPUs < 0 || j.GPUs < 0 || j.Nodes < 0 {
				t.Fatalf("job %s: %d CPUs, %d GPUs, %d nodes", j.ID, j.CPUs, j.GPUs, j.Nodes)
			}
		}
	})
}

// FuzzSqueueJSONSplit checks the parallel decoder against encoding/json
// on the whole document: whenever the latter reads a jobs list, the
// parallel path reads the same jobs.
func FuzzSqueueJSONSplit(f *testing.F) {
	addSeeds(f, "testdata/squeue-fuzz-seed.json")
	f.Add([]byte(`{"meta":{"x":"]}\"["},"jobs":[{"job_id":1,"name":"a\"]}"},{"job_id":2}],"Jobs":[]}`))
	f.Add([]byte(`{"jobs":[],"jobs":[{"job_id":3}]}`))
	f.Add([]byte(`{"jobs":[{"JOB_ID":4,"Name":"x","name":"y\u00e9","user_name":null,"job_state":["RUNNING","X"],"time_limit":{"set":true,"number":5}}]}`))
	f.Add([]byte(`{"jobs":[{"n\u0061me":"esc","job_id":1,"priority":1.5e3,"partition":"\u00ff\/"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var doc struct {
			Jobs *[]squeueJSONJob `json:"jobs"`
		}
		if err := json.Unmarshal(b, &doc); err != nil || doc.Jobs == nil {
			return
		}
		got, err := decodeSqueueJSON(b)
		if err != nil {
			t.Fatalf("encoding/json reads %d jobs, the parallel path fails: %v", len(*doc.Jobs), err)
		}
		if !reflect.DeepEqual(got, *doc.Jobs) && !(len(got) == 0 && len(*doc.Jobs) == 0) {
			t.Fatalf("parallel path %+v, encoding/json %+v", got, *doc.Jobs)
		}
	})
}
