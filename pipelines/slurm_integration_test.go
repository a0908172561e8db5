package pipelines_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/pipelines"
)

// needLocalSlurm skips the test unless a Slurm answers sinfo and its only
// node is this machine (scripts/slurm-local.sh start), so the jobs see
// t.TempDir(); MIRAGE_SLURM_TEST=1 runs it on any Slurm (TMPDIR must then
// be on a file system the nodes share).
func needLocalSlurm(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no Slurm integration test")
	}
	const hint = "start one with `sudo scripts/slurm-local.sh start` (Debian/Ubuntu) to run this test"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b, err := exec.CommandContext(ctx, "sinfo", "--noheader", "--Node", "--format=%N %T").Output()
	if err != nil {
		var ee *exec.ExitError
		if ctx.Err() != nil {
			err = errors.New("no answer in 5 s")
		} else if errors.As(err, &ee) {
			msg, _, _ := strings.Cut(strings.TrimSpace(string(ee.Stderr)), "\n")
			err = fmt.Errorf("%w: %s", err, msg)
		}
		t.Skipf("no Slurm reachable (sinfo: %v): %s", err, hint)
	}
	if os.Getenv("MIRAGE_SLURM_TEST") == "1" {
		return
	}
	host, _ := os.Hostname()
	host, _, _ = strings.Cut(host, ".")
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], host+" ") {
		t.Skipf("the Slurm sinfo reaches is not a single-node Slurm on this host (%q): set MIRAGE_SLURM_TEST=1 to run on it, or %s", lines, hint)
	}
	if state := strings.Fields(lines[0])[1]; strings.HasPrefix(state, "down") || strings.HasPrefix(state, "drain") {
		t.Skipf("the local Slurm node is %s: %s", state, hint)
	}
}

