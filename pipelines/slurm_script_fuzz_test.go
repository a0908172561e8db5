package pipelines

import (
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// FuzzJobScript renders a job script from fuzzed values in every field
// (the sbatch arguments made by sbatchArgs from a fuzzed study, log
// directory and dependency) and checks it with a shell parser: it parses
// as bash, it is the comments and the statements render means and no
// more (no value ended a comment or a command), and the words of the
// command line, the cd, the exit status file and the sbatch comment
// expand back to exactly the values given, with no command substitution
// and no glob. render refuses only what check refuses.
func FuzzJobScript(f *testing.F) {
	f.Add("small", "train-forest", "0123456789abcdef01", "/b/mirage", "/o/slurm/study-1.yaml", "/o/t.parquet", "/o", "v1",
		"/o/slurm/train-forest", "/o/slurm", "gpu", "proj", "--qos=long", "12", 2, true, 0, false)
	f.Add("s\n$(x)#", "evaluate", "", "/b i/m`x`", "/o/'s'.yaml", "", "/o\r\n x #", "-v\t'", "/o/\"e\"", "/o%j", "p\nq", "a'\r", "--c=$b\x1e-x", "1:2", 0, false, 3, false)
	f.Add("s", "evaluate", "k", "if", "/s", "/t\\n", "/o;x", "$'v'", "/e", "/l\\", "\xff", "\u00fc\x7f", "", "", -1, false, 2, true)
	f.Fuzz(func(t *testing.T, study, stage, key, binary, studyAt, trace, out, version, exitAt, logDir, partition, account, extra, dep string,
		workers int, force bool, shards int, merge bool) {
		s := &Study{Name: study, Device: "cuda", Slurm: &SlurmSpec{Partition: partition, Account: account, CPUs: workers,
			ExtraArgs: strings.Split(extra, "\x1e")}}
		pattern, _ := logPaths(logDir, stage, "", shards > 0 && !merge)
		j := jobScript{Study: study, Stage: stage, Key: key, Binary: binary, StudyAt: studyAt, Trace: trace, Out: out,
			Version: version, Workers: workers, Force: force, Shards: shards, Merge: merge, ExitAt: exitAt,
			Sbatch: sbatchArgs(s, stage, pattern, []string{dep})}
		text, err := j.render()
		if err != nil {
			if j.check() == nil {
				t.Fatalf("render refused what check passes: %v", err)
			}
			return
		}
		checkScript(t, j, text)
	})
}

// checkScript parses a script render wrote for j and checks its
// comments, its statements and the expansion of its words (with
// SLURM_JOB_ID=42 and SLURM_ARRAY_TASK_ID=7).
func checkScript(t *testing.T, j jobScript, text string) {
	t.Helper()
	if n := strings.Count(text, "\n"); n != scriptLines || !strings.HasSuffix(text, "\n") || strings.ContainsAny(text, "\r\x00") {
		t.Fatalf("%d lines (want %d), or a CR or NUL:\n%s", n, scriptLines, text)
	}
	file, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "job.sh")
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, text)
	}
	var comments []string
	syntax.Walk(file, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.Comment); ok {
			comments = append(comments, c.Text)
		}
		return true
	})
	if len(comments) != scriptLines-scriptStatements || len(file.Stmts) != scriptStatements {
		t.Fatalf("%d comments and %d statements, want %d and %d:\n%s", len(comments), len(file.Stmts), scriptLines-scriptStatements, scriptStatements, text)
	}
	cfg := &expand.Config{Env: expand.ListEnviron("SLURM_JOB_ID=42", "SLURM_ARRAY_TASK_ID=7")}
	fields := func(what string, s *syntax.Stmt) []string {
		t.Helper()
		call, ok := s.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Assigns) > 0 || s.Negated || s.Background || s.Coprocess {
			t.Fatalf("%s: not a plain command: %#v\n%s", what, s.Cmd, text)
		}
		got, err := expand.Fields(cfg, call.Args...)
		if err != nil {
			t.Fatalf("%s: expand: %v\n%s", what, err, text)
		}
		return got
	}
	want := func(what string, got, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Fatalf("%s\ngot  %q\nwant %q\n%s", what, got, want, text)
		}
	}
	binary := func(s *syntax.Stmt, op syntax.BinCmdOperator) *syntax.BinaryCmd {
		t.Helper()
		b, ok := s.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != op {
			t.Fatalf("statement %#v: want a %v list\n%s", s.Cmd, op, text)
		}
		return b
	}

	line, ok := strings.CutPrefix(comments[3], "   sbatch ")
	if !ok {
		t.Fatalf("comment 4 %q: want the sbatch command", comments[3])
	}
	sb, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader("sbatch "+line), "comment")
	if err != nil || len(sb.Stmts) != 1 {
		t.Fatalf("the sbatch comment %q: %v, %d statements", line, err, len(sb.Stmts))
	}
	want("sbatch comment", fields("sbatch comment", sb.Stmts[0]), append(append([]string{"sbatch"}, j.Sbatch...), "THIS-SCRIPT"))

	st := file.Stmts
	want("set", fields("set", st[0]), []string{"set", "-u"})
	cd := binary(st[1], syntax.OrStmt)
	want("cd", fields("cd", cd.X), []string{"cd", "--", j.Out})
	want("exit 1", fields("exit 1", cd.Y), []string{"exit", "1"})
	args := j.args()
	for i, a := range args {
		if a == arrayTask {
			args[i] = "7"
		}
	}
	if len(st[2].Redirs) > 0 {
		t.Fatalf("the command has redirections\n%s", text)
	}
	want("command", fields("command", st[2]), args)
	if call, ok := st[3].Cmd.(*syntax.CallExpr); !ok || len(call.Args) > 0 || len(call.Assigns) != 1 || call.Assigns[0].Name.Value != "rc" {
		t.Fatalf("statement 4 %#v: want rc=$?\n%s", st[3].Cmd, text)
	}
	status := binary(st[4], syntax.AndStmt)
	exit := j.ExitAt + ".42.exit"
	want("printf", fields("printf", status.X), []string{"printf", `%s\n`, ""}) // rc: unset here
	if r := status.X.Redirs; len(r) != 1 || r[0].Op != syntax.RdrOut {
		t.Fatalf("printf: want one > redirection\n%s", text)
	} else if got, err := expand.Fields(cfg, r[0].Word); err != nil || !slices.Equal(got, []string{exit + ".tmp"}) {
		// Fields, not Literal: Literal keeps the backslash of an unquoted \'.
		t.Fatalf("exit status file %q (%v), want %q\n%s", got, err, exit+".tmp", text)
	}
	want("mv", fields("mv", status.Y), []string{"mv", "-f", "--", exit + ".tmp", exit})
	want("exit", fields("exit", st[5]), []string{"exit", ""})
}
