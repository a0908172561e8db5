package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

var updateREADME = flag.Bool("update", false, "rewrite the README's exit-code table from exitStatuses")

// allCommands is every command of the tree, hidden ones included.
func allCommands() []*cobra.Command {
	root := newRootCommand(&globalOptions{})
	var out []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		out = append(out, c)
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	return out
}

// TestHelp_Examples checks that every command's help has an Examples
// section, and that only the root help carries the exit-status block.
func TestHelp_Examples(t *testing.T) {
	n := 0
	for _, c := range allCommands() {
		path := c.CommandPath()
		args := append(strings.Fields(path)[1:], "--help")
		out, stderr, code := run(t, args...)
		if code != 0 {
			t.Errorf("%s --help: exit %d: %s", path, code, stderr)
			continue
		}
		n++
		if c.IsAdditionalHelpTopicCommand() { // mirage exit-codes: its text only
			continue
		}
		if !strings.Contains(out, "\nExamples:\n  mirage ") && !strings.Contains(out, "\nExamples:\n  source ") {
			t.Errorf("%s --help has no Examples section:\n%s", path, out)
		}
		if got := strings.Count(out, "Exit status:"); path == "mirage" && got != 1 || path != "mirage" && got != 0 {
			t.Errorf("%s --help shows the exit-status block %d times", path, got)
		}
	}
	if n < 16 {
		t.Errorf("only %d help pages", n)
	}
	for k := range examples {
		found := false
		for _, c := range allCommands() {
			found = found || c.CommandPath() == k
		}
		if !found {
			t.Errorf("examples[%q] names no command", k)
		}
	}
}

func TestHelp_ExitCodesTopic(t *testing.T) {
	out, _, code := run(t, "help", "exit-codes")
	if code != 0 || !strings.Contains(out, "Exit status:") || !strings.Contains(out, "  3    bad usage") {
		t.Errorf("help exit-codes: exit %d\n%s", code, out)
	}
}

// TestHelp_PipelineStatus checks that pipeline status has its own text
// and only the flags that do something there.
func TestHelp_PipelineStatus(t *testing.T) {
	st, _, _ := run(t, "pipeline", "status", "--help")
	rn, _, _ := run(t, "pipeline", "run", "--help")
	if before, _, _ := strings.Cut(st, "Usage:"); strings.Contains(rn, strings.TrimSpace(before)) || !strings.Contains(before, "runs nothing") {
		t.Errorf("pipeline status --help repeats run's text:\n%s", st)
	}
	_, stFlags, _ := strings.Cut(st, "\nFlags:")
	for _, f := range []string{"--workers", "--jobs", "--force", "--executor"} {
		if strings.Contains(stFlags, f) {
			t.Errorf("pipeline status --help offers %s", f)
		}
		if !strings.Contains(rn, f) {
			t.Errorf("pipeline run --help lacks %s", f)
		}
	}
}

func TestHelp_TraceStatsUnits(t *testing.T) {
	out, _, _ := run(t, "trace", "stats", "--help")
	if strings.Contains(out, "in seconds)") || !strings.Contains(out, "9s") || !strings.Contains(out, "5.04h") {
		t.Errorf("trace stats --help does not show the units as the output does:\n%s", out)
	}
}

// TestTypos checks that a mistyped subcommand or help topic is a usage
// error with a suggestion, even with flags after it.
func TestTypos(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tarce"}, "did you mean trace?"},
		{[]string{"trace", "stat", "T"}, `unknown command "stat" for "mirage trace"; did you mean stats?`},
		{[]string{"pipeline", "stauts", "synth"}, "did you mean status?"},
		{[]string{"pipeline", "stauts", "synth", "-o", "x"}, `unknown command "stauts" for "mirage pipeline"; did you mean status?`},
		{[]string{"sim", "replya", "--trace", "x"}, "did you mean replay?"},
		{[]string{"study", "shwo", "synth"}, "did you mean show?"},
		{[]string{"help", "tarce"}, "did you mean trace?"},
		{[]string{"help", "trace", "stat"}, "did you mean stats?"},
		{[]string{"help", "exit-code"}, "did you mean exit-codes?"},
	} {
		stdout, stderr, code := run(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("mirage %s: exit %d, stderr %q, stdout %q; want exit 3 and %q", strings.Join(c.args, " "), code, stderr, stdout, c.want)
		}
	}
	// Groups without an argument still print their help.
	if out, _, code := run(t, "trace"); code != 0 || !strings.Contains(out, "stats") {
		t.Errorf("mirage trace: exit %d\n%s", code, out)
	}
	if out, _, code := run(t, "help", "pipeline", "status"); code != 0 || !strings.Contains(out, "runs nothing") {
		t.Errorf("mirage help pipeline status: exit %d\n%s", code, out)
	}
}

// TestREADME_ExitTable checks the README's exit-code table against
// exitStatuses (go test -run TestREADME_ExitTable -update rewrites it),
// and that the codes exitCode returns are the table's.
func TestREADME_ExitTable(t *testing.T) {
	path := filepath.Join("..", "..", "README.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- exit-codes begin -->\n", "<!-- exit-codes end -->"
	s := string(b)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q … %q block", begin, end)
	}
	want := exitTableMarkdown()
	if got := s[i+len(begin) : j]; got != want {
		if *updateREADME {
			if err := os.WriteFile(path, []byte(s[:i+len(begin)]+want+s[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("README.md's exit-code table differs from exitStatuses (rerun with -update):\n%s\nwant:\n%s", got, want)
	}
	codes := map[int]bool{}
	for _, e := range exitStatuses {
		codes[e.Code] = true
	}
	for _, c := range []int{exitOK, exitFailure, exitBadInput, exitUsage, exitInterrupted} {
		if !codes[c] {
			t.Errorf("exit status %d is not in exitStatuses", c)
		}
	}
	if !strings.Contains(exitCodesHelp, "  130  interrupted") {
		t.Errorf("exitCodesHelp = %q", exitCodesHelp)
	}
}
