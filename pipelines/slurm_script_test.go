package pipelines

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/internal/golden"
)

// hostile is a directory name with spaces, both quotes, $, a backtick
// command, a glob, a ; and a %; hostileLine one with a newline and a
// carriage return (each would end the sbatch comment and start a command
// of the job), a tab, DEL, a byte that is not UTF-8, unicode and ANSI-C
// quoting of its own. Every path of a job script has both (the trace's a
// backslash too; logPaths covers one in the output directory, where
// sbatch replaces no %), and every other field a newline and a command.
const (
	hostile     = "o u't \"q\" $HOME `touch pwned` *;x %j"
	hostileLine = "-l\n touch pwned #\r\t\x7f\xff \u00fc\u20ac $'x'"
)

func hostileJob(dir string) jobScript {
	root := filepath.Join(dir, hostile, hostileLine)
	stage := "train-xgboost-interrupt\n touch pwned #"
	return jobScript{
		Study: "small\n$(touch pwned) #", Stage: stage, Key: "01234567\n touch pwned #89abcdef0123456789abcdef",
		Binary:  filepath.Join(root, "bin", "mirage"),
		StudyAt: filepath.Join(root, "out", "slurm", "study-00.yaml"),
		Trace:   filepath.Join(root, "t $(x)\\n.parquet"),
		Out:     filepath.Join(root, "out"),
		Version: "--force=evaluate 'x'\n$(touch pwned)", Workers: 2, Force: true,
		ExitAt: filepath.Join(root, "out", "slurm", "train-xgboost-interrupt"),
		Sbatch: sbatchArgs(&Study{Name: "small\n$(touch pwned) #", Device: "cuda", Slurm: &SlurmSpec{
			Partition: "gpu a100\n touch pwned #", Account: "proj'1\r\ntouch pwned #", CPUs: 2, GPUs: 4,
			Time:      SlurmTimes{Train: Duration(26*time.Hour + 30*time.Second + time.Millisecond)},
			ExtraArgs: []string{"--qos=long", "--comment=a $b `c`\n touch pwned #"},
		}}, stage, logPattern(filepath.Join(root, "out", "slurm"), "train-xgboost-interrupt"), []string{"12", "13"}),
	}
}

func mustRender(t *testing.T, j jobScript) string {
	t.Helper()
	text, err := j.render()
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(text, "\n"); n != scriptLines || !strings.HasSuffix(text, "\n") || strings.ContainsAny(text, "\r\x00") {
		t.Fatalf("script of %d lines (want %d), or a CR or NUL in it:\n%s", n, scriptLines, text)
	}
	checkScript(t, j, text)
	return text
}

// TestJobScript_Golden: the batch script of a training stage with a
// hostile value in every field, every slurm field set and two
// dependencies.
func TestJobScript_Golden(t *testing.T) {
	golden.Check(t, "testdata/slurm/train-hostile.sh.golden", []byte(mustRender(t, hostileJob("/scratch"))))
}

// fakeRecorder writes an executable sh script at path that writes its
// arguments, each ended by a NUL, to argsAt and exits with code.
func fakeRecorder(t *testing.T, path, argsAt string, code int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	text := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done >" + shellQuote(argsAt) + "\nexit " + strconv.Itoa(code) + "\n"
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

// recorded reads what a fakeRecorder wrote.
func recorded(t *testing.T, argsAt string) []string {
	t.Helper()
	b := readTestFile(t, argsAt)
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// noPwned fails the test when a file named pwned exists under any of
// dirs: a value ran as a command.
func noPwned(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && e.Name() == "pwned" {
				t.Errorf("a value ran as a command: %s exists", p)
			}
			return nil
		})
	}
}

