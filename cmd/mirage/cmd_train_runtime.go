package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/train/jobruntime"
)

// runtimeSummary is the JSON of `mirage train --model runtime`.
type runtimeSummary struct {
	Model      string               `json:"model"`
	Approach   string               `json:"approach"`
	Output     string               `json:"output"`
	TrainRows  int                  `json:"train_rows"`
	ValidRows  int                  `json:"validation_rows"`
	WallSec    float64              `json:"wall_sec"`
	CV         []jobruntime.Figures `json:"cv"`
	Validation []jobruntime.Figures `json:"validation,omitempty"`
}

// runtimeProtocols returns the training protocol and the validation one
// (nil: none) of --study or --protocol (with --start, --windows and
// --interval applied to the training period). With --protocol NAME the
// validation protocol is NAME-val when that preset exists.
func runtimeProtocols(c TrainConfig) (tp features.Protocol, vp *features.Protocol, err error) {
	fc := FeaturesConfig{Protocol: c.Protocol, Study: c.Study, Period: "train", Start: c.Start, Windows: c.Windows, Interval: c.Interval}
	if tp, err = featuresProtocol(fc); err != nil {
		return tp, nil, err
	}
	var v features.Protocol
	if c.Study != "" {
		fc.Period, fc.Start, fc.Windows, fc.Interval = "validation", "", 0, 0
		if v, err = featuresProtocol(fc); err == nil {
			vp = &v
		}
	} else if v, err = features.LookupProtocol(c.Protocol + "-val"); err == nil {
		vp = &v
	}
	return tp, vp, nil
}

// runTrainRuntime trains the run-time model (jobruntime.Train).
func runTrainRuntime(cmd *cobra.Command, g *globalOptions, c TrainConfig) error {
	if c.Trace == "" || (c.Protocol == "" && c.Study == "") || c.Output == "" {
		return usagef("train --model runtime: --trace, --study (or --protocol) and -o are required")
	}
	if err := checkOutput("train -o", c.Output, outputDir, jobruntime.ArtifactFiles...); err != nil {
		return err
	}
	if err := checkStudyTrace(c.Study, c.Trace); err != nil {
		return err
	}
	began := time.Now()
	tp, vp, err := runtimeProtocols(c)
	if err != nil {
		return err
	}
	p := jobruntime.DefaultParams()
	p.Seed, p.Threads = c.Seed, c.Threads
	res, err := jobruntime.TrainTrace(cmd.Context(), c.Trace, c.Output, tp, vp, jobruntime.Options{K: c.CV, Params: p, Version: version, Logger: g.log()})
	if err != nil {
		return err
	}
	m := res.Metrics
	s := runtimeSummary{Model: jobruntime.Kind, Approach: m.Approach, Output: c.Output, TrainRows: m.TrainRows, ValidRows: m.ValidRows,
		WallSec: time.Since(began).Seconds(), CV: m.CV, Validation: m.Validation}
	if g.cfg.JSON {
		b, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(g.stdout, string(b))
		return err
	}
	fmt.Fprintf(g.stdout, "runtime: %d training jobs, approach %s (%s), %.1f s\n", m.TrainRows, m.Approach, m.Choice, s.WallSec)
	writeRuntimeFigures(g, fmt.Sprintf("cv (%d folds)", m.K), m.CV)
	if len(m.Validation) > 0 {
		writeRuntimeFigures(g, fmt.Sprintf("validation (%d jobs)", m.ValidRows), m.Validation)
	}
	_, err = fmt.Fprintf(g.stdout, "wrote %s\n", c.Output)
	return err
}

func writeRuntimeFigures(g *globalOptions, title string, fs []jobruntime.Figures) {
	fmt.Fprintf(g.stdout, "%s:\n  %-14s %8s %10s %24s %10s\n", title, "predictor", "MAE h", "within 2x", "coverage 10/50/90", "cal. err")
	for _, f := range fs {
		cal := "-"
		if !f.PointOnly {
			cal = fmt.Sprintf("%.4f", f.CalibrationError)
		}
		fmt.Fprintf(g.stdout, "  %-14s %8.3f %9.1f%% %8.3f/%.3f/%.3f %10s\n", f.Predictor, f.MAEH, 100*f.Within2x,
			f.Coverage[0], f.Coverage[1], f.Coverage[2], cal)
	}
}
