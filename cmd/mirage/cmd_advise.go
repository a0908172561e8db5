package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mirage-hpc/mirage/advise"
)

func newAdviseCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "advise --model DIR --job P_JOBID [--successor FILE.sbatch] [--watch] [--submit]",
		Short: "Decide on a live Slurm cluster whether to submit a running job's successor now",
		Long: `Load a model directory written by mirage train (forest, xgboost, dqn or estimate;
its digest and feature schema are checked), read the live queue (squeue --json, or a
fixed squeue --format where --json is missing), the last 25 h of sacct and sinfo,
rebuild the simulator's view of the queue and compute the same features the model
was trained on (package advise), and print the decision: submit the successor Q now
or wait, the model's score and the operating point it was trained for, and when to
ask again (the next 10-minute decision time from P's submission).

A model trained on samples built with --runtime-model (its features end with
q_est_model_start_minus_p_end_sec) needs that run-time model where its manifest
says, with the same model file SHA-256 (else exit 2, naming the directory and both
digests): its median run times of the running and pending jobs, predicted from what
sacct and squeue show now (sacct then also reads job names, accounts, QOS, CPUs and
GPUs, tab-separated), plan the scheduler's estimate of Q's start for that column.

--watch decides again at every decision time (or every --interval) until the
decision is to submit; --submit then runs sbatch on the --successor script (with
--dependency=afterany:P when --dependency is set, --time-min when --time-min is
set; --name sets Q's job name) and prints Q's job ID; --dry-run prints the sbatch
command instead. With --time-min every decision also prints Q's sbatch line (with
its --dependency and --time-min) to run when the decision is to submit. Commands run with
argv, never through a shell. Every decision is written as one JSON line to --audit
(time, features digest, score, decision). SIGINT or SIGTERM stops cleanly (exit 130).`,
		Args:    usageArgs(cobra.NoArgs),
		GroupID: "models",
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := adviseFlags(cmd, g)
			if err != nil {
				return err
			}
			return runAdvise(cmd.Context(), g, o, advise.ExecRunner{}, nil)
		},
	}
	f := cmd.Flags()
	f.String("model", "", "model directory (from mirage train); required")
	f.String("job", "", "job ID of the running (or pending) predecessor P; required")
	f.String("successor", "", "the successor's batch script (for --submit)")
	f.String("name", "", "job name of Q for sbatch --job-name (empty = the script's)")
	f.Bool("watch", false, "decide at every decision time until the decision is to submit")
	f.Duration("interval", 0, "with --watch: time between decisions (0 = the model's decision grid, 10 minutes)")
	f.Bool("submit", false, "submit Q with sbatch when the decision is to submit")
	f.Bool("dependency", false, "submit Q with --dependency=afterany:P")
	f.Duration("time-min", 0, "submit Q with sbatch --time-min of this duration (e.g. 6h): the scheduler may start it earlier under a shorter limit; every decision then prints Q's sbatch line (0 = none)")
	f.Bool("dry-run", false, "print the sbatch command instead of running it")
	f.String("partition", "", "partition whose nodes sinfo counts and whose jobs form the queue (empty = P's jobs' partition, every node)")
	f.String("tz", "", "zone of the times squeue --format and sacct print (empty = local)")
	f.String("audit", "-", "file to append every decision to as a JSON line (- = stderr, empty = none)")
	return cmd
}

// adviseOptions are the flags of mirage advise.
type adviseOptions struct {
	Model, Job, Successor, Name, Partition, Audit string
	Watch, Submit, Dependency, DryRun, JSON       bool
	Interval, TimeMin                             time.Duration
	Location                                      *time.Location
}

func adviseFlags(cmd *cobra.Command, g *globalOptions) (adviseOptions, error) {
	f := cmd.Flags()
	var o adviseOptions
	o.Model, _ = f.GetString("model")
	o.Job, _ = f.GetString("job")
	o.Successor, _ = f.GetString("successor")
	o.Name, _ = f.GetString("name")
	o.Partition, _ = f.GetString("partition")
	o.Audit, _ = f.GetString("audit")
	o.Watch, _ = f.GetBool("watch")
	o.Submit, _ = f.GetBool("submit")
	o.Dependency, _ = f.GetBool("dependency")
	o.DryRun, _ = f.GetBool("dry-run")
	o.Interval, _ = f.GetDuration("interval")
	o.TimeMin, _ = f.GetDuration("time-min")
	if o.TimeMin < 0 || o.TimeMin%time.Second != 0 {
		return o, usagef("advise: --time-min %s: want a whole number of seconds >= 0", o.TimeMin)
	}
	o.JSON = g.cfg.JSON
	tz, _ := f.GetString("tz")
	if tz != "" {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			return o, usagef("advise: --tz %q: %v", tz, err)
		}
		o.Location = loc
	}
	if o.Model == "" || o.Job == "" {
		return o, usagef("advise: --model and --job are required")
	}
	if (o.Submit || o.DryRun) && o.Successor == "" {
		return o, usagef("advise: --submit and --dry-run need --successor FILE.sbatch")
	}
	if o.Audit != "" && o.Audit != "-" {
		if err := checkOutput("advise --audit", o.Audit, outputAppend); err != nil {
			return o, err
		}
	}
	return o, nil
}

