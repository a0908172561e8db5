package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"
)

// globalOptions carries what every command needs: the resolved Config and
// the output streams (replaced by buffers in tests).
type globalOptions struct {
	configFile string
	cfg        Config
	stdout     io.Writer
	stderr     io.Writer
	logger     *slog.Logger
	// jsonArgs is set when the raw command line asks for --json, so that
	// errors before the configuration is resolved are JSON too.
	jsonArgs bool
}

func newRootCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mirage",
		Short: "Analyse batch-scheduler traces and provision long-running services on batch clusters",
		Long: `mirage turns Slurm accounting dumps into a canonical Parquet trace table and, from
it, learns when to submit the successor of a long-running job so the service is
never interrupted.

Settings come from flags, then MIRAGE_* environment variables (MIRAGE_INGEST_TZ
for ingest --tz), then the --config file (YAML, TOML or JSON; keys like
ingest.tz), then defaults. Data goes to stdout (JSON with --json); logs,
progress and errors go to stderr.

` + exitCodesHelp,
		Version:       version,
		SilenceErrors: true,
		SilenceUsage:  true,
		// The root runs only for no command (help) or an unknown one,
		// which is a usage error (exit 3), not a failure.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return cmd.Help()
		},
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			cfg, warnings, err := resolveConfig(cmd, g.configFile, defaultConfig())
			if err != nil {
				return err
			}
			g.cfg = cfg
			level := slog.LevelInfo
			if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
				return usagef("--log-level %q: want debug, info, warn or error", cfg.LogLevel)
			}
			opts := &slog.HandlerOptions{Level: level}
			if cfg.JSON {
				g.logger = slog.New(slog.NewJSONHandler(g.stderr, opts))
			} else {
				g.logger = slog.New(slog.NewTextHandler(g.stderr, opts))
			}
			for _, w := range warnings {
				g.logger.Warn(w)
			}
			return nil
		},
	}
	cmd.SetOut(g.stdout)
	cmd.SetErr(g.stderr)
	cmd.SetVersionTemplate("mirage {{.Version}}\n")
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	pf := cmd.PersistentFlags()
	pf.StringVar(&g.configFile, "config", "", "config file (YAML, TOML or JSON)")
	pf.Bool("json", false, "print machine-readable JSON on stdout (and JSON errors on stderr)")
	pf.String("log-level", "info", "log level: debug, info, warn, error")
	cmd.AddGroup(&cobra.Group{ID: "data", Title: "Trace data:"}, &cobra.Group{ID: "sim", Title: "Simulation and samples:"}, &cobra.Group{ID: "models", Title: "Models:"})
	cmd.AddCommand(newIngestCommand(g), newTraceCommand(g), newSynthCommand(g), newSimCommand(g), newFeaturesCommand(g), newTrainCommand(g), newPredictCommand(g), newEvaluateCommand(g), newReportCommand(g), newStudyCommand(g), newPipelineCommand(g), newAnalyzeCommand(g), newAdviseCommand(g))
	quietDeprecations(cmd)
	return cmd
}

// quietDeprecations stops pflag printing its own note on a deprecated
// flag, which cobra sends to stdout (the data stream); resolveConfig's
// warnings, logged on stderr, say it instead.
func quietDeprecations(cmd *cobra.Command) {
	cmd.Flags().SetOutput(io.Discard)
	for _, c := range cmd.Commands() {
		quietDeprecations(c)
	}
}

// unknownCommand is the usage error of `mirage NAME` for a NAME that is
// no command, with cobra's suggestions.
func unknownCommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	cmd.SuggestionsMinimumDistance = 2
	if sug := cmd.SuggestionsFor(name); len(sug) > 0 {
		msg += "; did you mean " + strings.Join(sug, " or ") + "?"
	}
	return usageError{errors.New(msg + " (see mirage --help)")}
}

// noArgsHint wraps cobra's argument validators into usage errors.
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return usageError{fmt.Errorf("%s: %w", cmd.CommandPath(), err)}
		}
		return nil
	}
}

// logger returns the command's logger (discarding before PersistentPreRunE).
func (g *globalOptions) log() *slog.Logger {
	if g.logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return g.logger
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, strings.TrimSuffix(word, "s"))
}
