package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/trace"
	"github.com/spf13/cobra"
)

func newIngestCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ingest [flags] -o OUT.parquet INPUT...",
		Short: "Read sacct, SWF or Mirage-format dumps into a Parquet trace",
		Long: `Read scheduler accounting dumps into one trace table (Parquet, sorted by Submit).

Formats (detected, or forced with --format): sacct --parsable2/--parsable
(header line; any columns, any order), sacct --json (Slurm 22.05, v0.0.38),
the Mirage artifact's ls6-a100.log, and SWF v2.2. gzip and zstd inputs are
decompressed. sacct's default fixed-width output truncates values and is
refused: re-run sacct with --parsable2 and --format=..., or --json.

Every input row ends up in the output (step rows folded into their job) or
in the quarantine file OUT.quarantine.jsonl with its file, line, field and
reason; the summary shows that the counts add up. With --strict the first
bad row stops the run (exit status 2). A run whose every row is quarantined
exits 2 after printing its summary, unless --allow-empty. The output and the
quarantine file are replaced together, only when the run succeeds: a failed
run leaves the previous ones as they were. An output (or quarantine file)
that is one of the inputs is refused before any work (exit status 3).

Text: a string field (job name, user, account, ...) with invalid UTF-8 or a
control character keeps its job, the bad bytes replaced with U+FFFD; the job
is counted as repaired (with --strict it stops the run). A UTF-8 byte-order
mark is ignored. Times must lie in the years 1970-2100; a header naming a
column twice is refused; a header without Submit is read, with a note.

SWF times are seconds after the header's UnixStartTime. A header without one
needs --start-time, or dates count from 1970-01-01 (a note says so); a header
without MaxNodes/MaxProcs needs --cores-per-node, or each processor is taken
as a node. A job whose wait time is -1 but whose run time is known ran from
an unknown start: it is kept, marked start_unknown, and left out of waits.

CSV: --format csv reads comma-separated values with a header of sacct's
column names; --columns renames other columns (job_id=JobID,user=User,...,
or a built-in map: ` + builtinMapNames() + `), and a comma-separated input is then
read as CSV. Through --columns, rows that repeat an earlier row's job ID
(array tasks exported under the array's ID) stay distinct jobs N_K,
marked array-task-numbered, with a note.

--keep-current keeps the output, ingesting nothing, when it already holds
the same input files (by sha256) ingested with every option given on the
command line (--format, --tz for formats with local times, --cluster,
--start-time, --cores-per-node, --columns): so a hand-run ingest with
--start-time survives ` + "`make run`" + `, which passes only the options it was given.`,
		GroupID:     "data",
		Args:        usageArgs(cobra.MinimumNArgs(1)),
		Annotations: map[string]string{configSection: "ingest"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runIngest(cmd, g, args)
		},
	}
	f := cmd.Flags()
	f.String("format", "auto", "input format: auto, sacct, sacct-json, mirage, swf, csv")
	f.String("tz", "", "IANA time zone of the cluster's local times (e.g. America/Chicago); default UTC")
	f.String("cluster", "", "cluster name for inputs that do not name one")
	f.StringP("output", "o", "", "output Parquet file (required)")
	f.String("quarantine", "", "quarantine file (default: OUT with .quarantine.jsonl)")
	f.Bool("strict", false, "stop at the first bad row (exit status 2) instead of quarantining it")
	f.Int("cores-per-node", 0, "SWF: processors per node; needed when the header has no MaxNodes/MaxProcs, else each processor is taken as a node")
	f.String("start-time", "", "SWF: the instant times count from (RFC 3339, e.g. 2006-01-02T15:04:05Z); needed when the header has no UnixStartTime, which wins when present")
	f.String("columns", "", "rename header columns: a built-in map ("+builtinMapNames()+") or FROM=TO pairs, e.g. job_id=JobID,submit_time=Submit (targets: sacct's names, TimelimitSec, NGPUs); a comma-separated input is then read as CSV")
	f.Bool("keep-current", false, "keep the output and ingest nothing when it holds the same inputs (sha256) ingested with the options given on the command line")
	f.Int("row-group-rows", 0, "rows per Parquet row group (and rows held in memory), 1 or more; default 65536")
	f.Bool("allow-empty", false, "accept a run whose every row is quarantined: write the empty trace and the quarantine file (otherwise exit status 2, nothing replaced)")
	f.Int("max-line-bytes", 0, "longest input line (or sacct --json job object) in bytes; a longer one is quarantined; default 16 MiB")
	f.Int("max-field-bytes", 0, "longest field (sacct column or JSON string) in bytes; a row with a longer one is quarantined; default 1 MiB")
	addProgressFlag(f)
	return cmd
}

