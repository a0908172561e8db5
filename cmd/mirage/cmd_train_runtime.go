package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/internal/digest"
	"github.com/mirage-hpc/mirage/trace"
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

// runtimePeriods returns the training and validation periods (Unix
// seconds) and zone of --study or --protocol (with --start, --windows and
// --interval applied to the training period). With --protocol NAME the
// validation period is NAME-val's when that preset exists.
func runtimePeriods(c TrainConfig) (tr, va [2]int64, zone string, err error) {
	fc := FeaturesConfig{Protocol: c.Protocol, Study: c.Study, Period: "train", Start: c.Start, Windows: c.Windows, Interval: c.Interval}
	tp, err := featuresProtocol(fc)
	if err != nil {
		return tr, va, "", err
	}
	if tr[0], tr[1], err = jobruntime.ProtocolPeriod(tp); err != nil {
		return tr, va, "", usageError{err}
	}
	var vp features.Protocol
	ok := false
	if c.Study != "" {
		fc.Period, fc.Start, fc.Windows, fc.Interval = "validation", "", 0, 0
		vp, err = featuresProtocol(fc)
		ok = err == nil
	} else if vp, err = features.LookupProtocol(c.Protocol + "-val"); err == nil {
		ok = true
	}
	if ok {
		if va[0], va[1], err = jobruntime.ProtocolPeriod(vp); err != nil {
			return tr, va, "", usageError{err}
		}
		tr[1] = min(tr[1], va[0]) // the training period ends where validation begins
	}
	return tr, va, tp.TZ, nil
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
	tr, va, zone, err := runtimePeriods(c)
	if err != nil {
		return err
	}
	jobs, err := trace.ReadAll(c.Trace)
	if err != nil {
		return err
	}
	sum, err := digest.File(c.Trace)
	if err != nil {
		return err
	}
	p := jobruntime.DefaultParams()
	p.Seed, p.Threads = c.Seed, c.Threads
	opts := jobruntime.Options{TrainFrom: tr[0], TrainTo: tr[1], ValidFrom: va[0], ValidTo: va[1], Zone: zone, K: c.CV,
		Params: p, Version: version, TraceDigest: sum, Logger: g.log()}
	res, err := jobruntime.Train(cmd.Context(), jobs, c.Output, opts)
	if errors.Is(err, jobruntime.ErrOptions) {
		return usageError{err}
	}
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
