package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/ingest"
)

// TestDetect_WhyNot checks that an unrecognised input's error says, for
// each format tried, what in the first line ruled it out.
func TestDetect_WhyNot(t *testing.T) {
	tests := []struct {
		Name, Input string
		Want        []string // substrings of the error
	}{
		{"CSVWithJobID", "JobID,User,Submit,Start,End\n1,a,2022-11-01T00:00:00,,\n", []string{
			"sacct: CSV with `,` separators is not sacct: sacct uses `|`; pass --format csv to read it as CSV with sacct's column names",
			"sacct-json: the first character is 'J', not `{` or `[`",
			"swf: the first line is not a `;` header comment and has 1 white-space-separated fields, not 18",
		}},
		{"CSVNoJobID", "a,b,c\n1,2,3\n", []string{"sacct: the first line is comma-separated (CSV) and names no JobID column",
			"pass --columns FROM=TO,... naming which of its columns is JobID"}},
		{"CSVEagle", "job_id,user,account,partition,qos,wallclock_req,nodes_req,processors_req,gpus_req,mem_req,submit_time,start_time,end_time,run_time,state,name\n",
			[]string{`its columns are those of the "eagle" release: pass --columns eagle`}},
		{"CSVPM100", "job_id,user_id,group_id,partition,qos,job_state,priority,submit_time,eligible_time,start_time,end_time,time_limit,run_time,num_nodes_alloc,num_nodes_req,num_cores_alloc,num_cores_req,num_gpus_alloc\n",
			[]string{`its columns are those of the "pm100" release: pass --columns pm100`}},
		{"SpaceSeparatedJobID", "JobID JobName\n1 wrap\n", []string{"sacct: the header names JobID but has no `|` or tab separators"}},
		{"SWFBadField", "1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 x\n", []string{"swf: field 18, \"x\", is not a number"}},
		{"CountOnly", "24779\n1\t2\t3\n", []string{"mirage: the job count on the first line is not followed by a header naming JobID"}},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			_, err := ingest.Detect([]byte(tt.Input))
			if !errors.Is(err, ingest.ErrUnknownFormat) {
				t.Fatalf("Detect error %v, want ErrUnknownFormat", err)
			}
			msg := err.Error()
			for _, w := range append(tt.Want, "is none of the formats tried", "pass --format (sacct, sacct-json, mirage, swf or csv) to force one") {
				if !strings.Contains(msg, w) {
					t.Errorf("error:\n%s\nwant it to contain %q", msg, w)
				}
			}
		})
	}
}

// TestRun_NoJobsNamesField checks that a run whose every row is
// quarantined names the field that failed most.
func TestRun_NoJobsNamesField(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.txt", []byte("JobID|User|Submit|Start|End|State\n"+
		"1|a|notatime|2022-11-01T00:00:00|2022-11-01T01:00:00|COMPLETED\n"+
		"2|b|bad|2022-11-01T00:00:00|2022-11-01T01:00:00|COMPLETED\n"+
		"3|c|2022-11-01T00:00:00|2022-11-01T00:00:00|2022-11-01T01:00:00|NOT_A_STATE\n"))
	_, err := ingest.Run(context.Background(), []string{in}, filepath.Join(dir, "out.parquet"), sacctOpts)
	if !errors.Is(err, ingest.ErrNoJobs) || !strings.Contains(err.Error(), "(3 rows read, 3 quarantined, most often for field Submit (2 rows); the first: ") {
		t.Errorf("Run error %v\nwant ErrNoJobs naming field Submit (2 rows)", err)
	}
}

// TestRun_SWFAllUnknownQuarantined checks that SWF lines whose every
// field is -1 are quarantined, not kept as jobs, and that the log line
// and the summary agree on the quarantine count (duplicates included).
func TestRun_SWFAllUnknownQuarantined(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.swf", []byte(
		"1 0 5 100 8 -1 -1 8 300 -1 1 7 3 -1 1 1 -1 -1\n"+
			"2 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n"+
			"-1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n"+
			"1 0 5 100 8 -1 -1 8 300 -1 1 7 3 -1 1 1 -1 -1\n")) // a duplicate of job 1
	var logs bytes.Buffer
	opts := ingest.Options{Format: ingest.FormatSWF, Logger: slog.New(slog.NewJSONHandler(&logs, nil))}
	sum, err := ingest.Run(context.Background(), []string{in}, filepath.Join(dir, "out.parquet"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Jobs != 1 || sum.Quarantined != 3 || sum.Inputs[0].Quarantined != 3 {
		t.Errorf("jobs %d, quarantined %d (input %d); want 1 job, 3 quarantined", sum.Jobs, sum.Quarantined, sum.Inputs[0].Quarantined)
	}
	var rec struct {
		Msg         string `json:"msg"`
		Quarantined int64  `json:"quarantined"`
	}
	if err := json.Unmarshal(logs.Bytes(), &rec); err != nil || rec.Msg != "ingested input" || rec.Quarantined != sum.Quarantined {
		t.Errorf("log %s (%v): want one ingested-input line with quarantined %d", logs.String(), err, sum.Quarantined)
	}
}

// TestTraceName checks that names derived from input files keep what
// distinguishes them (everything but one compression and one format
// suffix).
func TestTraceName(t *testing.T) {
	for in, want := range map[string]string{
		"/data/X-2.1-b1.swf.gz":    "X-2.1-b1",
		"X-2.1-b2.swf.gz":          "X-2.1-b2",
		"ls6-a100.log":             "ls6-a100",
		"out/ls6.parquet":          "ls6",
		"dump.sacct.ZST":           "dump",
		"cluster.2023.csv":         "cluster.2023",
		"plain":                    "plain",
		"my trace.txt":             "my_trace",
		".gz":                      ".gz",
		"archive.tar.gz":           "archive.tar",
		`C:\traces\X-2.1-b1.swf`:   "X-2.1-b1",
		"/traces/CTC-SP2-1996.swf": "CTC-SP2-1996",
	} {
		if got := ingest.TraceName(in); got != want {
			t.Errorf("TraceName(%q) = %q, want %q", in, got, want)
		}
	}
}
