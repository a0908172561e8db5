package main

import (
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mirage-hpc/mirage/internal/suggest"
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
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		// A flag error on a command that only groups others (mirage
		// pipeline stauts -o x) is a mistyped subcommand, not a bad flag.
		if c.HasAvailableSubCommands() && !c.Runnable() || c.Annotations[groupAnnotation] != "" {
			if a := c.Flags().Args(); len(a) > 0 {
				return unknownCommand(c, a[0])
			}
		}
		return usageError{err}
	})
	pf := cmd.PersistentFlags()
	pf.StringVar(&g.configFile, "config", "", "config file (YAML, TOML or JSON)")
	pf.Bool("json", false, "print machine-readable JSON on stdout (and JSON errors on stderr)")
	pf.String("log-level", "info", "log level: debug, info, warn, error")
	cmd.AddGroup(&cobra.Group{ID: "data", Title: "Trace data:"}, &cobra.Group{ID: "sim", Title: "Simulation and samples:"}, &cobra.Group{ID: "models", Title: "Models:"})
	cmd.AddCommand(newIngestCommand(g), newTraceCommand(g), newSynthCommand(g), newSimCommand(g), newFeaturesCommand(g), newTrainCommand(g), newPredictCommand(g), newEvaluateCommand(g), newReportCommand(g), newStudyCommand(g), newPipelineCommand(g), newAnalyzeCommand(g), newAdviseCommand(g))
	cmd.AddCommand(newExitCodesTopic())
	cmd.SetHelpCommand(newHelpCommand())
	cmd.InitDefaultHelpCmd()
	cmd.InitDefaultCompletionCmd()
	guardGroups(cmd)
	setExamples(cmd)
	quietDeprecations(cmd)
	return cmd
}

// groupAnnotation marks a command that only groups subcommands (mirage
// trace, pipeline, sim, study): guardGroups gives it a RunE.
const groupAnnotation = "mirage.group"

// guardGroups makes every command below root that only groups
// subcommands fail on an argument that names none of them (mirage trace
// stat T: "did you mean stats?", exit 3) instead of printing its help and
// succeeding; with no argument it prints its help.
func guardGroups(root *cobra.Command) {
	for _, c := range root.Commands() {
		if c.HasSubCommands() && !c.Runnable() {
			if c.Annotations == nil {
				c.Annotations = map[string]string{}
			}
			c.Annotations[groupAnnotation] = "1"
			c.Args = cobra.ArbitraryArgs
			c.RunE = func(cmd *cobra.Command, args []string) error {
				if len(args) > 0 {
					return unknownCommand(cmd, args[0])
				}
				return cmd.Help()
			}
		}
		guardGroups(c)
	}
}

// newHelpCommand is `mirage help [COMMAND...]`: the help of a command or
// topic, and a usage error (exit 3, with suggestions) for a name that is
// neither, where cobra's own prints the main help and succeeds.
func newHelpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND]",
		Short: "Help about any command or topic (mirage help exit-codes)",
		Long: `Help prints the help of any command or topic: mirage help ingest, mirage help
pipeline run, mirage help exit-codes.`,
		Example: `  mirage help trace stats
  mirage help exit-codes`,
		Args: cobra.ArbitraryArgs,
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			var names []string
			cmd, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			for _, sub := range cmd.Commands() {
				if (sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand()) && strings.HasPrefix(sub.Name(), toComplete) {
					names = append(names, sub.Name())
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd := c.Root()
			for _, a := range args {
				next := findSub(cmd, a)
				if next == nil {
					return unknownCommand(cmd, a)
				}
				cmd = next
			}
			cmd.InitDefaultHelpFlag()
			return cmd.Help()
		},
	}
}

// findSub returns cmd's subcommand (or help topic) called name or one of
// its aliases, or nil.
func findSub(cmd *cobra.Command, name string) *cobra.Command {
	for _, sub := range cmd.Commands() {
		if sub.Name() == name || sub.HasAlias(name) {
			return sub
		}
	}
	return nil
}

// newExitCodesTopic is the help topic `mirage help exit-codes`: what each
// exit status means, the table exit.go keeps (exitStatuses).
func newExitCodesTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "exit-codes",
		Short: "What mirage's exit statuses mean",
		Long:  exitCodesHelp,
	}
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
	sug := cmd.SuggestionsFor(name)
	for _, sub := range cmd.Commands() { // help topics too (mirage help exit-cods)
		if sub.IsAdditionalHelpTopicCommand() && !slices.Contains(sug, sub.Name()) && suggest.Distance(name, sub.Name()) <= 2 {
			sug = append(sug, sub.Name())
		}
	}
	if len(sug) > 0 {
		msg += "; did you mean " + strings.Join(sug, " or ") + "?"
	}
	return usageError{fmt.Errorf("%s (see %s --help)", msg, cmd.CommandPath())}
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
