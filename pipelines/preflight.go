package pipelines

import (
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/internal/digest"
)

// checked is what Run's pre-flight found, before any work: the inputs'
// keys and the study's resolved parts the stages read.
type checked struct {
	// inputKeys are the sha256 of the study's trace.inputs (without
	// RunOptions.Trace), the ingest stage's inputs.
	inputKeys []string
	// dirInputs are the evaluation's inputs from the study's policies
	// that name model directories (policyInputs).
	dirInputs []string
	// rt is the study's features.runtime_model, nil for none.
	rt *runtimeModel
	// trainP and valP are the protocols of the training and validation
	// periods.
	trainP, valP features.Protocol
}

// preflight checks the study and the run's options before any work and
// fills o's defaults (a discarding logger, one worker): the study
// validates, a trace and an output are given, the trace's zone is the
// study's, the inputs, the policies' model directories and the run-time
// model can be read, and the training period makes the tree models'
// cross-validation folds. Its errors wrap ErrStudy where the study is to
// blame.
func preflight(s *Study, o *RunOptions) (checked, error) {
	var c checked
	if err := s.Validate(); err != nil {
		return c, err
	}
	if (o.Trace == "" && len(s.Trace.Inputs) == 0 && s.Trace.Synth == nil) || o.Out == "" {
		return c, fmt.Errorf("%w: pipeline: a trace (or the study's trace.inputs or trace.synth) and an output directory are required", ErrStudy)
	}
	if o.Trace != "" {
		if err := s.CheckTrace(o.Trace); err != nil {
			return c, err
		}
	}
	if o.Trace == "" {
		for _, in := range s.InputPaths() {
			h, err := digest.File(in)
			if err != nil {
				return c, fmt.Errorf("%w: trace.inputs: %w", ErrStudy, err)
			}
			c.inputKeys = append(c.inputKeys, h)
		}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Workers <= 0 {
		o.Workers = 1
	}
	if len(s.Policies) > 0 { // their names: Validate
		if _, err := evaluate.ParsePolicies(strings.Join(s.Policies, ","), nil, 0); err != nil {
			return c, fmt.Errorf("%w: policies: %w", ErrStudy, err)
		}
		var err error
		if c.dirInputs, err = policyInputs(s.Policies); err != nil {
			return c, err
		}
	}
	var err error
	if c.rt, err = s.resolveRuntimeModel(); err != nil {
		return c, err
	}
	if c.trainP, c.valP, err = s.Protocols(); err != nil {
		return c, err
	}
	if slices.ContainsFunc(s.Models, func(m ModelSpec) bool { return m.Kind == "forest" || m.Kind == "xgboost" }) {
		if err := checkFolds(c.trainP, cvFolds(s.Budget)); err != nil { // the tree models' cross-validation
			return c, err
		}
	}
	return c, nil
}