// TestSlurmExecutor_LocalSlurm runs the small study through the real
// Slurm: every stage a job after the jobs it reads (features-train and
// evaluate a job array of 2 shards, then a merge job), in an output
// directory whose name has spaces, quotes, $, backticks and %. The first
// run's train-estimate job is made to fail (its mirage is a wrapper that
// exits 3 while a marker file exists): the forest and features finish,
// evaluate and report are cancelled, and status shows the failure and
// its log. The rerun submits only train-estimate, evaluate and report.
// Then a local run in the same directory is all cache hits, and a local
// run elsewhere gives the same files (and a Slurm run there submits
// nothing). About 30 s on 2 cores, most of it building mirage.
func TestSlurmExecutor_LocalSlurm(t *testing.T) {
	needLocalSlurm(t)
	root := filepath.Join(t.TempDir(), "o u't \"q\" $HOME `touch pwned` 5%j x")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "mirage")
	build := exec.Command("go", "build", "-o", bin, "github.com/mirage-hpc/mirage/cmd/mirage")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	mark := filepath.Join(root, "fail estimate")
	wrapper := filepath.Join(root, "mirage-wrapper")
	text := "#!/bin/sh\nif [ \"$3\" = train-estimate ] && [ -e " + shq(mark) + " ]; then echo \"forced failure of $3\" >&2; exit 3; fi\nexec " + shq(bin) + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mark, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tr := smallTrace(t, root)
	out := filepath.Join(root, "out")
	slurm, err := pipelines.NewSlurmExecutor(wrapper, nil)
	if err != nil {
		t.Fatal(err)
	}
	study := func() *pipelines.Study {
		s := smallStudy(2)
		s.Slurm = &pipelines.SlurmSpec{CPUs: 1, Shards: 2, Time: pipelines.SlurmTimes{Features: pipelines.Duration(10 * time.Minute)}}
		return s
	}
	ctx := context.Background()
	opts := func(out string, exec pipelines.Executor) pipelines.RunOptions {
		return pipelines.RunOptions{Trace: tr, Out: out, Version: "test", Workers: 1, Executor: exec}
	}
	submit := func() []string {
		t.Helper()
		res, err := pipelines.Run(ctx, study(), opts(out, slurm))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, r := range res {
			if r.Job != nil && !r.Job.Reused {
				names = append(names, r.Name)
			}
		}
		return names
	}
	all := []string{"features-train", "train-forest-interrupt", "train-estimate", "evaluate", "report"}
	if got := submit(); !slices.Equal(got, all) {
		t.Fatalf("first run submitted %v, want %v", got, all)
	}
	first := waitJobs(t, ctx, slurm, study(), opts(out, nil))
	states := map[string]string{}
	for _, r := range first {
		switch {
		case r.Cached:
			states[r.Name] = "cached"
		case r.Job != nil:
			states[r.Name] = r.Job.State
		}
	}
	want := map[string]string{"features-train": "cached", "train-forest-interrupt": "cached", "train-estimate": "FAILED",
		"evaluate": "CANCELLED", "report": "CANCELLED"}
	for k, v := range want {
		if states[k] != v {
			t.Errorf("after the forced failure: %s %q, want %q (all: %v)", k, states[k], v, states)
		}
	}
	if j := first[2].Job; j != nil {
		if j.ExitCode == nil || *j.ExitCode != 3 {
			t.Errorf("failed job's exit code %v, want 3", j.ExitCode)
		}
		if b, err := os.ReadFile(j.Log); err != nil || !strings.Contains(string(b), "forced failure of train-estimate") {
			logs, _ := filepath.Glob(filepath.Join(filepath.Dir(j.Log), "*"))
			t.Errorf("failed job's log %s: %v %q (logs: %q)", j.Log, err, b, logs)
		}
	}

	if err := os.Remove(mark); err != nil {
		t.Fatal(err)
	}
	if got, want := submit(), []string{"train-estimate", "evaluate", "report"}; !slices.Equal(got, want) {
		t.Fatalf("rerun submitted %v, want %v", got, want)
	}
	for _, r := range waitJobs(t, ctx, slurm, study(), opts(out, nil)) {
		if !r.Cached {
			t.Errorf("after the rerun: %s not finished (job %+v)", r.Name, r.Job)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "pwned")); err == nil {
		t.Error("a backtick in the output directory's name ran")
	}

	// Run by Slurm = cache hits for a local run; the same files as a local run.
	res, err := pipelines.Run(ctx, study(), opts(out, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if !r.Cached {
			t.Errorf("local run after Slurm: %s ran", r.Name)
		}
	}
	local := filepath.Join(t.TempDir(), "local")
	lres, err := pipelines.Run(ctx, study(), opts(local, nil))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range lres {
		if r.Key != res[i].Key {
			t.Errorf("%s: key %s locally, %s by Slurm", r.Name, r.Key, res[i].Key)
		}
		if r.Name == "evaluate" || r.Name == "report" { // these name the models by their directories
			for _, f := range []string{"metrics.json", "windows.csv"} {
				a := relocate(t, f, readFile(t, filepath.Join(res[i].Dir, f)), out, local)
				if b := relocate(t, f, readFile(t, filepath.Join(r.Dir, f)), local, local); a != b {
					t.Errorf("%s/%s differs between the Slurm and the local run:\n%s", r.Name, f, firstDiff(a, string(b)))
				}
			}
			continue
		}
		if a, b := outputsOf(t, readFile(t, filepath.Join(res[i].Dir, "meta.json"))), outputsOf(t, readFile(t, filepath.Join(r.Dir, "meta.json"))); a != b {
			t.Errorf("%s: outputs differ:\nslurm %s\nlocal %s", r.Name, a, b)
		}
	}
	again, err := pipelines.Run(ctx, study(), opts(local, slurm))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range again {
		if r.Job != nil || !r.Cached {
			t.Errorf("Slurm run after a local run: %s submitted", r.Name)
		}
	}
}

