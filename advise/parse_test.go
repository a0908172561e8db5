package advise

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

	"github.com/mirage-hpc/mirage/internal/golden"
	"github.com/mirage-hpc/mirage/internal/testenv"
)

// goldenJobs renders jobs as indented JSON for a golden file.
func goldenJobs(t *testing.T, jobs []Job) []byte {
	t.Helper()
	b, err := json.MarshalIndent(jobs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestParseSqueueJSON_Golden parses real `squeue --json` captures of the
// local Slurm 22.05.8 (scripts/slurm-local.sh; hostile names, an array,
// a dependency, held and begin-time jobs, completed jobs).
func TestParseSqueueJSON_Golden(t *testing.T) {
	for _, name := range []string{"squeue-22.05.8-a.json", "squeue-22.05.8-b.json"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			jobs, err := ParseSqueueJSON(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", strings.TrimSuffix(name, ".json")+".golden.json"), goldenJobs(t, jobs))
		})
	}
}

// TestParseSqueueJSON_V40 reads the v0.0.40 shapes (numbers as
// {"set","infinite","number"}, states as lists).
func TestParseSqueueJSON_V40(t *testing.T) {
	in := `{"jobs":[{"job_id":{"set":true,"infinite":false,"number":7},"array_job_id":{"set":true,"number":0},
	"array_task_id":{"set":false,"number":0},"name":"a | b","user_name":"u","partition":"p","job_state":["PENDING"],
	"state_reason":"Priority","submit_time":{"set":true,"number":100},"eligible_time":{"set":true,"number":110},
	"start_time":{"set":true,"number":900},"time_limit":{"set":false,"infinite":true,"number":0},
	"node_count":{"set":true,"number":3}}]}`
	jobs, err := ParseSqueueJSON(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := Job{ID: "7", Raw: 7, Name: "a | b", User: "u", Partition: "p", State: JobPending, Reason: "Priority",
		Nodes: 3, Submit: 100, Eligible: 110}
	if len(jobs) != 1 || jobs[0] != want {
		t.Fatalf("got %+v, want %+v", jobs, want)
	}
}

func TestParseSqueueJSON_Errors(t *testing.T) {
	for name, in := range map[string]string{
		"ErrNotJSON": "JOBID PARTITION\n", "ErrNoJobs": `{"meta":{}}`, "ErrBadNumber": `{"jobs":[{"job_id":"x"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseSqueueJSON(strings.NewReader(in)); !errors.Is(err, ErrFormat) {
				t.Fatalf("err = %v, want ErrFormat", err)
			}
		})
	}
}

// TestParseSqueueFormat_Golden parses a real capture of the fallback
// format (a name with '|', a tab, quotes and $(...)).
func TestParseSqueueFormat_Golden(t *testing.T) {
	b, err := os.ReadFile("testdata/squeue-format-22.05.8.txt")
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := ParseSqueueFormat(bytes.NewReader(b), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/squeue-format-22.05.8.golden.json", goldenJobs(t, jobs))
}

func TestParseSqueueFormat_Errors(t *testing.T) {
	tests := []struct {
		name, in string
		line     int
		field    string
	}{
		{"ErrFields", "1|1|u|p|PENDING\n", 1, "line"},
		{"ErrRawID", "\n1|x|u|p|PENDING|None|N/A|1:00|1|0|N/A|n\n", 2, "raw job id"},
		{"ErrTime", "1|1|u|p|PENDING|None|yesterday|1:00|1|0|N/A|n\n", 1, "submit"},
		{"ErrLimit", "1|1|u|p|PENDING|None|N/A|1:xx|1|0|N/A|n\n", 1, "time limit"},
		{"ErrNodes", "1|1|u|p|PENDING|None|N/A|1:00|one|0|N/A|n\n", 1, "nodes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSqueueFormat(strings.NewReader(tt.in), nil)
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Line != tt.line || fe.Field != tt.field || !errors.Is(err, ErrFormat) {
				t.Fatalf("err = %v, want line %d field %q wrapping ErrFormat", err, tt.line, tt.field)
			}
		})
	}
}

// TestParseSacct_Golden reads real sacct --parsable2 captures through
// ingest's reader.
func TestParseSacct_Golden(t *testing.T) {
	for _, name := range []string{"sacct-p2-22.05.8.txt"} {
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			jobs, bad, err := ParseSacct(context.Background(), f, time.UTC)
			if err != nil || bad != 0 {
				t.Fatalf("bad rows %d, err %v", bad, err)
			}
			golden.Check(t, filepath.Join("testdata", strings.TrimSuffix(name, ".txt")+".golden.json"), goldenJobs(t, jobs))
		})
	}
}

func TestParseSacct_Empty(t *testing.T) {
	jobs, bad, err := ParseSacct(context.Background(), strings.NewReader(""), nil)
	if err != nil || bad != 0 || jobs != nil {
		t.Fatalf("got %v, %d, %v; want no jobs and no error (a cluster without accounting)", jobs, bad, err)
	}
}

// TestQueueStateCapture reads the jobs of the shared capture
// ../shared/slurm/queue_state_outputs.txt (squeue -h -o with 14 fields: a
// held job with an UNLIMITED limit and N/A start, a running one with
// 30:00), rearranged into SqueueFormat's order, and checks the helpers on
// its values.
func TestQueueStateCapture(t *testing.T) {
	b, err := os.ReadFile(testenv.Shared(t, "slurm/queue_state_outputs.txt"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "$ squeue -a -h -o '%i|%P|%j|%u|%a|%T|%r|%V|%S|%l|%C|%m|%Q|%D'\n")
	block, _, _ := strings.Cut(rest, "[rc=")
	if !ok || block == "" {
		t.Fatal("capture: no squeue -h -o block")
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(block), "\n") {
		f := strings.Split(l, "|") // i P j u a T r V S l C m Q D
		lines = append(lines, strings.Join([]string{f[0], f[0], f[3], f[1], f[5], f[6], f[7], f[9], f[13], f[12], f[8], f[2]}, "|"))
	}
	jobs, err := ParseSqueueFormat(strings.NewReader(strings.Join(lines, "\n")), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].ID != "26" || jobs[0].State != JobHeld || jobs[0].LimitSec != 0 ||
		jobs[1].ID != "25" || jobs[1].State != JobRunning || jobs[1].LimitSec != 1800 || jobs[1].Start != jobs[1].Submit || jobs[1].Start == 0 {
		t.Fatalf("capture read as %+v", jobs)
	}
	if got, err := parseSlurmLimit("UNLIMITED"); got != 0 || err != nil {
		t.Errorf("UNLIMITED: %d, %v", got, err)
	}
	for in, want := range map[string]int64{"30:00": 1800, "1-00:00:00": 86400, "2-12": 2*86400 + 12*3600, "90": 5400, "1:02:03": 3723} {
		if got, err := parseSlurmLimit(in); got != want || err != nil {
			t.Errorf("%s: %d, %v; want %d", in, got, err, want)
		}
	}
	if got := ClassifyState("PENDING", "JobHeldUser"); got != JobHeld {
		t.Errorf("held: %v", got)
	}
	if got := ClassifyState("CANCELLED by 0", ""); got != JobEnded {
		t.Errorf("cancelled: %v", got)
	}
	if got, err := parseSlurmTime("N/A", time.UTC); got != 0 || err != nil {
		t.Errorf("N/A: %d, %v", got, err)
	}
}

func TestParseSinfoNodes(t *testing.T) {
	out := []byte("vm|mixed\nvm|mixed\nn2|drained*\nn3|allocated\nn4|down~\n")
	if n, u := ParseSinfoNodes(out); n != 4 || u != 2 {
		t.Fatalf("nodes %d usable %d, want 4 and 2", n, u)
	}
}
