package ingest_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/trace"
)

// TestParseColumnMap checks the built-in maps, FROM=TO pairs and the
// refusals of a bad map.
func TestParseColumnMap(t *testing.T) {
	for _, spec := range []string{"eagle", "EAGLE", "pm100", "job_id=JobID,submit_time=Submit", " id = jobid , t=TimelimitSec "} {
		m, err := ingest.ParseColumnMap(spec)
		if err != nil || m.IsZero() {
			t.Errorf("ParseColumnMap(%q) = %v, %v", spec, m, err)
		}
	}
	if m, _ := ingest.ParseColumnMap("Eagle"); m.String() != "eagle" || m.Builtin() != "eagle" {
		t.Errorf("the eagle map is %q (builtin %q)", m.String(), m.Builtin())
	}
	if m, _ := ingest.ParseColumnMap("id=JobID,t=Submit"); m.String() != "id=JobID,t=Submit" {
		t.Errorf("custom map string %q", m.String())
	}
	if m, err := ingest.ParseColumnMap(""); err != nil || !m.IsZero() {
		t.Errorf(`ParseColumnMap("") = %v, %v; want the zero map`, m, err)
	}
	for spec, want := range map[string]string{
		"eagel":                   "not a built-in map (eagle, pm100)",
		"id=JobId,x=Nodes":        `"Nodes" is not a column ingest reads`,
		"id=JobID,ID=Submit":      `names the source column "ID" twice`,
		"a=JobID,b=jobid":         `maps both "a" and "b" to jobid`,
		"id=JobID,submit_time":    `"submit_time" is not FROM=TO`,
		"id=JobID,=Submit":        `"=Submit" is not FROM=TO`,
		"id=JobID,submit_time= ":  `is not FROM=TO`,
		"id=JobID,wall=Timelimit": "",
	} {
		_, err := ingest.ParseColumnMap(spec)
		if want == "" {
			if err != nil {
				t.Errorf("ParseColumnMap(%q): %v", spec, err)
			}
			continue
		}
		if !errors.Is(err, ingest.ErrBadOption) || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseColumnMap(%q) = %v, want ErrBadOption with %q", spec, err, want)
		}
	}
}

func mustMap(tb testing.TB, spec string) ingest.ColumnMap {
	tb.Helper()
	m, err := ingest.ParseColumnMap(spec)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// TestRun_EagleCSV checks an NREL-Eagle-style CSV read through the
// built-in map: quoted fields with commas and quotes, float seconds,
// an empty start, and rows sharing one job ID (array tasks without an
// index) kept as distinct jobs, the counts adding up.
func TestRun_EagleCSV(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "e.parquet")
	denver, err := time.LoadLocation("America/Denver")
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join("testdata", "csv", "eagle.txt")
	sum, err := ingest.Run(t.Context(), []string{in}, out, ingest.Options{Columns: mustMap(t, "eagle"), Location: denver})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Format != "csv" || sum.RowsRead != 6 || sum.Jobs != 6 || sum.Quarantined != 0 || sum.Duplicates != 0 || !sum.Balanced || sum.Repaired != 2 {
		t.Fatalf("summary %+v", sum)
	}
	if n := sum.Inputs[0].Notes; len(n) != 1 || !strings.Contains(n[0], "2 rows repeat the job ID of an earlier row (the first at line 6)") {
		t.Errorf("notes %q", n)
	}
	jobs := mustReadAll(t, out)
	byID := map[string]trace.Job{}
	for _, j := range jobs {
		if _, dup := byID[j.JobID]; dup {
			t.Fatalf("job ID %s twice", j.JobID)
		}
		byID[j.JobID] = j
	}
	for _, id := range []string{"100", "101", "102", "103", "103_1", "103_2"} {
		if _, ok := byID[id]; !ok {
			t.Errorf("no job %s in %v", id, jobs)
		}
	}
	j := byID["100"]
	if j.TimelimitSec != 172800 || j.NNodes != 2 || j.NCPUs != 72 || j.User != "user01" || j.Account != "acct01" ||
		j.Partition != "part01" || j.QOS != "normal" || j.JobName != "job-a" || j.State != trace.StateCompleted {
		t.Errorf("job 100: %+v", j)
	}
	if want := time.Date(2021, 3, 1, 15, 0, 0, 0, time.UTC); !j.Submit.Equal(want) { // 08:00 MST
		t.Errorf("job 100 submitted %s, want %s", j.Submit, want)
	}
	if j := byID["101"]; j.JobName != "name, with comma" || j.NGPUs != 2 || j.State != trace.StateTimeout {
		t.Errorf("job 101: %+v", j)
	}
	if j := byID["102"]; !j.NeverStarted() {
		t.Errorf("job 102 has a start: %+v", j)
	}
	if j := byID["103_2"]; j.ArrayJobID != 103 || j.ArrayTaskID != 2 || j.Repair != ingest.RepairArrayTaskNumbered || j.SourceLine != 7 {
		t.Errorf("job 103_2: %+v", j)
	}
	if j := byID["103"]; j.Repair != "" || j.ArrayJobID != 0 {
		t.Errorf("job 103: %+v", j)
	}
}

