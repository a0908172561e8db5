package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/internal/atomicfile"
	"github.com/mirage-hpc/mirage/pipelines"
	"github.com/mirage-hpc/mirage/trace"
)

func newStudyCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "study",
		Short:   "Study files: one description of a cluster and an experiment for every stage",
		GroupID: "sim",
	}
	cmd.AddCommand(newStudyShowCommand(g), newStudyInitCommand(g))
	return cmd
}

func newStudyInitCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "init --trace T.parquet -o STUDY.yaml [--name NAME]",
		Short: "Propose a study for a trace, and say what it chose",
		Long: `Write a study for a Parquet trace (from mirage ingest) to edit and use with
--study: the zone from the trace's ingest metadata, the partition size from the
most nodes its jobs held at once, a training period over the first 70 % of its
submit span and a validation period one window after it (windows of 2 days of
warm-up and 5 days of workload every 4 hours), 1- and 8-node chains, warm windows
with inferred dependencies and capacity, the decision grid and a 1 h overlap
budget. --partition-nodes sets the partition size instead; --models-from copies
the models, policies, budget, sweep and predictions of another study (make run
TRACE=... takes the built-in synth study's). A trace whose dates are relative to
1970 (an SWF file without its start time) is refused: ingest it again with
--start-time. An existing -o file is kept unless --force.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStudyInit(cmd, g)
		},
	}
	f := cmd.Flags()
	f.String("trace", "", "trace file (Parquet, from mirage ingest); required")
	f.StringP("output", "o", "", "study file to write (.yaml); required")
	f.String("name", "", "the study's name (default: the trace file's, as ingest.TraceName makes it: X-2.1-b1 for X-2.1-b1.parquet)")
	f.Bool("force", false, "replace an existing -o file")
	f.Int("partition-nodes", 0, partitionNodesUsage+" (0 = the most nodes the trace's jobs held at once)")
	f.String("models-from", "", "a study (built-in name or file) whose models, policies, budget, sweep and predictions to copy, e.g. synth")
	return cmd
}

func runStudyInit(cmd *cobra.Command, g *globalOptions) error {
	f := cmd.Flags()
	tracePath, _ := f.GetString("trace")
	out, _ := f.GetString("output")
	name, _ := f.GetString("name")
	force, _ := f.GetBool("force")
	nodes, _ := f.GetInt("partition-nodes")
	modelsFrom, _ := f.GetString("models-from")
	if tracePath == "" || out == "" {
		return usagef("study init: --trace and -o are required")
	}
	if name == "" {
		name = ingest.TraceName(tracePath)
	}
	if err := checkOutput("study init -o", out, outputFile); err != nil {
		return err
	}
	if ext := strings.ToLower(filepath.Ext(out)); ext != ".yaml" && ext != ".yml" {
		return usagef("study init: -o %s: want a .yaml file", out)
	}
	if _, err := os.Stat(out); err == nil && !force {
		return usagef("study init: %s exists: edit it, or pass --force to replace it", out)
	}
	zone, err := pipelines.TraceZone(tracePath)
	if err != nil {
		return err
	}
	jobs, err := trace.ReadAll(tracePath)
	if err != nil {
		return err
	}
	po := pipelines.ProposeOptions{Name: name, Zone: zone, PartitionNodes: nodes}
	if modelsFrom != "" {
		if po.ModelsFrom, err = resolveStudy(modelsFrom); err != nil {
			return err
		}
	}
	p, err := pipelines.Propose(jobs, po)
	if err != nil && p != nil && p.Problem != "" {
		return writeProblemStudy(g, out, p, err)
	}
	if err != nil {
		return usageError{err}
	}
	b, err := p.Study.Marshal()
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(out, b); err != nil {
		return err
	}
	if g.cfg.JSON {
		js, err := json.MarshalIndent(struct {
			Output string           `json:"output"`
			Study  *pipelines.Study `json:"study"`
			Notes  []string         `json:"notes"`
		}{out, p.Study, p.Notes}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(g.stdout, string(js))
		return err
	}
	fmt.Fprintf(g.stdout, "wrote %s (edit it, then run it with mirage pipeline run %s, or pass --study %s to a stage):\n", out, out, out)
	for _, n := range p.Notes {
		fmt.Fprintf(g.stdout, "  %s\n", n)
	}
	return nil
}
func newStudyShowCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "show NAME|FILE",
		Short: "Print a study (built in, or a YAML, JSON or TOML file), checked",
		Long: `Print a study as YAML (as JSON with --json) after checking every field: a
built-in study (` + strings.Join(pipelines.BuiltinNames(), ", ") + `) or a study file (.yaml, .yml,
.json, .toml; fields in pipelines/docs/study.md). features build and evaluate
take one with --study NAME|FILE and --period train|validation.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := resolveStudy(args[0])
			if err != nil {
				return err
			}
			if g.cfg.JSON {
				b, err := json.MarshalIndent(s, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintln(g.stdout, string(b))
				return err
			}
			b, err := s.Marshal()
			if err != nil {
				return err
			}
			_, err = g.stdout.Write(b)
			return err
		},
	}
}

// resolveStudy loads a study; a bad study is a usage error (exit 3), as a
// bad configuration file is.
func resolveStudy(nameOrPath string) (*pipelines.Study, error) {
	s, err := pipelines.Resolve(nameOrPath)
	if err != nil {
		return nil, usageError{err}
	}
	return s, nil
}

// checkStudyTrace checks, when a study is given, that the trace was
// ingested in the study's zone (pipelines.Study.CheckTrace).
func checkStudyTrace(study, tracePath string) error {
	if study == "" {
		return nil
	}
	s, err := resolveStudy(study)
	if err != nil {
		return err
	}
	return s.CheckTrace(tracePath)
}

// writeProblemStudy writes a proposal that cannot run as it is (a trace
// too short for any window), its problem marked in a comment at the top
// and in the fields left at 0, so that it can be edited; it says what to
// edit and returns err.
func writeProblemStudy(g *globalOptions, out string, p *pipelines.Proposal, err error) error {
	b, merr := p.Study.Marshal()
	if merr != nil {
		return merr
	}
	var head strings.Builder
	head.WriteString("# PROBLEM (mirage study init): this study cannot run as written:\n")
	for _, line := range wrapWords(p.Problem, 76) {
		head.WriteString("#   " + line + "\n")
	}
	head.WriteString("# Edit it, delete these lines, and run it again (make run, or mirage pipeline run " + out + ").\n")
	if werr := atomicfile.WriteFile(out, append([]byte(head.String()), b...)); werr != nil {
		return werr
	}
	fmt.Fprintf(g.stderr, "study init: wrote %s with its problem marked: %s\n", out, p.Problem)
	return usageError{err}
}

// wrapWords breaks s into lines of at most width bytes at spaces.
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
