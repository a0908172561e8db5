package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/internal/testenv"
)

// run executes the CLI with args and returns stdout, stderr and the exit
// status, as main would.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	g := &globalOptions{stdout: &out, stderr: &errb}
	code := execute(context.Background(), g, args)
	return out.String(), errb.String(), code
}

const sample = `JobID|JobName|User|Partition|State|ExitCode|Submit|Start|End|TimelimitRaw|NNodes
1|a|alice|gpu|COMPLETED|0:0|2022-11-06T00:30:00|2022-11-06T00:31:00|2022-11-06T03:00:00|600|1
1.batch|batch||gpu|COMPLETED|0:0|2022-11-06T00:31:00|2022-11-06T00:31:00|2022-11-06T03:00:00||1
2|b|bob|gpu|CANCELLED by 0|0:0|2022-11-06T00:40:00|None|2022-11-06T00:50:00|UNLIMITED|2
3|c|bob|gpu|NOT_A_STATE|0:0|2022-11-06T00:40:00|None|2022-11-06T00:50:00|10|1
`

func writeSample(t *testing.T) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "in.sacct")
	if err := os.WriteFile(path, []byte(sample), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

func TestIngest_JSONSummary(t *testing.T) {
	dir, in := writeSample(t)
	out := filepath.Join(dir, "out.parquet")
	stdout, stderr, code := run(t, "ingest", "--tz", "America/Chicago", "-o", out, in, "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	var s map[string]any
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	for _, k := range []string{"format", "rows_read", "jobs", "quarantined", "repaired", "steps_folded", "output"} {
		if _, ok := s[k]; !ok {
			t.Errorf("summary lacks %q: %s", k, stdout)
		}
	}
	if s["rows_read"] != 4.0 || s["jobs"] != 2.0 || s["steps_folded"] != 1.0 || s["quarantined"] != 1.0 || s["tz"] != "America/Chicago" {
		t.Errorf("summary = %s", stdout)
	}
	q, err := os.ReadFile(filepath.Join(dir, "out.quarantine.jsonl"))
	if err != nil || !strings.Contains(string(q), `"line":5`) || !strings.Contains(string(q), `"field":"State"`) {
		t.Errorf("quarantine file = %s (%v)", q, err)
	}
}

func TestIngest_StrictExit2(t *testing.T) {
	dir, in := writeSample(t)
	_, stderr, code := run(t, "ingest", "--strict", "-o", filepath.Join(dir, "o.parquet"), in)
	if code != exitBadInput {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitBadInput, stderr)
	}
	if want := in + ":5: State: invalid job state"; !strings.Contains(stderr, want) {
		t.Errorf("stderr = %q, want it to contain %q", stderr, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "o.parquet")); !os.IsNotExist(err) {
		t.Errorf("output written despite --strict failure: %v", err)
	}
}

func TestIngest_Errors(t *testing.T) {
	dir, in := writeSample(t)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	tests := []struct {
		Name string
		Args []string
		Code int
		Msg  string
	}{
		{"NoOutput", []string{"ingest", in}, exitUsage, "-o OUT.parquet is required"},
		{"NoInput", []string{"ingest", "-o", "x.parquet"}, exitUsage, "requires at least 1 arg"},
		{"BadFlag", []string{"ingest", "--bogus"}, exitUsage, "unknown flag"},
		{"BadTZ", []string{"ingest", "--tz", "Mars/Olympus", "-o", filepath.Join(dir, "x.parquet"), in}, exitUsage, "--tz"},
		{"BadFormat", []string{"ingest", "--format", "xml", "-o", filepath.Join(dir, "x.parquet"), in}, exitUsage, "unknown input format"},
		{"Empty", []string{"ingest", "-o", filepath.Join(dir, "x.parquet"), empty}, exitBadInput, "input is empty"},
		{"Missing", []string{"ingest", "-o", filepath.Join(dir, "x.parquet"), filepath.Join(dir, "nope")}, exitFailure, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			_, stderr, code := run(t, tt.Args...)
			if code != tt.Code || !strings.Contains(stderr, tt.Msg) {
				t.Errorf("exit %d, stderr %q\nwant exit %d and %q", code, stderr, tt.Code, tt.Msg)
			}
		})
	}
}