// waitJobs polls the status of the submitted jobs (at most 100 s) until
// none is pending or running, and returns it.
func waitJobs(t *testing.T, ctx context.Context, slurm *pipelines.SlurmExecutor, s *pipelines.Study, o pipelines.RunOptions) []pipelines.StageResult {
	t.Helper()
	o.DryRun = true
	deadline := time.Now().Add(100 * time.Second)
	for {
		res, err := pipelines.Run(ctx, s, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := slurm.Jobs(ctx, o.Out, res); err != nil {
			t.Fatal(err)
		}
		active := slices.ContainsFunc(res, func(r pipelines.StageResult) bool { return r.Job != nil && r.Job.Active() })
		if !active {
			return res
		}
		if time.Now().After(deadline) {
			b, _ := json.Marshal(res)
			t.Fatalf("jobs still queued or running after 100 s: %s", b)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// relocate replaces the directory from by to in the text of file name:
// in a .csv in each field (rewritten as CSV), else as JSON writes it.
func relocate(t *testing.T, name string, text []byte, from, to string) string {
	t.Helper()
	if !strings.HasSuffix(name, ".csv") {
		jf, _ := json.Marshal(from)
		jt, _ := json.Marshal(to)
		return strings.ReplaceAll(string(text), strings.Trim(string(jf), `"`), strings.Trim(string(jt), `"`))
	}
	r := csv.NewReader(strings.NewReader(string(text)))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, row := range rows {
		for i := range row {
			row[i] = strings.ReplaceAll(row[i], from, to)
		}
	}
	var b strings.Builder
	if err := csv.NewWriter(&b).WriteAll(rows); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// shq single-quotes s for sh.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// firstDiff returns the first line where a and b differ.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return "slurm " + la[i] + "\nlocal " + lb[i]
		}
	}
	return "lengths differ"
}

// TestSlurmExecutor_LocalSlurmInjection reproduces, on the real Slurm, the
// injection a line break in a value once made (the rest of the value ran
// inside the job): mirage pipeline run -o $'out\ntouch PWNED #'
// --executor slurm, and a study whose slurm.account holds
// "\ntouch PWNED #", are refused (exit 3) before anything is submitted;
// so is the same output directory through the API. Then a run whose
// values hold no line break but every other hostile character (the study
// name, account and a --comment with $(...), backticks, ; and #; a
// version with a newline, which only the job's command line carries) has
// its jobs complete on Slurm, its mirage (a fake that records its
// arguments) getting the version as it is; and no job created PWNED.
func TestSlurmExecutor_LocalSlurmInjection(t *testing.T) {
	needLocalSlurm(t)
	root := t.TempDir()
	bin := filepath.Join(root, "mirage")
	build := exec.Command("go", "build", "-o", bin, "github.com/mirage-hpc/mirage/cmd/mirage")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	tr := smallTrace(t, root)
	studyFile := func(name, slurm string) string {
		b, err := smallStudy(2).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(root, name)
		if err := os.WriteFile(path, append(b, slurm...), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	pwned := func() {
		t.Helper()
		wd, _ := os.Getwd()
		for _, d := range []string{root, wd} {
			filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
				if err == nil && e.Name() == "PWNED" {
					t.Errorf("a value ran in a job: %s exists", p)
				}
				return nil
			})
		}
	}
	plain := studyFile("s.yaml", "")
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"OutNewline", []string{"pipeline", "run", plain, "--trace", tr, "-o", "out\ntouch PWNED #", "--executor", "slurm"}},
		{"AccountNewline", []string{"pipeline", "run", studyFile("account.yaml", "slurm: {account: \"x\\ntouch PWNED #\"}\n"),
			"--trace", tr, "-o", "out2", "--executor", "slurm"}},
	} {
		cmd := exec.Command(bin, tt.args...)
		cmd.Dir = root
		b, err := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != 3 {
			t.Errorf("%s: exit %d (%v), want 3: %s", tt.name, code, err, b)
		}
	}
	for _, p := range []string{"out\ntouch PWNED #", "out2"} {
		if _, err := os.Stat(filepath.Join(root, p)); err == nil {
			t.Errorf("refused run created %q", p)
		}
	}

	ctx := context.Background()
	recs := filepath.Join(root, "args")
	if err := os.MkdirAll(recs, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(root, "fake-mirage")
	text := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done >" + shq(recs) + "/\"$SLURM_JOB_ID\"\n"
	if err := os.WriteFile(fake, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	slurm, err := pipelines.NewSlurmExecutor(fake, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pipelines.Run(ctx, smallStudy(2), pipelines.RunOptions{Trace: tr, Out: filepath.Join(root, "out\ntouch PWNED #"),
		Version: "test", Executor: slurm}); !errors.Is(err, pipelines.ErrSlurmPath) {
		t.Errorf("Run with a newline in the output directory: %v, want ErrSlurmPath", err)
	}
	s := smallStudy(2)
	s.Name = "s;$(touch${IFS}PWNED)`touch${IFS}PWNED`#"
	s.Slurm = &pipelines.SlurmSpec{Account: "a'$(touch PWNED) `touch PWNED`; touch PWNED #",
		ExtraArgs: []string{"--comment=$(touch PWNED) `touch PWNED`; touch PWNED #"}}
	version := "test\ntouch PWNED #"
	out := filepath.Join(root, "out3 $(touch PWNED) `touch PWNED`; #")
	o := pipelines.RunOptions{Trace: tr, Out: out, Version: version, Workers: 1, Executor: slurm}
	res, err := pipelines.Run(ctx, s, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Executor = nil
	for _, r := range waitJobs(t, ctx, slurm, s, o) {
		j := r.Job
		if j == nil || j.State != "COMPLETED" || j.ExitCode == nil || *j.ExitCode != 0 {
			t.Errorf("%s: job %+v, want COMPLETED with exit 0", r.Name, j)
			continue
		}
		args := strings.Split(strings.TrimSuffix(string(readFile(t, filepath.Join(recs, j.ID))), "\x00"), "\x00")
		if i := slices.Index(args, "--key-version"); i < 0 || i+1 >= len(args) || args[i+1] != version || args[2] != r.Name {
			t.Errorf("%s: mirage got %q, want stage %s and --key-version %q", r.Name, args, r.Name, version)
		}
	}
	if len(res) != 5 {
		t.Errorf("%d stages submitted, want 5", len(res))
	}
	pwned()
}
