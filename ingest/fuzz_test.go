package ingest_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/trace"
)

// seedFuzz adds every testdata/<dir>/*.txt fixture to the corpus.
func seedFuzz(f *testing.F, dir string) {
	f.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*.txt"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no seeds in testdata/%s: %v", dir, err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func FuzzSacct(f *testing.F) {
	seedFuzz(f, "sacct")
	seedFuzz(f, "bad")
	f.Add([]byte("JobID|JobIDRaw|State|Submit|Start|End|ElapsedRaw|Timelimit|ReqMem|AllocTRES|NNodes|NCPUS\n" +
		"7_[1-3%2]|7|PENDING|2022-11-06T01:30:00|Unknown|Unknown||1-00:00|4Gn|gres/gpu:a100=2|2|8\n" +
		"12+1|13|COMPLETED|2022-11-06T01:00:00|2022-11-06T01:30:00|2022-11-06T01:20:00|3000|0-02:00|500Mc|gres/gpu=1|1|4\n" +
		"12+1.0|13.0|COMPLETED|||||||||\n"))
	f.Add([]byte("JobID\tCluster\tState\tReason\n1\tls6\tCANCELLED by 5\tx|y\n"))
	// Numbers at and past the limits (these rows were once accepted with
	// overflowed values).
	f.Add([]byte("JobID|Timelimit|ReqMem|AllocTRES|Priority|UID|ElapsedRaw|Submit\n" +
		"1|11574074-00:00:00|4000000000000000000M|gres/gpu=2147483647|999999999999999999|0|0|999999999999\n" +
		"2|999999999999999999|1e300M|gres/gpu=4294967297|1|1|1|0\n" +
		"3|0-5|2Pn|gres/gpu:a=2147483647,gres/gpu:b=1|||1|9999-12-31T23:59:60\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ingest.Detect(data) // must not panic
		checkReader(t, data, ingest.FormatSacct)
	})
}

// FuzzCSV reads comma-separated input through the built-in column maps
// (eagle, pm100), a custom map, and sacct's own names (no map): quoted
// fields, float seconds, repeated job IDs (kept as array tasks through a
// map). Every accepted job must survive the round trip through a
// parsable2 row, and the counts must add up.
func FuzzCSV(f *testing.F) {
	seedFuzz(f, "csv")
	f.Add([]byte("job_id,submit_time,start_time,end_time,nodes_req,wallclock_req\n1,2022-11-06 01:30:00,2022-11-06 01:40:00,2022-11-06 01:50:00,2.0,60.0\n1,2022-11-06 01:30:00,,,\"3\",\n"))
	f.Add([]byte("JobID,JobName,Submit\n1,\"a,\"\"b\"\"\",2022-01-01T00:00:00\n2,\"open,2022-01-01T00:00:00\n3,x\"y,2022-01-01T00:00:00\n"))
	custom, err := ingest.ParseColumnMap("id=JobID,sub=Submit,beg=Start,fin=End,lim=TimelimitSec,gpus=NGPUs,n=ReqNodes")
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte("id,sub,beg,fin,lim,gpus,n\n7,1600000000,1600000060,1600000120,3600.000,1,0\n7,1600000000,1600000060,1600000120,UNLIMITED,0.5,2\n"))
	maps := []ingest.ColumnMap{{}, custom}
	for _, name := range []string{"eagle", "pm100"} {
		m, err := ingest.ParseColumnMap(name)
		if err != nil {
			f.Fatal(err)
		}
		maps = append(maps, m)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, m := range maps {
			checkReaderWith(t, data, ingest.Options{Format: ingest.FormatCSV, Columns: m})
		}
	})
}

func FuzzMirage(f *testing.F) {
	seedFuzz(f, "mirage")
	seedFuzz(f, "bad")
	f.Add([]byte("3\nJobID JobName UID State Submit Start End TimelimitR NNodes ReqMem\n---- ---- ---- ---- ---- ---- ---- ---- ---- ----\n" +
		"1\ta|b\t00001\tPREEMPTED\t2022-11-06T01:10:00\t2022-11-06T01:20:00\t2022-11-06T01:30:00\t30\t2\t4Gn\n" +
		"1\ta|b\t00001\textra\tCOMPLETED\t2022-11-06T01:40:00\t2022-11-06T01:45:00\t2022-11-06T01:50:00\t30\t2\t1T\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ingest.Detect(data)
		checkReader(t, data, ingest.FormatMirage)
	})
}