func TestConfig_Precedence(t *testing.T) {
	dir, in := writeSample(t)
	cfgPath := filepath.Join(dir, "mirage.yaml")
	os.WriteFile(cfgPath, []byte("ingest:\n  tz: Europe/Berlin\n  cluster: fromfile\n"), 0o644)
	out := filepath.Join(dir, "o.parquet")
	tz := func(args ...string) string {
		t.Helper()
		stdout, stderr, code := run(t, append([]string{"ingest", "--json", "-o", out, in, "--config", cfgPath}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var s struct {
			TZ string `json:"tz"`
		}
		json.Unmarshal([]byte(stdout), &s)
		return s.TZ
	}
	if got := tz(); got != "Europe/Berlin" {
		t.Errorf("config file: tz = %q", got)
	}
	t.Setenv("MIRAGE_INGEST_TZ", "Asia/Tokyo")
	if got := tz(); got != "Asia/Tokyo" {
		t.Errorf("env over file: tz = %q", got)
	}
	if got := tz("--tz", "America/Chicago"); got != "America/Chicago" {
		t.Errorf("flag over env: tz = %q", got)
	}
}

func TestVersion(t *testing.T) {
	stdout, _, code := run(t, "--version")
	if code != 0 || !strings.HasPrefix(stdout, "mirage ") {
		t.Errorf("--version: exit %d, %q", code, stdout)
	}
}

func TestTraceStats_LS6(t *testing.T) {
	ls6 := testenv.LS6(t)
	out := filepath.Join(t.TempDir(), "ls6.parquet")
	stdout, stderr, code := run(t, "ingest", "--tz", "America/Chicago", "--cluster", "ls6", "-o", out, ls6, "--json")
	if code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	var sum struct {
		Jobs, Repaired, Quarantined int
	}
	json.Unmarshal([]byte(stdout), &sum)
	if sum.Jobs != 24777 || sum.Repaired != 1 || sum.Quarantined != 0 {
		t.Errorf("ingest summary = %s", stdout)
	}
	stdout, stderr, code = run(t, "trace", "stats", out, "--json")
	if code != 0 {
		t.Fatalf("stats: exit %d: %s", code, stderr)
	}
	var st struct {
		Jobs    int `json:"jobs"`
		WaitSec struct {
			P50, P90 float64
		} `json:"wait_sec"`
		TimeoutShare     float64 `json:"timeout_share"`
		CancelledPending int     `json:"cancelled_pending"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatal(err)
	}
	if st.Jobs != 24777 || st.WaitSec.P50 != 25 || st.WaitSec.P90 < 42820 || st.WaitSec.P90 > 42821 {
		t.Errorf("stats = %s", stdout)
	}
	if hit := int(st.TimeoutShare*24777 + 0.5); hit != 3887 {
		t.Errorf("jobs at their limit = %d, want 3887", hit)
	}
}

func TestIngest_DataSamples(t *testing.T) {
	for _, name := range []string{"slurm-22.05-sample.sacct", "synth-500.sacct"} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "o.parquet")
			in := filepath.Join(testenv.Root(), "data", name)
			stdout, stderr, code := run(t, "ingest", "--tz", "America/Chicago", "-o", out, in, "--json")
			var s struct {
				Jobs, Quarantined int
				Balanced          bool
			}
			json.Unmarshal([]byte(stdout), &s)
			if code != 0 || s.Jobs == 0 || s.Quarantined != 0 || !s.Balanced {
				t.Errorf("exit %d, summary %s, stderr %s", code, stdout, stderr)
			}
		})
	}
}

func TestSynth_Deterministic(t *testing.T) {
	dir := t.TempDir()
	var outs [2][]byte
	for i := range outs {
		p := filepath.Join(dir, "s"+string(rune('0'+i))+".sacct")
		if _, stderr, code := run(t, "synth", "--jobs", "300", "--seed", "5", "-o", p); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		outs[i], _ = os.ReadFile(p)
	}
	if len(outs[0]) == 0 || !bytes.Equal(outs[0], outs[1]) {
		t.Error("synth output differs between runs with the same seed")
	}
}

func TestSimReplay_LS6(t *testing.T) {
	ls6 := testenv.LS6(t)
	out := filepath.Join(t.TempDir(), "ls6.parquet")
	if _, stderr, code := run(t, "ingest", "--tz", "America/Chicago", "-o", out, ls6); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	var figures [2]map[string]any
	for i := range figures {
		stdout, stderr, code := run(t, "sim", "replay", "--trace", out, "--partition-nodes", "88", "--json")
		if code != 0 {
			t.Fatalf("replay: exit %d: %s", code, stderr)
		}
		if err := json.Unmarshal([]byte(stdout), &figures[i]); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"jobs", "nodes", "events", "wall_sec", "events_per_sec", "wait_mae_sec",
			"wait_median_abs_err_sec", "wait_spearman", "within_2x"} {
			if _, ok := figures[i][k]; !ok {
				t.Errorf("replay JSON lacks %q", k)
			}
		}
	}
	for _, k := range []string{"jobs", "events", "wait_mae_sec", "wait_median_abs_err_sec", "wait_spearman", "within_2x"} {
		if figures[0][k] != figures[1][k] {
			t.Errorf("%s differs between runs: %v vs %v", k, figures[0][k], figures[1][k])
		}
	}
	if figures[0]["jobs"] != 24777.0 {
		t.Errorf("jobs = %v", figures[0]["jobs"])
	}
}

func TestSimReplay_LS6Profile(t *testing.T) {
	ls6 := testenv.LS6(t)
	out := filepath.Join(t.TempDir(), "ls6.parquet")
	if _, stderr, code := run(t, "ingest", "--tz", "America/Chicago", "-o", out, ls6); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	stdout, stderr, code := run(t, "sim", "replay", "--trace", out, "--profile", "ls6", "--tz", "America/Chicago", "--json")
	if code != 0 {
		t.Fatalf("replay: exit %d: %s", code, stderr)
	}
	var s struct {
		Nodes         int     `json:"nodes"`
		CapacitySteps int     `json:"capacity_steps"`
		Within2x      float64 `json:"within_2x"`
		Spearman      float64 `json:"wait_spearman"`
		Inferred      *struct {
			Jobs int `json:"jobs"`
		} `json:"inferred_dependencies"`
	}
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	if s.Nodes != 80 || s.CapacitySteps == 0 || s.Inferred == nil || s.Inferred.Jobs == 0 {
		t.Errorf("ls6 profile did not turn on its defaults: %s", stdout)
	}
	if s.Within2x < 0.34 || s.Spearman < 0.64 { // causal capacity: 0.344, 0.645
		t.Errorf("ls6 fidelity regressed: within_2x %.3f, spearman %.3f", s.Within2x, s.Spearman)
	}
}
