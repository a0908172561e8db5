package main

import (
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/mirage-hpc/mirage/pipelines"
)

func newPipelineCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "pipeline",
		Short:   "Run a study's stages, cached: only what changed reruns",
		GroupID: "sim",
	}
	cmd.AddCommand(newPipelineRunCommand(g, false), newPipelineRunCommand(g, true))
	return cmd
}

func newPipelineRunCommand(g *globalOptions, status bool) *cobra.Command {
	use, short := "run STUDY [--trace T.parquet] -o OUT", "Run a study's stages (features, models, evaluate, report), each only when its inputs changed"
	if status {
		use, short = "status STUDY [--trace T.parquet] -o OUT", "Say which of a study's stages are fresh and which would run"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long: short + `.

STUDY is a built-in study or a study file (mirage study show, study init). The stages:
ingest (of the study's trace.inputs, relative to the study file, when --trace is not
given), features-train (the training period's samples), train-KIND[-TARGET] for each of the
study's models (forest, xgboost, estimate, estimate-rt), evaluate (the study's
policies and the models on the validation period) and report. Each stage's key is the
sha256 of its name, mirage's version, its part of the study and its inputs' keys; its
outputs go to OUT/stages/STAGE-KEY/ with a meta.json (inputs, outputs' sha256,
seconds) written last, so a stage killed midway is redone and a finished one is never
run twice.

` + exitCodesHelp,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			f := cmd.Flags()
			tracePath, _ := f.GetString("trace")
			out, _ := f.GetString("output")
			workers, _ := f.GetInt("workers")
			jobs, _ := f.GetInt("jobs")
			force, _ := f.GetStringSlice("force")
			if out == "" {
				return usagef("pipeline: -o is required")
			}
			s, err := resolveStudy(args[0])
			if err != nil {
				return err
			}
			if workers <= 0 {
				workers = runtime.GOMAXPROCS(0)
			}
			res, err := pipelines.Run(cmd.Context(), s, pipelines.RunOptions{Trace: tracePath, Out: out, Version: version,
				Workers: workers, Jobs: jobs, Force: force, DryRun: status, Logger: g.log()})
			if err != nil {
				return studyError(err)
			}
			if g.cfg.JSON {
				b, err := json.MarshalIndent(res, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintln(g.stdout, string(b))
				return err
			}
			for _, r := range res {
				state := "ran"
				switch {
				case r.Cached:
					state = "cached"
				case status:
					state = "stale"
				}
				fmt.Fprintf(g.stdout, "%-24s %-6s %s\n", r.Name, state, r.Dir)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.String("trace", "", "trace file (Parquet, from mirage ingest, in the study's zone); empty: an ingest stage reads the study's trace.inputs")
	f.StringP("output", "o", "", "output directory; required")
	f.Int("workers", 0, "windows simulated at once (0 = GOMAXPROCS); the outputs do not depend on it")
	f.Int("jobs", 1, "independent stages (the models) run at once; the outputs do not depend on it")
	if !status {
		f.StringSlice("force", nil, "stages to run even when cached, e.g. evaluate,report")
	}
	return cmd
}
