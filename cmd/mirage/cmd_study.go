package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mirage-hpc/mirage/pipelines"
)

func newStudyCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "study",
		Short:   "Study files: one description of a cluster and an experiment for every stage",
		GroupID: "sim",
	}
	cmd.AddCommand(newStudyShowCommand(g))
	return cmd
}

func newStudyShowCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "show NAME|FILE",
		Short: "Print a study (built in, or a YAML, JSON or TOML file), checked",
		Long: `Print a study as YAML (as JSON with --json) after checking every field: a
built-in study (` + strings.Join(pipelines.BuiltinNames(), ", ") + `) or a study file (.yaml, .yml,
.json, .toml; fields in pipelines/docs/study.md). features build and evaluate
take one with --study NAME|FILE and --period train|validation.

` + exitCodesHelp,
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
	if err := s.CheckTrace(tracePath); err != nil {
		if errors.Is(err, pipelines.ErrStudy) {
			return usageError{err}
		}
		return err
	}
	return nil
}
