package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// needSlurm skips the test unless sinfo answers and sbatch exists: a
// local Slurm (`sudo scripts/slurm-local.sh start`) or, with
// MIRAGE_SLURM_TEST=1, any Slurm.
func needSlurm(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no Slurm integration test")
	}
	const hint = "start one with `sudo scripts/slurm-local.sh start` (Debian/Ubuntu) to run this test"
	if _, err := exec.LookPath("sbatch"); err != nil {
		t.Skipf("no sbatch on PATH: %s", hint)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b, err := exec.CommandContext(ctx, "sinfo", "--noheader", "--Node", "--format=%N %T").Output()
	if err != nil {
		t.Skipf("no Slurm reachable (sinfo: %v): %s", err, hint)
	}
	host, _ := os.Hostname()
	host, _, _ = strings.Cut(host, ".")
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if os.Getenv("MIRAGE_SLURM_TEST") != "1" && (len(lines) != 1 || !strings.HasPrefix(lines[0], host+" ")) {
		t.Skipf("the Slurm sinfo reaches is not a single-node Slurm on this host (%q): set MIRAGE_SLURM_TEST=1, or %s", lines, hint)
	}
}

// slurmCmd runs a Slurm command (argv, no shell) and returns its trimmed
// output.
func slurmCmd(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %q: %v: %s", name, args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestAdvise_LocalSlurm proves mirage advise on a real Slurm: background
// jobs with hostile names (one running beside P, two pending behind it),
// P running, then `mirage advise --watch --submit` with the fixture model
// trained on the synthetic study. Its operating point waits until P ends,
// so the watch decides with the model every 2 s, sees P end and submits
// Q through sbatch; Q must then be in squeue with its hostile name.
func TestAdvise_LocalSlurm(t *testing.T) {
	needSlurm(t)
	dir := t.TempDir()
	script := func(name string, sleep int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\nsleep "+strconv.Itoa(sleep)+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var ids []string
	submit := func(args ...string) string {
		id := slurmCmd(t, "sbatch", append([]string{"--parsable", "--output=/dev/null"}, args...)...)
		id, _, _ = strings.Cut(id, ";")
		ids = append(ids, id)
		return id
	}
	t.Cleanup(func() {
		if len(ids) > 0 {
			exec.Command("scancel", ids...).Run()
		}
	})
	short := script("bg short.sh", 2)
	p := submit("--job-name=service P", "--time=1", "--ntasks=1", script("p's job.sh", 8))
	submit("--job-name=bg \"running\" | one", "--time=1", "--ntasks=1", script("bg.sh", 20))
	submit("--job-name=bg 'pending' | $(x) two", "--time=1", "--exclusive", short)
	submit("--job-name=bg pending\tthree", "--time=2", "--exclusive", short)
	deadline := time.Now().Add(20 * time.Second)
	for slurmCmd(t, "squeue", "--noheader", "--jobs="+p, "--format=%T") != "RUNNING" {
		if time.Now().After(deadline) {
			t.Fatalf("P (job %s) not running after 20 s: %s", p, slurmCmd(t, "squeue"))
		}
		time.Sleep(200 * time.Millisecond)
	}

	qName := `Q "it's" | the successor`
	audit := filepath.Join(dir, "audit log.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	g := &globalOptions{stdout: &out, stderr: &errb}
	code := execute(ctx, g, []string{"advise", "--model", adviseFixture, "--job", p, "--successor", script("next job's.sbatch", 1),
		"--name", qName, "--watch", "--interval", "2s", "--submit", "--json", "--audit", audit})
	if code != 0 {
		t.Fatalf("mirage advise: exit %d\nstdout: %s\nstderr: %s", code, out.String(), errb.String())
	}
	var last adviseResult
	sc := bufio.NewScanner(&out)
	lines := 0
	for sc.Scan() {
		lines++
		if err := json.Unmarshal(sc.Bytes(), &last); err != nil {
			t.Fatalf("stdout line %q: %v", sc.Text(), err)
		}
	}
	if last.Submitted == "" || !last.Decision.Submit {
		t.Fatalf("no submission in the last line: %+v", last)
	}
	ids = append(ids, last.Submitted)
	if got := slurmCmd(t, "squeue", "--noheader", "--jobs="+last.Submitted, "--format=%j"); got != qName {
		t.Fatalf("Q (job %s) in squeue named %q, want %q", last.Submitted, got, qName)
	}
	ab, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	var models int
	for _, l := range strings.Split(strings.TrimSpace(string(ab)), "\n") {
		var d struct{ Reason, Action string }
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatalf("audit line %q: %v", l, err)
		}
		if d.Reason == "model" {
			models++
		}
	}
	if models == 0 {
		t.Fatalf("no decision by the model while P ran; audit:\n%s", ab)
	}
	t.Logf("P %s ran; %d model decisions, then %s; Q is job %s named %q", p, models, last.Decision.Reason, last.Submitted, qName)
}
