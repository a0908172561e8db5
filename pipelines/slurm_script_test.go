package pipelines

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/internal/golden"
)

// hostile is a directory name with spaces, both quotes, $, a backtick
// command, a glob, a ; and a %: every path of a job script has it (the
// trace's a backslash too; logPaths covers one in the output directory).
const hostile = "o u't \"q\" $HOME `touch pwned` *;x %j"

func hostileJob(dir string) jobScript {
	return jobScript{
		Study: "small", Stage: "train-xgboost-interrupt", Key: "0123456789abcdef0123456789abcdef",
		Binary:  filepath.Join(dir, hostile, "bin", "mirage"),
		StudyAt: filepath.Join(dir, hostile, "out", "slurm", "study-00.yaml"),
		Trace:   filepath.Join(dir, hostile, "t $(x)\\n.parquet"),
		Out:     filepath.Join(dir, hostile, "out"),
		Version: "v1 'x'", Workers: 2, Force: true,
		ExitAt: filepath.Join(dir, hostile, "out", "slurm", "train-xgboost-interrupt"),
		Sbatch: sbatchArgs(&Study{Name: "small", Device: "cuda", Slurm: &SlurmSpec{
			Partition: "gpu a100", Account: "proj'1", CPUs: 2, GPUs: 4,
			Time:      SlurmTimes{Train: Duration(26*time.Hour + 30*time.Second + time.Millisecond)},
			ExtraArgs: []string{"--qos=long", "--comment=a $b `c`"},
		}}, "train-xgboost-interrupt", logPattern(filepath.Join(dir, hostile, "out", "slurm"), "train-xgboost-interrupt"), []string{"12", "13"}),
	}
}

// TestJobScript_Golden: the batch script of a training stage with a
// hostile output directory, every slurm field set and two dependencies.
func TestJobScript_Golden(t *testing.T) {
	golden.Check(t, "testdata/slurm/train-hostile.sh.golden", []byte(hostileJob("/scratch").render()))
}

// TestJobScript_RoundTrip runs the script with bash, its mirage a fake
// that writes the arguments it got: they are the paths as written, and
// the exit status file gets the fake's status. Nothing the names hold is
// run or expanded.
func TestJobScript_RoundTrip(t *testing.T) {
	dir := t.TempDir()
	j := hostileJob(dir)
	for _, d := range []string{filepath.Dir(j.Binary), filepath.Dir(j.ExitAt)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	argsAt := filepath.Join(dir, "args")
	fake := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done >" + shellQuote(argsAt) + "\nexit 7\n"
	if err := os.WriteFile(j.Binary, []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "job.sh")
	if err := os.WriteFile(script, []byte(j.render()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SLURM_JOB_ID=42")
	if out, err := cmd.CombinedOutput(); err == nil || cmd.ProcessState.ExitCode() != 7 {
		t.Fatalf("script: %v, want exit 7: %s", err, out)
	}
	got := strings.Split(strings.TrimSuffix(string(readTestFile(t, argsAt)), "\x00"), "\x00")
	if want := j.args()[1:]; !slices.Equal(got, want) {
		t.Errorf("arguments\ngot  %q\nwant %q", got, want)
	}
	if b := readTestFile(t, j.ExitAt+".42.exit"); string(b) != "7\n" {
		t.Errorf("exit file %q, want 7", b)
	}
	for _, p := range []string{filepath.Join(dir, "pwned"), filepath.Join(j.Out, "pwned")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("a backtick in a name ran: %s exists", p)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain/path-1.2_x", "plain/path-1.2_x"},
		{"", "''"},
		{"a b", "'a b'"},
		{"it's", `'it'\''s'`},
		{"$x`y`", "'$x`y`'"},
	} {
		if got := shellQuote(tt.in); got != tt.want {
			t.Errorf("shellQuote(%q)\ngot  %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

func logPattern(sdir, stage string) string {
	p, _ := logPaths(sdir, stage, "", false)
	return p
}

func TestLogPaths(t *testing.T) {
	for _, tt := range []struct {
		sdir, pattern, path string
		array               bool
	}{
		{"/o%j/slurm", "/o%%j/slurm/logs/st-%j.log", "/o%j/slurm/logs/st-12.log", false},
		{"/o%j/slurm", "/o%%j/slurm/logs/st-%A_%a.log", "/o%j/slurm/logs/st-12_*.log", true},
		{`/o\%j/slurm`, `/o\%j/slurm/logs/st.log`, `/o\%j/slurm/logs/st.log`, false},
	} {
		if p, l := logPaths(tt.sdir, "st", "12", tt.array); p != tt.pattern || l != tt.path {
			t.Errorf("logPaths(%q) = %q, %q; want %q, %q", tt.sdir, p, l, tt.pattern, tt.path)
		}
	}
}

func TestSlurmPattern(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"/o/logs/x-%j.log", "/o/logs/x-%%j.log"},
		{`/o\p/x-%j.log`, `/o\p/x-%j.log`},
	} {
		if got := slurmPattern(tt.in); got != tt.want {
			t.Errorf("slurmPattern(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSlurmTime(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{{90 * time.Second, "0-00:01:30"}, {26*time.Hour + time.Millisecond, "1-02:00:01"}, {48 * time.Hour, "2-00:00:00"}} {
		if got := slurmTime(tt.d); got != tt.want {
			t.Errorf("slurmTime(%v) = %s, want %s", tt.d, got, tt.want)
		}
	}
}

func readTestFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestJobScript_ArrayTask: a shard task's script passes the array index
// unquoted-expanded, the merge job --merge.
func TestJobScript_ArrayTask(t *testing.T) {
	j := jobScript{Study: "s", Stage: "evaluate", Binary: "/b/mirage", StudyAt: "/o/s.yaml", Out: "/o", Version: "v", ExitAt: "/o/slurm/evaluate-shards", Shards: 3}
	if got := j.render(); !strings.Contains(got, ` --shards 3 --shard "$SLURM_ARRAY_TASK_ID"`+"\n") {
		t.Errorf("array task script:\n%s", got)
	}
	j.Merge = true
	if got := j.render(); !strings.Contains(got, " --shards 3 --merge\n") {
		t.Errorf("merge script:\n%s", got)
	}
}