// adviseResult is one line of `mirage advise --json`.
type adviseResult struct {
	Decision advise.Decision `json:"decision"`
	// Submitted is Q's job ID after --submit; Command the sbatch argv
	// (run, or with --dry-run only shown).
	Submitted string   `json:"submitted_job,omitempty"`
	Command   []string `json:"command,omitempty"`
	DryRun    bool     `json:"dry_run,omitempty"`
	// Sbatch is, with --time-min, the sbatch line for Q (its dependency
	// and time-min) that a user would run when the decision is to submit.
	Sbatch []string `json:"sbatch,omitempty"`
}

// runAdvise runs mirage advise with commands run by r; now, when not nil,
// replaces the clock (tests).
func runAdvise(ctx context.Context, g *globalOptions, o adviseOptions, r advise.Runner, now func() time.Time) error {
	m, err := advise.Open(o.Model)
	if err != nil {
		return err
	}
	src := &advise.SlurmSource{Runner: r, Partition: o.Partition, Location: o.Location, Clock: now, Logger: g.log(),
		RuntimeFields: m.Info().RuntimeModel != ""}
	a := advise.New(m, src)
	a.Live.Partition = o.Partition
	a.Logger = g.log()
	if o.Audit != "" {
		w, closeFn, err := openAudit(o.Audit, g.stderr)
		if err != nil {
			return err
		}
		defer closeFn()
		a.Audit = w
	}
	so := advise.SubmitOptions{Script: o.Successor, Name: o.Name, DryRun: o.DryRun, TimeMinSec: int64(o.TimeMin / time.Second)}
	if o.Dependency {
		so.AfterJob = o.Job
	}
	var line []string // with --time-min: Q's sbatch line
	if so.TimeMinSec > 0 {
		lo := so
		if lo.Script == "" {
			lo.Script = "Q.sbatch"
		}
		line = append([]string{"sbatch"}, advise.SbatchArgs(lo)[1:]...) // without --parsable
	}
	var emitErr error
	show := func(d advise.Decision) {
		if emitErr == nil && (!d.Submit || !(o.Submit || o.DryRun)) {
			emitErr = emitDecision(g.stdout, o.JSON, adviseResult{Decision: d, Sbatch: line})
		}
	}
	var d advise.Decision
	if o.Watch {
		d, err = a.Watch(ctx, o.Job, o.Interval, show, nil)
	} else if d, err = a.Decide(ctx, o.Job); err == nil {
		show(d)
	}
	if err == nil {
		err = emitErr
	}
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(g.stderr, "advise: stopped")
		}
		return err
	}
	if !d.Submit || !(o.Submit || o.DryRun) {
		return nil
	}
	id, argv, err := advise.Submit(ctx, r, so)
	if err != nil {
		return err
	}
	return emitDecision(g.stdout, o.JSON, adviseResult{Decision: d, Submitted: id, Command: argv, DryRun: o.DryRun})
}

// shellLine writes argv as a line to paste in a shell: each argument
// that holds anything but letters, digits and -_=:./,+@% single-quoted.
func shellLine(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		plain := a != ""
		for _, c := range a {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_=:./,+@%", c)) {
				plain = false
				break
			}
		}
		if plain {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

func openAudit(path string, stderr io.Writer) (io.Writer, func(), error) {
	if path == "-" {
		return stderr, func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("advise: audit log: %w", err)
	}
	return f, func() { f.Close() }, nil
}

// emitDecision prints one decision: a JSON line, or a few lines of text.
func emitDecision(w io.Writer, asJSON bool, r adviseResult) error {
	if asJSON {
		b, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("advise: decision: %w", err)
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	d := r.Decision
	t := func(u int64) string { return time.Unix(u, 0).UTC().Format(time.RFC3339) }
	fmt.Fprintf(w, "%s job %s: %s", t(d.Time), d.Job, strings.ToUpper(d.Action))
	if d.Reason == "p-ended" {
		fmt.Fprintf(w, " (P has left the queue: submit at once)\n")
	} else {
		s := d.Score
		cmp := "<"
		if s.Submit {
			cmp = ">="
		}
		fmt.Fprintf(w, " (%s model, %s: score %.4g %s threshold %.4g; %s = %.4g)\n", d.Model.Kind, d.Model.Target, s.Value, cmp, s.Threshold, s.ParamName, s.Param)
		state := "pending"
		if d.PStarted {
			state = "running"
		}
		fmt.Fprintf(w, "  P %s, expected end %s (%s left); queue: %d pending, %d running; features sha256 %.12s\n",
			state, t(d.PExpectedEndUnix), time.Duration(d.PRemainingSec)*time.Second, d.Pending, d.Running, d.FeaturesSHA256)
		if d.Model.OverlapBudgetH > 0 {
			fmt.Fprintf(w, "  operating point: %s (overlap budget %.3g h)\n", d.Model.Rule, d.Model.OverlapBudgetH)
		} else {
			fmt.Fprintf(w, "  rule: %s (the target's default parameter)\n", d.Model.Rule)
		}
	}
	if d.NextAsk > 0 {
		fmt.Fprintf(w, "  ask again at %s\n", t(d.NextAsk))
	}
	if len(r.Sbatch) > 0 {
		fmt.Fprintf(w, "  submit Q with: %s\n", shellLine(r.Sbatch))
	}
	switch {
	case r.DryRun:
		fmt.Fprintf(w, "  would run: %q\n", r.Command)
	case r.Submitted != "":
		fmt.Fprintf(w, "  submitted Q: job %s\n", r.Submitted)
	}
	return nil
}
