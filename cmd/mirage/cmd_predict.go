package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/mirage-hpc/mirage/train"
)

func newPredictCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "predict --model DIR --samples S.parquet -o P.parquet",
		Short: "Predict r (hours) for a samples table with a trained model (pure Go, no libxgboost)",
		Long: `Load a forest or xgboost model directory written by mirage train (checking its
seal: the manifest's own sha256 and every file's size and sha256), check that the samples table has exactly the model's features,
in order, and feature schema version, and that its q_est_model_start_minus_p_end_sec
column (features build --runtime-model) comes from the run-time model the model was
trained with (by SHA-256), and write P.parquet with the columns
window_id, chain_nodes, probe_time, label_r_sec (when the samples have labels) and
predicted_r_hours. Prediction uses the pure-Go evaluator of the XGBoost JSON model;
a NaN or infinite prediction is a bad model (exit 2), and another kind of model
directory (estimate, dqn, runtime, forecast) is refused (exit 2) naming the commands
that take it.`,
		Args:        usageArgs(cobra.NoArgs),
		Annotations: map[string]string{configSection: "predict"},
		GroupID:     "models",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPredict(cmd, g)
		},
	}
	f := cmd.Flags()
	f.String("model", "", "model directory (from mirage train); required")
	f.String("samples", "", "samples file (Parquet, from mirage features build); required")
	f.StringP("output", "o", "", "output predictions file (Parquet); required")
	return cmd
}

// predictSummary is the JSON of `mirage predict`.
type predictSummary struct {
	Model      string  `json:"model"`
	Kind       string  `json:"kind"`
	Output     string  `json:"output"`
	Rows       int     `json:"rows"`
	WallSec    float64 `json:"wall_sec"`
	RowsPerSec float64 `json:"rows_per_sec"` // over the whole call: reading, predicting, writing
	// MAEH is the mean absolute error in hours when the samples have labels.
	MAEH *float64 `json:"mae_h,omitempty"`
}

func runPredict(cmd *cobra.Command, g *globalOptions) error {
	c := g.cfg.Predict
	if c.Model == "" || c.Samples == "" || c.Output == "" {
		return usagef("predict: --model, --samples and -o are required")
	}
	if err := checkOutput("predict -o", c.Output, outputFile); err != nil {
		return err
	}
	began := time.Now()
	a, err := train.OpenPredictor(c.Model)
	if err != nil {
		return fmt.Errorf("predict: --model: %w", err)
	}
	ps, err := train.PredictFile(cmd.Context(), a, c.Model, c.Samples, c.Output)
	if err != nil {
		return err
	}
	sum := predictSummary{Model: c.Model, Kind: ps.Kind, Output: c.Output, Rows: ps.Rows, MAEH: ps.MAEH,
		WallSec: time.Since(began).Seconds()}
	if sum.WallSec > 0 {
		sum.RowsPerSec = float64(sum.Rows) / sum.WallSec
	}
	if g.cfg.JSON {
		b, err := json.MarshalIndent(sum, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(g.stdout, string(b))
		return err
	}
	fmt.Fprintf(g.stdout, "%s (%s): %d rows in %.2f s\n", c.Model, sum.Kind, sum.Rows, sum.WallSec)
	if sum.MAEH != nil {
		fmt.Fprintf(g.stdout, "MAE %.2f h against label_r_sec\n", *sum.MAEH)
	}
	fmt.Fprintf(g.stdout, "wrote %s\n", c.Output)
	return nil
}
