package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const eagleCSV = `job_id,user,account,partition,qos,wallclock_req,nodes_req,processors_req,gpus_req,mem_req,submit_time,start_time,end_time,run_time,state,name,work_dir,submit_line
7,u1,a1,p1,normal,3600.0,1,36,0,0.0,2021-03-01 08:00:00,2021-03-01 08:00:05,2021-03-01 08:30:05,1800.0,COMPLETED,n,w,s
7,u1,a1,p1,normal,3600.0,1,36,0,0.0,2021-03-01 08:00:00,2021-03-01 08:00:06,2021-03-01 08:30:06,1800.0,COMPLETED,n,w,s
8,u1,a1,p1,normal,3600.0,x,36,0,0.0,2021-03-01 08:00:00,2021-03-01 08:00:06,2021-03-01 08:30:06,1800.0,COMPLETED,n,w,s
`

// TestIngest_Columns checks --columns and its config key ingest.columns
// on an Eagle-style CSV: the rows sharing one job ID are two jobs, a bad
// row is quarantined naming its column, and a CSV without a map is
// refused with the map to pass; a bad map is a usage error.
func TestIngest_Columns(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "eagle.csv")
	if err := os.WriteFile(in, []byte(eagleCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "e.parquet")
	_, stderr, code := run(t, "ingest", "--progress", "never", "-o", out, in)
	if code == 0 || !strings.Contains(stderr, "pass --columns eagle") {
		t.Errorf("without --columns: exit %d\n%s", code, stderr)
	}
	cfg := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfg, []byte("ingest:\n  columns: eagle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--columns", "eagle"}, {"--config", cfg}} {
		stdout, stderr, code := run(t, append([]string{"ingest", "--progress", "never", "-o", out, in}, args...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d\n%s", args, code, stderr)
		}
		for _, want := range []string{"ingested 1 input (csv)", "jobs          2", "quarantined   1", "repaired      1", "3 = 2 + 0 + 1: the counts add up", "1 rows repeat the job ID of an earlier row"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%q: summary lacks %q:\n%s", args, want, stdout)
			}
		}
		if q := string(readFile(t, filepath.Join(dir, "e.quarantine.jsonl"))); !strings.Contains(q, `"field":"nodes_req"`) {
			t.Errorf("quarantine: %s", q)
		}
	}
	_, stderr, code = run(t, "ingest", "--progress", "never", "-o", out, in, "--columns", "job_id=Jobid,x=Nodes")
	if code != 3 || !strings.Contains(stderr, `"Nodes" is not a column ingest reads`) {
		t.Errorf("a bad map: exit %d\n%s", code, stderr)
	}
}
