package pipelines_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/pipelines"
)

// recorder is an sh script that writes its arguments, each ended by a
// NUL, to the file the shell expression at gives, and prints what the
// expression say gives.
func recorder(t *testing.T, path, at, say string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	text := "#!/bin/sh\nat=" + at + "\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done >\"$at\"\n" + say + "\n"
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

func argsIn(t *testing.T, path string) []string {
	t.Helper()
	return strings.Split(strings.TrimSuffix(string(readFile(t, path)), "\x00"), "\x00")
}

// TestSlurmExecutor_HostileValues: a study with a hostile value in every
// field that reaches sbatch or a batch script (name, partition, account,
// extra_args), its output directory and trace under a directory of
// spaces, quotes, $, backticks, ;, %, a tab, unicode and a leading -, and
// a version with a newline, submitted through the real ExecCommand to a
// fake sbatch first on PATH that records its arguments. Each script
// passes bash -n; its sbatch comment, run as a command, makes the call
// that was made; run by bash with a fake mirage, it passes every value
// through as it is and writes its exit status. Nothing the values hold
// runs.
func TestSlurmExecutor_HostileValues(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "o u't \"q\" $HOME `touch pwned` *;x %j\t\u00fc\u20ac", "-l $(touch pwned)")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	tr := smallTrace(t, root)
	out := filepath.Join(root, "out")
	bin, calls := filepath.Join(dir, "bin"), filepath.Join(dir, "calls")
	if err := os.MkdirAll(calls, 0o755); err != nil {
		t.Fatal(err)
	}
	recorder(t, filepath.Join(bin, "sbatch"), shq(calls)+"/$(($(ls "+shq(calls)+" | wc -l) + 1))", "ls "+shq(calls)+" | wc -l")
	mirageArgs := filepath.Join(dir, "mirage args")
	binary := filepath.Join(root, "bin dir", "mirage")
	recorder(t, binary, shq(mirageArgs), "exit 0")
	commentBin, commentArgs := filepath.Join(dir, "comment bin"), filepath.Join(dir, "comment args")
	recorder(t, filepath.Join(commentBin, "sbatch"), shq(commentArgs), "exit 0")
	path := os.Getenv("PATH")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+path)

	s := smallStudy(2)
	s.Name = "s'\"$(touch${IFS}pwned)`touch${IFS}pwned`;|&<>%j~*?[\u00fc"
	s.Slurm = &pipelines.SlurmSpec{Partition: "-gpu a100 \u00fc", Account: "proj'1 $(touch pwned) `touch pwned`; touch pwned #\t%j",
		CPUs: 1, Shards: 2, ExtraArgs: []string{"--comment=a $b `touch pwned`; touch pwned # 'q' \"d\" \\ %j", "--qos=-x"}}
	version := "v1 'x'\n$(touch pwned) -x\t"
	slurm, err := pipelines.NewSlurmExecutor(binary, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipelines.Run(context.Background(), s, pipelines.RunOptions{Trace: tr, Out: out, Version: version, Workers: 1, Executor: slurm})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(calls)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 7 || len(res) != 5 { // two sharded stages: an array and a merge job each
		t.Fatalf("%d sbatch calls for %d stages, want 7 for 5", len(entries), len(res))
	}
	studies, _ := filepath.Glob(filepath.Join(out, "slurm", "study-*.yaml"))
	if len(studies) != 1 {
		t.Fatalf("study copies %q, want one", studies)
	}
	for n := 1; n <= len(entries); n++ {
		id := strconv.Itoa(n)
		sb := argsIn(t, filepath.Join(calls, id))
		script := sb[len(sb)-1]
		name := strings.TrimSuffix(filepath.Base(script), ".sh")
		stage := strings.TrimSuffix(name, "-shards")
		for _, a := range []string{"--job-name=mirage-" + s.Name + "-" + stage, "--partition=" + s.Slurm.Partition,
			"--account=" + s.Slurm.Account, s.Slurm.ExtraArgs[0], s.Slurm.ExtraArgs[1]} {
			if !slices.Contains(sb, a) {
				t.Errorf("sbatch %d: no argument %q in %q", n, a, sb)
			}
		}
		if b, err := exec.Command("bash", "-n", script).CombinedOutput(); err != nil {
			t.Fatalf("bash -n %s: %v: %s", script, err, b)
		}
		text := string(readFile(t, script))
		lines := strings.Split(text, "\n")
		line, ok := strings.CutPrefix(lines[3], "#   sbatch ")
		if !ok || len(lines) != 12 {
			t.Fatalf("%s: %d lines, line 4 %q: want 11 and the sbatch comment", script, len(lines)-1, lines[3])
		}
		cmd := exec.Command("bash", "-c", "sbatch "+line)
		cmd.Env = append(os.Environ(), "PATH="+commentBin+string(os.PathListSeparator)+path)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: the sbatch comment as a command: %v: %s", name, err, b)
		}
		if got, want := argsIn(t, commentArgs), append(slices.Clone(sb[:len(sb)-1]), "THIS-SCRIPT"); !slices.Equal(got, want) {
			t.Errorf("%s: the sbatch comment says\n%q\nsbatch got\n%q", name, got, want)
		}

		cmd = exec.Command("bash", script)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "SLURM_JOB_ID="+id, "SLURM_ARRAY_TASK_ID=1")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", script, err, b)
		}
		got := argsIn(t, mirageArgs)
		want := []string{"pipeline", "run-stage", stage, studies[0], "-o", out, "--key-version", version, "--trace", tr, "--workers", "1"}
		if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
			t.Errorf("%s: mirage got\n%q\nwant it to start\n%q", name, got, want)
		}
		if b := readFile(t, filepath.Join(out, "slurm", name+"."+id+".exit")); string(b) != "0\n" {
			t.Errorf("%s: exit status file %q", name, b)
		}
	}
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && e.Name() == "pwned" {
			t.Errorf("a value ran as a command: %s exists", p)
		}
		return nil
	})
	if _, err := os.Stat("pwned"); err == nil {
		t.Error("a value ran as a command: ./pwned exists")
	}
}
