package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/mirage-hpc/mirage/train"
)

func newTrainCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "train --model forest|xgboost --samples S.parquet -o DIR",
		Short: "Train a regressor of r (hours) with XGBoost, cross-validate over time and write a model directory",
		Long: `Read labelled samples (from mirage features build), cross-validate with time-blocked
folds over windows (a gap of one window span between training and test windows), fit
the final model on every sample, and write DIR/model.json (XGBoost JSON),
DIR/manifest.json and DIR/cv.json.

Models: forest (XGBoost random-forest mode, one round) and xgboost (boosted trees,
early stopping on the latest training windows).

` + exitCodesHelp,
		Args:        usageArgs(cobra.NoArgs),
		Annotations: map[string]string{configSection: "train"},
		GroupID:     "sim",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTrain(cmd, g)
		},
	}
	f := cmd.Flags()
	d := defaultConfig().Train
	f.String("model", d.Model, "model: forest or xgboost")
	f.String("samples", "", "samples file (Parquet, from mirage features build); required")
	f.StringP("output", "o", "", "output model directory; required")
	f.Int("cv", d.CV, "cross-validation folds (0 = none)")
	f.Int("threads", 0, "XGBoost threads (0 = its default)")
	f.Uint64("seed", d.Seed, "XGBoost seed")
	return cmd
}

// trainSummary is the JSON of `mirage train`.
type trainSummary struct {
	Model   string   `json:"model"`
	Output  string   `json:"output"`
	Rows    int      `json:"rows"`
	WallSec float64  `json:"wall_sec"`
	CV      *trainCV `json:"cv,omitempty"`
}

type trainCV struct {
	Folds        int     `json:"folds"`
	MAEH         float64 `json:"mae_h"`
	RMSEH        float64 `json:"rmse_h"`
	Within1H     float64 `json:"within_1h"`
	SignAccuracy float64 `json:"sign_accuracy"`
}

func runTrain(cmd *cobra.Command, g *globalOptions) error {
	c := g.cfg.Train
	if c.Samples == "" || c.Output == "" {
		return usagef("train: --samples and -o are required")
	}
	kind, err := train.ParseKind(c.Model)
	if err != nil {
		return usageError{err}
	}
	began := time.Now()
	s, meta, err := train.ReadSamples(cmd.Context(), c.Samples)
	if err != nil {
		return err
	}
	p := train.DefaultParams(kind)
	p.Seed, p.Threads = c.Seed, c.Threads
	opts := train.Options{Params: p, K: c.CV, Version: version}
	m, err := train.Run(cmd.Context(), s, meta, c.Output, opts)
	if err != nil {
		return err
	}
	sum := trainSummary{Model: m.Kind, Output: c.Output, Rows: m.Rows, WallSec: time.Since(began).Seconds()}
	if m.CV != nil {
		o := m.CV.Overall
		sum.CV = &trainCV{Folds: len(m.CV.Folds), MAEH: o.MAEH, RMSEH: o.RMSEH, Within1H: o.Within1H, SignAccuracy: o.SignAccuracy}
		for _, n := range m.ChainNodes {
			b := m.CV.ByChain[n]
			g.log().Info("cv", "model", m.Kind, "chain_nodes", n, "rows", b.Rows, "mae_h", b.MAEH, "rmse_h", b.RMSEH,
				"within_1h", b.Within1H, "sign_accuracy", b.SignAccuracy)
		}
	}
	if g.cfg.JSON {
		b, err := json.MarshalIndent(sum, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(g.stdout, string(b))
		return err
	}
	fmt.Fprintf(g.stdout, "%s: %d rows, %d rounds, %.1f s\n", m.Kind, m.Rows, m.Rounds, sum.WallSec)
	if sum.CV != nil {
		fmt.Fprintf(g.stdout, "cv (%d folds): MAE %.2f h, RMSE %.2f h, within 1 h %.1f%%, sign accuracy %.1f%%\n",
			sum.CV.Folds, sum.CV.MAEH, sum.CV.RMSEH, 100*sum.CV.Within1H, 100*sum.CV.SignAccuracy)
	}
	fmt.Fprintf(g.stdout, "wrote %s\n", c.Output)
	return nil
}