// checkReader reads data as format and checks the properties every
// input must have: no panic; when Read accepts the input, the counts
// balance; and every accepted job survives a round trip through a
// parsable2 row (fuzzEncode) unchanged, apart from where it came from
// (SourceFile, SourceLine) and the step rows it folded (Steps). Mirage
// jobs are compared without Attempt and Repair, which only the sacct and
// Mirage readers respectively set.
func checkReader(t *testing.T, data []byte, format ingest.Format) {
	checkReaderWith(t, data, ingest.Options{Format: format})
}

// checkReaderWith is checkReader with base's Format and Columns.
func checkReaderWith(t *testing.T, data []byte, base ingest.Options) {
	format := base.Format
	// Local times in a zone with DST exercise the resolution of ambiguous
	// times; only the counts are checked.
	chicago, err := time.LoadLocation("America/Chicago")
	if err != nil {
		t.Fatal(err)
	}
	res, err := ingestBytes(t, data, "fuzz", ingest.Options{Format: format, Columns: base.Columns, Location: chicago, Cluster: "fuzz"})
	if err == nil && !res.Summary.Balanced {
		t.Fatalf("America/Chicago: summary not balanced: %+v", res.Summary)
	}

	opts := ingest.Options{Format: format, Columns: base.Columns, Location: time.UTC, Cluster: "fuzz"}
	res, err = ingestBytes(t, data, "fuzz", opts)
	if err != nil {
		return
	}
	if !res.Summary.Balanced || res.Summary.Jobs != int64(len(res.Jobs)) || res.Summary.Quarantined != int64(len(res.Quarantine)) {
		t.Fatalf("summary does not match: %d jobs, %d quarantined: %+v", len(res.Jobs), len(res.Quarantine), res.Summary)
	}
	for i := range res.Jobs {
		if j := &res.Jobs[i]; j.JobID == "" || j.SourceLine <= 0 || j.SourceFile != "fuzz" || j.Steps < 0 {
			t.Fatalf("job %d: %+v", i, j)
		}
		checkJobText(t, &res.Jobs[i])
	}
	if len(res.Jobs) == 0 {
		return
	}
	enc := fuzzEncode(res.Jobs)
	opts.Format, opts.Columns = ingest.FormatSacct, ingest.ColumnMap{}
	back, err := ingestBytes(t, enc, "roundtrip", opts)
	if err != nil {
		t.Fatalf("re-read: %v\ninput:\n%s", err, enc)
	}
	if len(back.Quarantine) > 0 {
		t.Fatalf("re-read quarantined %+v\ninput:\n%s", back.Quarantine, enc)
	}
	// Repair is not compared: a repaired row re-reads as a clean one.
	ignore := []string{"SourceFile", "SourceLine", "Steps", "Repair"}
	if format == ingest.FormatMirage {
		ignore = append(ignore, "Attempt")
	}
	if diff := cmp.Diff(res.Jobs, back.Jobs, cmpopts.IgnoreFields(trace.Job{}, ignore...)); diff != "" {
		t.Fatalf("round trip mismatch (-read +re-read):\n%s\nre-encoded:\n%s", diff, enc)
	}
}

// fuzzHeader is the fixed header of fuzzEncode's output.
var fuzzHeader = []string{
	"JobID", "JobIDRaw", "Cluster", "Partition", "Account", "User", "UID", "Group", "GID", "JobName", "QOS",
	"State", "ExitCode", "Reason", "Submit", "Eligible", "Start", "End", "Timelimit", "NNodes", "NCPUS",
	"AllocTRES", "ReqMem", "Priority", "TimelimitMin",
}