// TestRun_PM100CSV checks the pm100 map: minutes, INFINITE, UIDs,
// allocated counts.
func TestRun_PM100CSV(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.parquet")
	sum, err := ingest.Run(t.Context(), []string{filepath.Join("testdata", "csv", "pm100.txt")}, out, ingest.Options{Columns: mustMap(t, "pm100")})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Jobs != 3 || !sum.Balanced {
		t.Fatalf("summary %+v", sum)
	}
	jobs := mustReadAll(t, out)
	if j := jobs[0]; j.JobID != "5001" || j.UID != 17 || j.GID != 3 || j.TimelimitSec != 7200 || j.NNodes != 2 || j.NCPUs != 64 || j.NGPUs != 8 || j.Priority != 1000 {
		t.Errorf("job 5001: %+v", j)
	}
	if j := jobs[2]; j.TimelimitSec != trace.NoLimit || j.Reason != "Priority" || !j.NeverStarted() || j.NNodes != 1 {
		t.Errorf("job 5003: %+v", j)
	}
}

// TestRun_CSVRefusals checks that a CSV needs a map (or sacct names),
// that a custom map naming a missing column is refused before any row,
// and that bad rows are quarantined with the field as the header names
// it.
func TestRun_CSVRefusals(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o.parquet")
	in := filepath.Join("testdata", "csv", "eagle.txt")
	if _, err := ingest.Run(t.Context(), []string{in}, out, ingest.Options{}); !errors.Is(err, ingest.ErrUnknownFormat) || !strings.Contains(err.Error(), "--columns eagle") {
		t.Errorf("without a map: %v", err)
	}
	_, err := ingest.Run(t.Context(), []string{in}, out, ingest.Options{Columns: mustMap(t, "job_id=JobID,submit=Submit")})
	if !errors.Is(err, ingest.ErrMissingColumn) || !strings.Contains(err.Error(), `["submit"]`) {
		t.Errorf("a map naming a missing column: %v", err)
	}
	assertNoOutput(t, dir, in)
	// sacct names in a CSV: --format csv, no map.
	csv := writeFile(t, dir, "s.csv", []byte("JobID,Submit,Start,End,NNodes\n1,2022-01-01T00:00:00,2022-01-01T00:01:00,2022-01-01T00:02:00,2\n"+
		"2,2022-01-01T00:00:00,2022-01-01T00:01:00,2022-01-01T00:02:00,2.5\n"+
		"3,2022-01-01T00:00:00,\"2022-01-01T00:01:00,2022-01-01T00:02:00,2\n"+
		"4,2022-01-01T00:00:00,2022-01-01T00:01:00,2022-01-01T00:02:00,2\n"+
		"4,2022-01-01T00:00:00,2022-01-01T00:01:00,2022-01-01T00:02:00,2\n"))
	sum, err := ingest.Run(t.Context(), []string{csv}, out, ingest.Options{Format: ingest.FormatCSV})
	if err != nil {
		t.Fatal(err)
	}
	// Without a map a repeated ID is a duplicate, as in sacct.
	if sum.Jobs != 2 || sum.Quarantined != 3 || sum.Duplicates != 1 || !sum.Balanced {
		t.Fatalf("summary %+v", sum)
	}
	q := readQuarantine(t, filepath.Join(dir, "o.quarantine.jsonl"))
	var reasons []string
	for _, r := range q {
		reasons = append(reasons, r.Field+": "+r.Reason)
	}
	all := strings.Join(reasons, "\n")
	for _, want := range []string{`NNodes: invalid number: "2.5"`, "bad CSV quoting: field 3 has an opening quote without its closing one", "duplicate job"} {
		if !strings.Contains(all, want) {
			t.Errorf("quarantine reasons\n%s\nwant %q", all, want)
		}
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
}

// TestCurrent checks ingest.Current: the same input with the options
// given is current; another input, another option or no output is not.
func TestCurrent(t *testing.T) {
	dir := t.TempDir()
	swf := "1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n2 50 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"
	in := writeFile(t, dir, "t.swf", []byte(swf))
	out := filepath.Join(dir, "t.parquet")
	start := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	if ok, why, err := ingest.Current([]string{in}, out, ingest.Given{}); ok || why != "" || err != nil {
		t.Fatalf("no output: %v %q %v", ok, why, err)
	}
	if _, err := ingest.Run(t.Context(), []string{in}, out, ingest.Options{StartTime: start, CoresPerNode: 2}); err != nil {
		t.Fatal(err)
	}
	rec, err := ingest.ReadRecord(out)
	if err != nil || rec.StartTime != "2001-02-03T04:05:06Z" || rec.CoresPerNode != 2 || len(rec.Inputs) != 1 {
		t.Fatalf("record %+v, %v", rec, err)
	}
	chicago, _ := time.LoadLocation("America/Chicago")
	cluster, other := "", "x"
	for _, g := range []ingest.Given{{}, {StartTime: start}, {CoresPerNode: 2, Format: ingest.FormatSWF},
		{Location: chicago}, // SWF times are zone-free
		{Cluster: &cluster}} {
		if ok, why, err := ingest.Current([]string{in}, out, g); !ok || err != nil {
			t.Errorf("given %+v: not current: %s %v", g, why, err)
		}
	}
	for g, want := range map[*ingest.Given]string{
		{StartTime: start.Add(time.Hour)}: "--start-time 2001-02-03T04:05:06Z (given 2001-02-03T05:05:06Z)",
		{CoresPerNode: 4}:                 "--cores-per-node 2 (given 4)",
		{Format: ingest.FormatSacct}:      "format swf (given --format sacct)",
		{Cluster: &other}:                 `--cluster none (given "x")`,
		{Columns: mustMap(t, "eagle")}:    "--columns none (given eagle)",
	} {
		if ok, why, _ := ingest.Current([]string{in}, out, *g); ok || !strings.Contains(why, want) {
			t.Errorf("given %+v: current %v, %q; want %q", *g, ok, why, want)
		}
	}
	writeFile(t, dir, "t.swf", []byte(swf+"3 60 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"))
	if ok, why, _ := ingest.Current([]string{in}, out, ingest.Given{}); ok || !strings.Contains(why, "was ingested from another") {
		t.Errorf("a changed input: current %v, %q", ok, why)
	}
	// A trace made before options were recorded has the same bytes: no
	// option key when none was given.
	out2 := filepath.Join(dir, "t2.parquet")
	if _, err := ingest.Run(t.Context(), []string{in}, out2, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := trace.Open(out2)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	v, _ := r.Metadata(ingest.MetaIngest)
	if strings.Contains(v, "start_time") || strings.Contains(v, "cores_per_node") || strings.Contains(v, "columns") {
		t.Errorf("metadata of an ingest without options: %s", v)
	}
}
