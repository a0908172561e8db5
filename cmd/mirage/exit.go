package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/trace"
	"github.com/mirage-hpc/mirage/train"
)

// Exit codes, listed in the root command's help.
const (
	exitOK          = 0
	exitFailure     = 1   // I/O or internal error
	exitBadInput    = 2   // the input data is bad: a bad row under --strict, an unreadable format
	exitUsage       = 3   // bad flags, arguments or configuration
	exitInterrupted = 130 // SIGINT or SIGTERM
)

const exitCodesHelp = `Exit status:
  0    success
  1    failure (I/O or internal error)
  2    bad input data: a bad row with --strict (the message names file:line: field),
       an unknown or fixed-width format, an empty or header-only input; a samples
       table whose features differ from the model's, a model failing its sha256
  3    bad usage: unknown flag, bad flag value, unreadable config file
  130  interrupted (SIGINT, SIGTERM)`

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
	case errors.As(err, &ue):
		return exitUsage
	case ingest.IsInputError(err), errors.Is(err, trace.ErrSchemaVersion), errors.Is(err, trace.ErrBadState),
		errors.Is(err, train.ErrFeatures), errors.Is(err, train.ErrDigest), errors.Is(err, train.ErrSamples):
		return exitBadInput
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
	if g.cfg.JSON {
		b, _ := json.Marshal(map[string]any{"error": err.Error(), "exit_code": code})
		fmt.Fprintln(g.stderr, string(b))
	} else {
		fmt.Fprintln(g.stderr, "mirage: "+err.Error())
	}
	return code
}
