package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/mirage-hpc/mirage/analyze"
	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/internal/atomicdir"
	"github.com/mirage-hpc/mirage/pipelines"
	"github.com/mirage-hpc/mirage/reports"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/dqn"
	"github.com/mirage-hpc/mirage/train/jobruntime"
)

// Exit codes, listed in the root command's help.
const (
	exitOK          = 0
	exitFailure     = 1   // I/O or internal error
	exitBadInput    = 2   // the input data is bad: a bad row under --strict, an unreadable format
	exitUsage       = 3   // bad flags, arguments or configuration
	exitInterrupted = 130 // SIGINT or SIGTERM
)

// exitStatus is one exit status and what it means: the table the root
// help, mirage help exit-codes and the README's "Exit status" table
// (checked by TestREADME_ExitTable) are all written from.
type exitStatus struct {
	Code    int
	Meaning string
}

// exitStatuses are mirage's exit statuses; exitCode maps errors to them.
var exitStatuses = []exitStatus{
	{exitOK, "success"},
	{exitFailure, "failure (I/O or internal error)"},
	{exitBadInput, "bad input data: a bad row with --strict (the message names file:line: field), " +
		"an unknown or fixed-width format, an empty or header-only input, truncated compressed input; " +
		"a trace that is not a readable Parquet file (damaged, or not written by mirage ingest: the message says to run it); " +
		"a trace that does not fit the study or that study init cannot propose one for (its jobs wider than the cluster, no job in the chains' partition, no submit times, dates relative to 1970, no recorded start to size the partition by, a span too short for the windows); " +
		"a samples table whose features differ from the model's (the message names them), " +
		"a model directory failing its seal (the manifest or a file changed, or written before seals: train it again), " +
		"of a kind the command does not take (the message names the commands that do), not fitting its manifest, or scoring NaN or infinity"},
	{exitUsage, "bad usage: unknown command, subcommand or flag (with a did-you-mean), bad flag value, " +
		"unreadable config file or an unknown key in it, a bad study or simulator profile (the message names the key and line), " +
		"an output path that cannot be written (checked before any work: its directory must exist and accept files; " +
		"a missing parent directory is refused, never created)"},
	{exitInterrupted, "interrupted (SIGINT, SIGTERM)"},
}

// exitCodesHelp is exitStatuses as the help text shows them.
var exitCodesHelp = formatExitHelp()

func formatExitHelp() string {
	var b strings.Builder
	b.WriteString("Exit status:")
	for _, e := range exitStatuses {
		fmt.Fprintf(&b, "\n  %-4d ", e.Code)
		col := 7
		for i, w := range strings.Fields(e.Meaning) {
			if i > 0 && col+1+len(w) > 88 {
				b.WriteString("\n       ")
				col = 7
			} else if i > 0 {
				b.WriteByte(' ')
				col++
			}
			b.WriteString(w)
			col += len(w)
		}
	}
	return b.String()
}

// exitTableMarkdown is exitStatuses as the README's Markdown table.
func exitTableMarkdown() string {
	var b strings.Builder
	b.WriteString("| Status | Meaning |\n|---|---|\n")
	for _, e := range exitStatuses {
		fmt.Fprintf(&b, "| %d | %s |\n", e.Code, e.Meaning)
	}
	return b.String()
}

// usageError marks errors caused by the command line or configuration.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitCode maps an error to the process exit status.
func exitCode(err error) int {
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.Is(err, pipelines.ErrTraceFit):
		// before ErrStudy, which it also wraps: the trace's data, not the study's text
		return exitBadInput
	case errors.As(err, &ue), errors.Is(err, sim.ErrProfile), errors.Is(err, sim.ErrOverride), errors.Is(err, evaluate.ErrPolicy), errors.Is(err, features.ErrOptions),
		errors.Is(err, analyze.ErrOptions), errors.Is(err, jobruntime.ErrOptions), errors.Is(err, pipelines.ErrStudy),
		errors.Is(err, ingest.ErrOutputIsInput), errors.Is(err, ingest.ErrBadOption),
		errors.Is(err, reports.ErrNoEvaluation), errors.Is(err, reports.ErrNoDQNCurve), errors.Is(err, reports.ErrOutDir),
		errors.Is(err, evaluate.ErrModelDir), errors.Is(err, atomicdir.ErrForeign), errors.Is(err, train.ErrFolds):
		return exitUsage
	case ingest.IsInputError(err), errors.Is(err, trace.ErrSchemaVersion), errors.Is(err, trace.ErrBadState), errors.Is(err, trace.ErrDamaged), errors.Is(err, trace.ErrNotParquet),
		errors.Is(err, train.ErrFeatures), errors.Is(err, train.ErrDigest), errors.Is(err, train.ErrSamples),
		errors.Is(err, train.ErrBadModel), errors.Is(err, sim.ErrUnfit):
		return exitBadInput
	case errors.Is(err, train.ErrDevice), errors.Is(err, train.ErrNoCUDA), errors.Is(err, dqn.ErrConfig):
		// after bad input: a model directory's manifest naming a bad device is bad input
		return exitUsage
	}
	return exitFailure
}

// reportError prints err to stderr (as JSON under --json) and returns the
// exit status.
func reportError(g *globalOptions, err error) int {
	code := exitCode(err)
	if err == nil {
		return code
	}
	if g.cfg.JSON || g.jsonArgs {
		b, _ := json.Marshal(map[string]any{"error": err.Error(), "exit_code": code})
		fmt.Fprintln(g.stderr, string(b))
	} else {
		fmt.Fprintln(g.stderr, "mirage: "+err.Error())
	}
	return code
}

// jsonRequested reports whether the command line (or MIRAGE_JSON) asks for
// JSON output, for errors that happen before the configuration is resolved
// (a bad flag, an unknown command): --json, --json=true or =1 before a
// "--".
func jsonRequested(args []string, getenv func(string) string) bool {
	if v, err := strconv.ParseBool(getenv("MIRAGE_JSON")); err == nil && v {
		return true
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--json" {
			return true
		}
		if v, ok := strings.CutPrefix(a, "--json="); ok {
			b, err := strconv.ParseBool(v)
			return err == nil && b
		}
	}
	return false
}

// execute runs the command line args as main does and returns the exit
// status; errors are printed to g.stderr.
func execute(ctx context.Context, g *globalOptions, args []string) int {
	g.jsonArgs = jsonRequested(args, os.Getenv)
	if _, ok := g.stderr.(*liveWriter); !ok {
		g.stderr = &liveWriter{w: g.stderr}
	}
	cmd := newRootCommand(g)
	cmd.SetArgs(args)
	return reportError(g, cmd.ExecuteContext(ctx))
}