// fuzzEncode writes jobs as sacct --parsable2 output with fuzzHeader's
// columns, times in UTC. The delimiter is '|', or TAB when a value holds
// a '|' (no value holds both: each came from a row split at one of them).
func fuzzEncode(jobs []trace.Job) []byte {
	sep := "|"
	for i := range jobs {
		j := &jobs[i]
		for _, s := range []string{j.Cluster, j.Partition, j.Account, j.User, j.Group, j.JobName, j.QOS, j.Reason} {
			if strings.Contains(s, "|") {
				sep = "\t"
			}
		}
	}
	var b strings.Builder
	b.WriteString(strings.Join(fuzzHeader, sep) + "\n")
	num := func(n, unknown int64) string {
		if n == unknown {
			return ""
		}
		return strconv.FormatInt(n, 10)
	}
	for i := range jobs {
		j := &jobs[i]
		raw := ""
		if j.JobIDRaw > 0 {
			raw = strconv.FormatInt(j.JobIDRaw, 10)
		}
		state := ""
		if j.State != trace.StateUnknown {
			state = j.State.String()
		}
		if j.CancelledBy != trace.NoID {
			state += " by " + strconv.FormatInt(j.CancelledBy, 10)
		}
		gpus := ""
		if j.NGPUs > 0 {
			gpus = "gres/gpu=" + strconv.Itoa(int(j.NGPUs))
		}
		mem := ""
		if j.ReqMemMB != trace.Unknown {
			mem = strconv.FormatInt(j.ReqMemMB, 10) + "M"
		}
		row := []string{
			j.JobID, raw, j.Cluster, j.Partition, j.Account, j.User, num(j.UID, trace.NoID), j.Group,
			num(j.GID, trace.NoID), j.JobName, j.QOS, state, strconv.Itoa(int(j.ExitCode)) + ":" + strconv.Itoa(int(j.ExitSignal)),
			j.Reason, fuzzTime(j.Submit), fuzzTime(j.Eligible), fuzzTime(j.Start), fuzzTime(j.End),
			fuzzLimit(j.TimelimitSec), strconv.Itoa(int(j.NNodes)), strconv.Itoa(int(j.NCPUs)), gpus, mem,
			num(j.Priority, trace.Unknown), fuzzLimit(max(j.TimeMinSec, 0)),
		}
		b.WriteString(strings.Join(row, sep) + "\n")
	}
	return []byte(b.String())
}

// fuzzTime formats t as sacct does (UTC wall clock), or as epoch seconds
// past year 9999; "Unknown" when zero.
func fuzzTime(t time.Time) string {
	switch {
	case t.IsZero():
		return "Unknown"
	case t.Year() > 9999:
		return strconv.FormatInt(t.Unix(), 10)
	}
	return t.UTC().Format("2006-01-02T15:04:05")
}

// fuzzLimit formats a time limit as D-HH:MM:SS, or UNLIMITED.
func fuzzLimit(sec int64) string {
	if sec == trace.NoLimit {
		return "UNLIMITED"
	}
	d, h, m, s := sec/86400, sec%86400/3600, sec%3600/60, sec%60
	return strconv.FormatInt(d, 10) + "-" + two(h) + ":" + two(m) + ":" + two(s)
}

func two(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

// checkJobText checks what every reader guarantees of an accepted job:
// its strings are valid UTF-8 without control characters (ingest's text
// rule) and its known times lie in the years ingest.MinYear..MaxYear.
func checkJobText(t *testing.T, j *trace.Job) {
	t.Helper()
	for _, s := range []string{j.JobID, j.Cluster, j.Partition, j.Account, j.User, j.Group, j.JobName, j.QOS, j.Reason, j.Repair} {
		if !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) {
			t.Fatalf("job %s at line %d: string %q is not clean text", j.JobID, j.SourceLine, s)
		}
	}
	for _, tm := range []time.Time{j.Submit, j.Eligible, j.Start, j.End} {
		if !tm.IsZero() && (tm.Year() < ingest.MinYear || tm.Year() > ingest.MaxYear) {
			t.Fatalf("job %s at line %d: time %s outside %d-%d", j.JobID, j.SourceLine, tm, ingest.MinYear, ingest.MaxYear)
		}
	}
}
