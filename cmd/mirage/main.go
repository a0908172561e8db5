// Command mirage analyses batch-scheduler traces and trains models that keep
// long-running services on batch GPU clusters uninterrupted.
//
// Each subcommand is a thin wrapper over a stage's Go API (package ingest,
// trace, ...): it parses flags and configuration, calls the stage, and prints
// data on stdout and logs, progress and errors on stderr.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	g := &globalOptions{stdout: os.Stdout, stderr: os.Stderr}
	code := execute(ctx, g, os.Args[1:])
	stop()
	os.Exit(code)
}