func runIngest(cmd *cobra.Command, g *globalOptions, inputs []string) error {
	cfg := g.cfg.Ingest
	if cfg.Output == "" {
		return usagef("ingest: -o OUT.parquet is required")
	}
	if err := checkOutput("ingest -o", cfg.Output, outputFile); err != nil {
		return err
	}
	if cfg.Quarantine != "" {
		if err := checkOutput("ingest --quarantine", cfg.Quarantine, outputFile); err != nil {
			return err
		}
	}
	format, err := ingest.ParseFormat(cfg.Format)
	if err != nil {
		return usageError{err}
	}
	loc := time.UTC
	if cfg.TZ != "" {
		if loc, err = time.LoadLocation(cfg.TZ); err != nil {
			return usagef("%s %q: %w", settingName(cmd, "tz"), cfg.TZ, err)
		}
	}
	var start time.Time
	if cfg.StartTime != "" {
		if start, err = time.Parse(time.RFC3339, cfg.StartTime); err != nil {
			return usagef("--start-time %q: want RFC 3339, e.g. 2006-01-02T15:04:05Z: %w", cfg.StartTime, err)
		}
		if start.Before(time.Unix(0, 0)) {
			return usagef("--start-time %q: before 1970-01-01T00:00:00Z", cfg.StartTime)
		}
	}
	if cfg.RowGroupRows < 0 || cfg.RowGroupRows == 0 && cmd.Flags().Changed("row-group-rows") {
		return usagef("--row-group-rows %d: want 1 or more (omit it for the default %d)", cfg.RowGroupRows, trace.DefaultRowGroupRows)
	}
	if cfg.CoresPerNode < 0 {
		return usagef("--cores-per-node %d: want a positive number, or 0 for unknown", cfg.CoresPerNode)
	}
	cols, err := ingest.ParseColumnMap(cfg.Columns)
	if err != nil {
		return usageError{err}
	}
	if cfg.KeepCurrent {
		kept, err := keepCurrent(cmd, g, inputs, cfg.Output, ingest.Given{}, format, loc, start, cols)
		if kept || err != nil {
			return err
		}
	}
	opts := ingest.Options{
		Columns:      cols,
		Format:       format,
		Location:     loc,
		Cluster:      cfg.Cluster,
		CoresPerNode: cfg.CoresPerNode,
		StartTime:    start,
		Strict:       cfg.Strict,
		RowGroupRows: cfg.RowGroupRows,
		AllowEmpty:   cfg.AllowEmpty,
		Quarantine:   cfg.Quarantine,
		Logger:       g.log(),

		MaxLineBytes:  cfg.MaxLineBytes,
		MaxFieldBytes: cfg.MaxFieldBytes,
	}
	bar := newProgressBar(g.stderr, cfg.Progress, g.cfg.JSON)
	opts.Progress = bar.ingest
	sum, err := ingest.Run(cmd.Context(), inputs, cfg.Output, opts)
	bar.finish()
	switch {
	case errors.Is(err, ingest.ErrNoJobs):
		if perr := printIngest(g, sum, false); perr != nil {
			return perr
		}
		return fmt.Errorf("%w; pass --allow-empty to write the empty trace and its quarantine file", err)
	case err != nil:
		return err
	}
	return printIngest(g, sum, true)
}

// printIngest prints the summary, as JSON under --json.
func printIngest(g *globalOptions, sum ingest.Summary, written bool) error {
	if g.cfg.JSON {
		b, err := json.MarshalIndent(sum, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(g.stdout, string(b))
		return err
	}
	return printIngestSummary(g, sum, written)
}

// printIngestSummary prints the summary as text; written is false for a
// run that failed with ingest.ErrNoJobs.
func printIngestSummary(g *globalOptions, s ingest.Summary, written bool) error {
	check := "the counts add up"
	if !s.Balanced {
		check = "THE COUNTS DO NOT ADD UP"
	}
	into := "into " + s.Output
	if !written {
		into = "but wrote nothing: every row was quarantined"
	}
	_, err := fmt.Fprintf(g.stdout, `ingested %s (%s) %s
  rows read     %d
  jobs          %d
  steps folded  %d
  quarantined   %d  (%s; %d duplicates)
  repaired      %d
  DST-ambiguous %d  (times in %s)
  %d = %d + %d + %d: %s
`, plural(int64(len(s.Inputs)), "input"), s.Format, into, s.RowsRead, s.Jobs, s.StepsFolded,
		s.Quarantined, s.QuarantineFile, s.Duplicates, s.Repaired, s.DSTAmbiguous, s.TimeZone,
		s.RowsRead, s.Jobs, s.StepsFolded, s.Quarantined, check)
	for _, in := range s.Inputs {
		for _, n := range in.Notes {
			fmt.Fprintf(g.stdout, "  note: %s: %s\n", in.Path, n)
		}
	}
	return err
}

// builtinMapNames lists the built-in column maps for help texts.
func builtinMapNames() string {
	var names []string
	for _, m := range ingest.BuiltinColumnMaps() {
		names = append(names, m[0])
	}
	return strings.Join(names, ", ")
}

// keepCurrent reports whether out already holds inputs ingested with the
// options given on the command line (ingest.Current), and then says so
// on stdout; when it does not, it logs why it ingests again.
func keepCurrent(cmd *cobra.Command, g *globalOptions, inputs []string, out string, given ingest.Given,
	format ingest.Format, loc *time.Location, start time.Time, cols ingest.ColumnMap) (bool, error) {
	fl := cmd.Flags()
	if fl.Changed("format") {
		given.Format = format
	}
	if fl.Changed("tz") {
		given.Location = loc
	}
	if fl.Changed("cluster") {
		c := g.cfg.Ingest.Cluster
		given.Cluster = &c
	}
	if fl.Changed("start-time") {
		given.StartTime = start
	}
	if fl.Changed("cores-per-node") {
		given.CoresPerNode = g.cfg.Ingest.CoresPerNode
	}
	if fl.Changed("columns") {
		given.Columns = cols
	}
	ok, why, err := ingest.Current(inputs, out, given)
	if err != nil {
		return false, err
	}
	if !ok {
		if why != "" {
			g.log().Info("ingesting again", "reason", why)
		}
		return false, nil
	}
	if g.cfg.JSON {
		b, err := json.MarshalIndent(struct {
			Kept   bool   `json:"kept"`
			Output string `json:"output"`
		}{true, out}, "", "  ")
		if err == nil {
			_, err = fmt.Fprintln(g.stdout, string(b))
		}
		return true, err
	}
	_, err = fmt.Fprintf(g.stdout, "kept %s: it holds the same %s ingested with the options given (--keep-current); delete it, or drop --keep-current, to ingest again\n",
		out, plural(int64(len(inputs)), "input"))
	return true, err
}
