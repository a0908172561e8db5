package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/mirage-hpc/mirage/pipelines"
)

func newPipelineCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "pipeline",
		Short:   "Run a study's stages, cached: only what changed reruns",
		GroupID: "sim",
	}
	cmd.AddCommand(newPipelineRunCommand(g, false), newPipelineRunCommand(g, true), newPipelineRunStageCommand(g))
	return cmd
}

func newPipelineRunCommand(g *globalOptions, status bool) *cobra.Command {
	use, short := "run STUDY [--trace T.parquet] -o OUT", "Run a study's stages (features, models, evaluate, report), each only when its inputs changed"
	if status {
		use, short = "status STUDY [--trace T.parquet] -o OUT", "Say which of a study's stages are fresh and which would run"
	}
	long := short + `.

STUDY is a built-in study or a study file (mirage study show, study init). The stages:
ingest (of the study's trace.inputs, relative to the study file, or of the synthetic
trace its trace.synth describes, when --trace is not given), features-train (the
training period's samples), train-KIND[-TARGET] for each of the study's models (forest,
xgboost, estimate, estimate-rt on those samples; dqn in the simulator on the training
period's windows), with predictions: true features-validation (the validation period's
samples) and predict-KIND-r for each model of r, evaluate (the study's policies and the
models on the validation period; with sweep: true each model's parameter sweep too) and
report, whose report.html path run prints last. Each stage's key is the
sha256 of its name, mirage's version, its part of the study and its inputs' keys; its
outputs go to OUT/stages/STAGE-KEY/ with a meta.json (inputs, outputs' sha256 and
sizes, seconds) written last, so a stage killed midway is redone and a finished one is
never run twice. A finished stage is a cache hit only when its directory holds exactly
the outputs its meta.json lists, each of its size and, when its stat (size, mtime; on
Linux also ctime and inode) changed since it was last checked (with --verify, always),
of its sha256; a damaged stage is redone (status: "damaged"), and the run says why.
One pipeline run of OUT at a time: a second one fails at once with a lock error
(exit 1) naming the holder's PID and OUT/.pipeline.lock.

--executor slurm submits each stale stage as an sbatch job (pipeline run-stage) after
the jobs of the stages it reads (--dependency=afterok), with the study's slurm section
(partition, account, time limits, cpus, GPUs; with slurm.shards N, features-train and
evaluate as a job array of N tasks then a merge job); OUT must be on a file system every
node sees. run returns once they are submitted; pipeline status shows each job's state and,
for a failed one, its log. A rerun submits only the stages neither finished nor still
queued.`
	if status {
		long = short + `: it runs nothing and writes nothing.

STUDY, --trace and -o are those of the pipeline run to look at. For each stage, in
the order run takes them, status prints its name, its state and its directory
(OUT/stages/STAGE-KEY): cached (finished, its outputs as its meta.json lists them;
with --verify each output's sha256 is checked too, else only those whose stat
changed), stale (run would run it: never run, or its inputs changed), damaged (run
would redo it, and the line says why: a missing, resized or changed output); a stage
whose inputs are not built yet has no key, so no directory. For stages that
pipeline run --executor slurm submitted, the line adds the job's id and state and,
for a failed one, its log. With --json the same as a summary object. The verdict
of a finished report stage follows the stages.`
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long:  long,
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			f := cmd.Flags()
			tracePath, _ := f.GetString("trace")
			out, _ := f.GetString("output")
			workers, _ := f.GetInt("workers") // run's flags: zero values under status
			jobs, _ := f.GetInt("jobs")
			force, _ := f.GetStringSlice("force")
			executor, _ := f.GetString("executor")
			verify, _ := f.GetBool("verify")
			if out == "" {
				return usagef("pipeline: -o is required")
			}
			if !status {
				if err := checkOutput("pipeline run -o", out, outputIntoDir); err != nil {
					return err
				}
			}
			slurm, err := pipelines.NewSlurmExecutor(os.Args[0], nil)
			if err != nil {
				return err
			}
			if exe, err := os.Executable(); err == nil {
				slurm.Binary = exe
			}
			var exec pipelines.Executor
			switch executor {
			case "", "local":
			case "slurm":
				exec = slurm
				for _, p := range [][2]string{{"-o", out}, {"--trace", tracePath}} {
					if err := pipelines.CheckSlurmPath("pipeline run --executor slurm: "+p[0], p[1]); err != nil {
						return usageError{err}
					}
				}
			default:
				return usagef("pipeline: --executor %q: want local or slurm", executor)
			}
			s, err := resolveStudy(args[0])
			if err != nil {
				return err
			}
			if workers <= 0 {
				workers = runtime.GOMAXPROCS(0)
			}
			var bar *progressBar
			var progress func(stage, unit string, done, total int)
			if !status {
				mode, _ := f.GetString("progress")
				bar = newProgressBar(g.stderr, mode, g.cfg.JSON)
				progress = stagesProgress(bar)
			}
			res, err := pipelines.Run(cmd.Context(), s, pipelines.RunOptions{Trace: tracePath, Out: out, Version: version,
				Workers: workers, Jobs: jobs, Force: force, DryRun: status, Verify: verify, Executor: exec, Logger: g.log(),
				Progress: progress})
			if bar != nil {
				bar.finish()
			}
			if err != nil {
				return err
			}
			if status { // the jobs the Slurm executor submitted, if any
				if err := slurm.Jobs(cmd.Context(), out, res); err != nil {
					return err
				}
			}
			if g.cfg.JSON {
				b, err := json.MarshalIndent(pipelines.Summarise(res), "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintln(g.stdout, string(b))
				return err
			}
			for _, r := range res {
				fmt.Fprintln(g.stdout, stageLine(r, status))
			}
			writeVerdict(g.stdout, pipelines.Summarise(res).Grounds)
			if html := reportPath(res); html != "" && !status && exec == nil {
				fmt.Fprintln(g.stdout, html)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.String("trace", "", "trace file (Parquet, from mirage ingest, in the study's zone); empty: an ingest stage reads (or, with trace.synth, generates) the study's trace")
	f.StringP("output", "o", "", "output directory; required")
	f.Bool("verify", false, "hash every cached output against its stage's meta.json (default: only those whose stat changed)")
	if !status {
		f.Int("workers", 0, "windows simulated at once (0 = GOMAXPROCS); the outputs do not depend on it")
		f.Int("jobs", 1, "independent stages (the models) run at once; the outputs do not depend on it")
		f.StringSlice("force", nil, "stages to run even when cached, e.g. evaluate,report")
		addProgressFlag(f)
		f.String("executor", "local", "where stale stages run: local (here) or slurm (one sbatch job each, after the jobs of the stages it reads)")
	}
	return cmd
}

// reportPath is the report.html of a run's finished report stage, or ""
// when it has none.
func reportPath(res []pipelines.StageResult) string {
	for _, r := range res {
		if r.Name == "report" && r.Dir != "" && r.Job == nil {
			return filepath.Join(r.Dir, "report.html")
		}
	}
	return ""
}

// stageLine is one stage's line of pipeline run and status: name, state
// (cached, ran, stale, damaged, submitted, queued), directory, why a
// damaged stage was not a cache hit and, for a Slurm job, its id, state
// and (failed) log.
func stageLine(r pipelines.StageResult, status bool) string {
	state := "ran"
	switch {
	case r.Cached:
		state = "cached"
	case r.Job != nil && !status && r.Job.Reused:
		state = "queued"
	case r.Job != nil && !status:
		state = "submitted"
	case status && r.Damaged != "":
		state = "damaged"
	case status:
		state = "stale"
	}
	dir := r.Dir
	if dir == "" {
		dir = "(key known once its inputs are built)"
	}
	line := fmt.Sprintf("%-24s %-9s %s", r.Name, state, dir)
	switch {
	case r.Damaged != "" && status:
		line += "  (" + r.Damaged + ")"
	case r.Damaged != "":
		line += "  (redone: " + r.Damaged + ")"
	}
	if j := r.Job; j != nil && !r.Cached {
		line += "  slurm job " + j.ID
		if j.State != "" {
			line += " " + j.State
		}
		if j.Reason != "" {
			line += " (" + j.Reason + ")"
		}
		if j.ExitCode != nil && *j.ExitCode != 0 {
			line += fmt.Sprintf(" exit %d", *j.ExitCode)
		}
		if j.State != "" && !j.Active() && j.State != "COMPLETED" {
			line += ", log " + j.Log
		}
		if a := j.Shards; a != nil {
			line += "; shards: array job " + a.ID
			if a.State != "" {
				line += " " + a.State
			}
			if a.State != "" && !a.Active() && a.State != "COMPLETED" {
				line += ", logs " + a.Log
			}
		}
	}
	return line
}

// newPipelineRunStageCommand is what a Slurm job of a stage runs: that
// stage alone, in the shared cache (hidden: pipeline run --executor slurm
// writes it into the batch scripts).
func newPipelineRunStageCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:    "run-stage STAGE STUDY -o OUT [--trace T.parquet] --key-version V",
		Short:  "Run one stage of a study (what a Slurm job of pipeline run --executor slurm runs)",
		Hidden: true,
		Args:   usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			f := cmd.Flags()
			tracePath, _ := f.GetString("trace")
			out, _ := f.GetString("output")
			workers, _ := f.GetInt("workers")
			force, _ := f.GetStringSlice("force")
			keyVersion, _ := f.GetString("key-version")
			shards, _ := f.GetInt("shards")
			shard, _ := f.GetInt("shard")
			merge, _ := f.GetBool("merge")
			verify, _ := f.GetBool("verify")
			if out == "" {
				return usagef("pipeline run-stage: -o is required")
			}
			if err := checkOutput("pipeline run-stage -o", out, outputIntoDir); err != nil {
				return err
			}
			s, err := resolveStudy(args[1])
			if err != nil {
				return err
			}
			if workers <= 0 {
				workers = runtime.GOMAXPROCS(0)
			}
			res, err := pipelines.Run(cmd.Context(), s, pipelines.RunOptions{Trace: tracePath, Out: out, Version: keyVersion,
				Workers: workers, Force: force, Only: args[0], Shards: shards, Shard: shard, Merge: merge, Verify: verify, Logger: g.log()})
			if err != nil {
				return err
			}
			for _, r := range res {
				if r.Name == args[0] {
					fmt.Fprintln(g.stdout, stageLine(r, false))
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.String("trace", "", "trace file (Parquet); empty: the study's ingest stage")
	f.StringP("output", "o", "", "output directory; required")
	f.Int("workers", 0, "windows simulated at once (0 = GOMAXPROCS)")
	f.StringSlice("force", nil, "run the stage even when cached")
	f.String("key-version", version, "the mirage version in the stage keys (the submitter's)")
	f.Int("shards", 0, "run a sharded stage (features-train, evaluate) in this many shards: --shard I runs one, --merge merges them")
	f.Int("shard", 0, "the shard to run, 0-based (with --shards)")
	f.Bool("merge", false, "make the stage from its finished shards (with --shards)")
	f.Bool("verify", false, "hash every cached output against its stage's meta.json")
	return cmd
}

// stagesProgress draws pipelines.RunOptions.Progress on bar: the stages
// running, each with its count and the time it has left at its rate
// since its first report ("features-train 20/300 windows, ETA 4m10s";
// stages run at once with --jobs share the line).
func stagesProgress(bar *progressBar) func(stage, unit string, done, total int) {
	if !bar.on {
		return nil
	}
	var mu sync.Mutex
	type count struct {
		unit        string
		done, total int
		first       int       // done at the first report
		at          time.Time // the first report
	}
	running := map[string]count{}
	return func(stage, unit string, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		c, seen := running[stage]
		if !seen {
			c = count{first: done, at: time.Now()}
		}
		c.unit, c.done, c.total = unit, done, total
		if done >= total {
			delete(running, stage)
		} else {
			running[stage] = c
		}
		names := slices.Sorted(maps.Keys(running))
		if len(names) == 0 {
			bar.set("%s: %d/%d %s done, finishing", stage, done, total, unit)
			return
		}
		parts := make([]string, len(names))
		for i, n := range names {
			c := running[n]
			parts[i] = fmt.Sprintf("%s %d/%d %s", n, c.done, c.total, c.unit)
			if c.done > c.first {
				rate := float64(time.Since(c.at)) / float64(c.done-c.first)
				parts[i] += ", ETA " + time.Duration(rate*float64(c.total-c.done)).Round(time.Second).String()
			}
		}
		bar.set("%s", strings.Join(parts, "; "))
	}
}
