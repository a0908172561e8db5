package ingest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/trace"
)

// TestReadSacctJSON_ReadAheadTrip: with no read-ahead slack, job objects
// near the bound (read ahead of by the decoder) are still read exactly as
// without a bound, and only the over-long one is quarantined.
func TestReadSacctJSON_ReadAheadTrip(t *testing.T) {
	defer func(s int) { readAheadSlack = s }(readAheadSlack)
	var jobs []string
	for i := 1; i <= 60; i++ {
		name := strings.Repeat("x", 3000+(i*337)%800)
		if i == 30 {
			name = strings.Repeat("y", 9000)
		}
		jobs = append(jobs, fmt.Sprintf(`{"job_id": %d, "name": %q, "user": "alice", "state": {"current": "COMPLETED"}, "time": {"submission": 1672531200, "eligible": 1672531200, "start": 1672531800, "end": 1672535400, "limit": 120}, "steps": []}`, i, name))
	}
	in := `{"meta": {"plugin": {"type": "openapi/dbv0.0.38"}}, "jobs": [` + "\n" + strings.Join(jobs, ",\n") + "\n]}\n"
	read := func(maxLine int) (ids []string, lines []int64, bad []QuarantineRecord) {
		sum, err := Read(context.Background(), bytes.NewReader([]byte(in)), "in.json", Options{MaxLineBytes: maxLine},
			func(j *trace.Job) error {
				ids = append(ids, j.JobID+":"+j.JobName[:min(1, len(j.JobName))])
				lines = append(lines, j.SourceLine)
				return nil
			},
			func(r QuarantineRecord) { bad = append(bad, r) })
		if err != nil || !sum.Balanced {
			t.Fatalf("MaxLineBytes %d: %v, %+v", maxLine, err, sum)
		}
		return ids, lines, bad
	}
	wantIDs, wantLines, _ := read(0)
	readAheadSlack = 0
	ids, lines, bad := read(4000)
	if len(bad) != 1 || bad[0].Line != 31 {
		t.Fatalf("quarantined %+v, want job 30 on line 31", bad)
	}
	wantIDs = append(wantIDs[:29:29], wantIDs[30:]...)
	wantLines = append(wantLines[:29:29], wantLines[30:]...)
	if strings.Join(ids, ",") != strings.Join(wantIDs, ",") || fmt.Sprint(lines) != fmt.Sprint(wantLines) {
		t.Errorf("jobs %v\nlines %v\nwant %v\n%v", ids, lines, wantIDs, wantLines)
	}
}

// TestReadSacctJSON_LimitsProperty reads the real fixture, cut at many
// points, with bounds that trip on some of its job objects: every run
// either fails or balances, and a job within the bound is never lost.
func TestReadSacctJSON_LimitsProperty(t *testing.T) {
	in, err := os.ReadFile("testdata/json/sacct_all.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{300, 2000, 6000} {
		for cut := len(in); cut > 0; cut -= 1499 {
			var jobs, bad int64
			sum, err := Read(context.Background(), bytes.NewReader(in[:cut]), "in.json", Options{MaxLineBytes: limit},
				func(*trace.Job) error { jobs++; return nil }, func(QuarantineRecord) { bad++ })
			if err == nil && (!sum.Balanced || sum.Jobs != jobs || sum.Quarantined != bad) {
				t.Fatalf("limit %d, cut %d: %+v", limit, cut, sum)
			}
			if cut == len(in) && err != nil {
				t.Fatalf("limit %d, whole input: %v", limit, err)
			}
		}
	}
}