// TestJobScript_RoundTrip checks the hostile script with bash -n, then
// runs it with bash, its mirage a fake that writes the arguments it got:
// they are the values as given, and the exit status file gets the fake's
// status. The sbatch comment, run as a command with a fake sbatch first
// on PATH, gives sbatch the arguments as given. Nothing the values hold
// is run or expanded.
func TestJobScript_RoundTrip(t *testing.T) {
	dir := t.TempDir()
	j := hostileJob(dir)
	if err := os.MkdirAll(filepath.Dir(j.ExitAt), 0o755); err != nil {
		t.Fatal(err)
	}
	argsAt := filepath.Join(dir, "args")
	fakeRecorder(t, j.Binary, argsAt, 7)
	script := filepath.Join(dir, "job.sh")
	text := mustRender(t, j)
	if err := os.WriteFile(script, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("bash", "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v: %s", err, out)
	}
	cmd := exec.Command("bash", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SLURM_JOB_ID=42")
	if out, err := cmd.CombinedOutput(); err == nil || cmd.ProcessState.ExitCode() != 7 {
		t.Fatalf("script: %v, want exit 7: %s", err, out)
	}
	if got, want := recorded(t, argsAt), j.args()[1:]; !slices.Equal(got, want) {
		t.Errorf("arguments\ngot  %q\nwant %q", got, want)
	}
	if b := readTestFile(t, j.ExitAt+".42.exit"); string(b) != "7\n" {
		t.Errorf("exit file %q, want 7", b)
	}

	comment := strings.Split(text, "\n")[3]
	line, ok := strings.CutPrefix(comment, "#   sbatch ")
	if !ok {
		t.Fatalf("line 4 %q: want the sbatch comment", comment)
	}
	bin := filepath.Join(dir, "fake bin")
	sbatchAt := filepath.Join(dir, "sbatch args")
	fakeRecorder(t, filepath.Join(bin, "sbatch"), sbatchAt, 0)
	cmd = exec.Command("bash", "-c", "sbatch "+line)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the sbatch comment as a command: %v: %s", err, out)
	}
	if got, want := recorded(t, sbatchAt), append(slices.Clone(j.Sbatch), "THIS-SCRIPT"); !slices.Equal(got, want) {
		t.Errorf("the sbatch comment's arguments\ngot  %q\nwant %q", got, want)
	}
	noPwned(t, dir)
}

// TestJobScript_Refused: a NUL in any value, and a stage or study copy
// that mirage would read as an option, are refused, naming the field.
func TestJobScript_Refused(t *testing.T) {
	base := jobScript{Study: "s", Stage: "evaluate", Binary: "/b/mirage", StudyAt: "/o/s.yaml", Out: "/o", Version: "v", ExitAt: "/o/slurm/evaluate"}
	for _, tt := range []struct {
		name, want string
		mutate     func(*jobScript)
	}{
		{"StudyNUL", "study name", func(j *jobScript) { j.Study = "s\x00x" }},
		{"StageNUL", "stage", func(j *jobScript) { j.Stage = "evaluate\x00" }},
		{"KeyNUL", "key", func(j *jobScript) { j.Key = "\x00" }},
		{"BinaryNUL", "binary", func(j *jobScript) { j.Binary = "/b\x00/mirage" }},
		{"StudyAtNUL", "study copy", func(j *jobScript) { j.StudyAt = "/o\x00" }},
		{"TraceNUL", "trace", func(j *jobScript) { j.Trace = "/t\x00" }},
		{"OutNUL", "output directory", func(j *jobScript) { j.Out = "/o\x00" }},
		{"VersionNUL", "version", func(j *jobScript) { j.Version = arrayTask }},
		{"ExitNUL", "exit status path", func(j *jobScript) { j.ExitAt = "/e\x00" }},
		{"SbatchNUL", "sbatch argument 2", func(j *jobScript) { j.Sbatch = []string{"--parsable", "--account=a\x00"} }},
		{"StageOption", "stage", func(j *jobScript) { j.Stage = "--force" }},
		{"StudyOption", "study copy", func(j *jobScript) { j.StudyAt = "-o" }},
	} {
		j := base
		tt.mutate(&j)
		if _, err := j.render(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one naming %s", tt.name, err, tt.want)
		}
	}
	if _, err := base.render(); err != nil {
		t.Errorf("plain script: %v", err)
	}
}

func TestShellQuote(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain/path-1.2_x", "plain/path-1.2_x"},
		{"", "''"},
		{"a b", "'a b'"},
		{"it's", `'it'\''s'`},
		{"$x`y`", "'$x`y`'"},
		{"a\nb", `$'a\x0ab'`},
		{"it's\r", `$'it\'s\x0d'`},
		{`back\slash` + "\t", `$'back\\slash\x09'`},
		{"\xff\u00fc\x7f", "$'\\xff\u00fc\\x7f'"},
		{"\u00fc", "'\u00fc'"},
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
	if got := mustRender(t, j); !strings.Contains(got, ` --shards 3 --shard "$SLURM_ARRAY_TASK_ID"`+"\n") {
		t.Errorf("array task script:\n%s", got)
	}
	j.Merge = true
	if got := mustRender(t, j); !strings.Contains(got, " --shards 3 --merge\n") {
		t.Errorf("merge script:\n%s", got)
	}
}
