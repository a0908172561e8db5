package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/internal/suggest"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/dqn"
)

func newTrainCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "train --model forest|xgboost|estimate|estimate-rt|fixed-lead --samples S.parquet -o DIR | --model dqn|runtime|forecast --trace T.parquet --protocol NAME -o DIR",
		Short: "Train a tree model of a target (r, interrupt, cliff, deadline, wait, stop), the estimate's margin, or a DQN, at an operating point chosen on training data",
		Long: `Read labelled samples (from mirage features build), cross-validate with time-blocked
folds over windows (a gap of one window span between training and test windows), fit
the final model on every sample, and write DIR/model.json (XGBoost JSON),
DIR/manifest.json and DIR/cv.json.

Models: forest (XGBoost random-forest mode, one round) and xgboost (boosted trees,
early stopping on the latest training windows), each of one --target (see
train/README.md: every target is one threshold rule with one parameter, θ, τ or a
margin). The out-of-fold predictions are replayed on the training windows and the
parameter with the largest interruption reduction at a mean overlap within
--overlap-budget is chosen per chain size (manifest.json's operating_point; evaluate
uses it). --model estimate learns nothing but that parameter for the scheduler's own
start estimate (squeue --start): DIR/manifest.json only, the policy slurm-estimate:DIR;
--model estimate-rt does the same for that estimate with predicted run times (each
job's user's recent run-time-to-limit ratio times its limit, sim.PredictRunTimes) in
place of time limits. --model fixed-lead chooses the lead of the fixed-lead baseline
(submit when P's remaining time to its expected end is at most the lead; sbatch
--dependency=after:P+N) the same way: the policy fixed-lead:DIR.
Samples labelled on the decision grid (features build --probes grid) make the replay
exact at every labelled time.

--model dqn trains a Deep Q-Network in the simulator instead: episodes are windows of
--protocol's training period on --trace (--start, --windows, --interval, --chain-nodes,
--mode and --partition-nodes change them as in features build), with early stopping on held-out
windows of that period. It writes DIR/model.safetensors, DIR/model.onnx (opset 13, input
the standardised features), DIR/manifest.json and DIR/curve.csv; --dqn-config FILE.json
sets hyper-parameters (the fields of the manifest's hyper_parameters). Use the model
as the policy dqn:DIR in mirage evaluate.

--model runtime learns each job's run time as a fraction of its limit from what is
known at its submission (train/jobruntime): quantiles 10/50/90 %, two approaches
compared by time-blocked CV (--cv folds) on --study's (or --protocol's) training
period and the better calibrated kept, figures on its validation period. It writes
DIR/manifest.json, the XGBoost JSON model(s), DIR/encoding.json, DIR/metrics.json and
DIR/calibration.png.`,
		Args:        usageArgs(cobra.NoArgs),
		Annotations: map[string]string{configSection: "train"},
		GroupID:     "models",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTrain(cmd, g)
		},
	}
	f := cmd.Flags()
	d := defaultConfig().Train
	f.String("model", d.Model, "model: forest, xgboost, dqn, runtime (job run times), forecast (tau of the Monte Carlo forecast and margin of the runtime estimate, on training windows, with --runtime-model), estimate (no model: choose the margin of the scheduler's own start estimate), estimate-rt (the same, with predicted run times in place of limits) or fixed-lead (no model: choose the lead before P's expected end of the fixed-lead baseline)")
	f.String("target", d.Target, "forest/xgboost: what to predict: r (Q.start - P.end, hours), interrupt (P(r > 0), binary:logistic, calibrated), cliff (P(r > 0 at the next decision): does waiting one more step cross the cliff), deadline (hours to the last safe decision), wait (Q's wait, hours) or stop (the extra interruption of waiting one more decision, hours per hour of waiting: submit when >= lambda)")
	f.Duration("overlap-budget", d.OverlapBudget, "operating point: the most mean overlap per window; the rule's parameter (theta, tau, lambda, margin or lead) is chosen per chain size by time-blocked CV on the training windows")
	f.Bool("budget-every-block", false, "operating point: the overlap budget must hold in each of the --cv time blocks of the training period, not only on average (robust to drift between months); the same as --budget-rule every-block")
	f.String("budget-rule", "", "operating point: the statistic of the CV overlap held within --overlap-budget: nested (the default: mean + k*sd of the --cv time blocks' means, k the least that holds on every block left out when choosing on the others), mean (over the training windows; the rule of earlier versions) or every-block (the largest of the blocks' means)")
	f.String("stop-label", "rate", "target stop: the label, rate (the extra interruption per hour of waiting) peak (the largest extra interruption in hours of submitting at any later decision within --stop-horizon) or worst (the largest interruption in hours of submitting now or at any later decision within --stop-horizon); lambda in hours for peak and worst")
	f.Duration("stop-horizon", 0, "target stop: the label is the extra interruption of submitting at the last decision within this horizon instead of now, per hour of waiting (0 = the next decision)")
	f.Bool("unweighted", false, "ignore the samples' row weights (by default every window weighs the same)")
	f.String("trace", "", "dqn, runtime: trace file (Parquet); the episodes (dqn) or jobs (runtime) of --protocol's training period")
	f.String("protocol", "", "dqn, runtime: features protocol (e.g. ls6, mirage-ls6; runtime validates on NAME-val)")
	f.String("study", "", "dqn, runtime: study (built-in name or file) whose training period gives the episodes or jobs; replaces --protocol")
	f.String("profile", "", profileOverrideHelp("dqn, forecast: "))
	f.Int("episodes", 0, "dqn: training episodes (0 = default)")
	f.String("start", "", "dqn: first training window start, YYYY-MM-DDTHH:MM:SS in the protocol's zone (empty = the protocol's)")
	f.Int("windows", 0, "dqn: training windows per chain size (0 = the protocol's)")
	f.Duration("interval", 0, "dqn: time between window starts (0 = the protocol's)")
	f.String("chain-nodes", "", chainNodesUsage+" (dqn, forecast; empty = the protocol's)")
	f.String("mode", "", "dqn: window start: cold or warm (empty = the protocol's)")
	f.Int("partition-nodes", 0, partitionNodesUsage+" (dqn, forecast; 0 = the protocol's)")
	addRenamedFlag(f, "nodes", "partition-nodes")
	f.Bool("allow-skip", false, "dqn, forecast: train even when the jobs wider than the partition (skipped) are more than 1% of the jobs or node-hours (otherwise exit status 2)")
	f.String("dqn-config", "", "dqn: JSON file of hyper-parameters overriding the defaults (the fields of manifest.json's hyper_parameters)")
	f.String("runtime-model", "", "forecast: run-time model directory (train --model runtime)")
	f.Int("stride", d.Stride, "forecast: replay every Nth training window")
	f.Int("rollouts", d.Rollouts, "forecast: rollouts per decision (K)")
	f.Int("resample-days", d.ResampleDays, "forecast: add arrivals resampled from the last N days (of those the window holds) to every rollout (0 = none)")
	f.Float64("correlation", d.Correlation, "forecast: correlation of the run-time draws within a rollout (Gaussian copula; 0 = independent)")
	f.Int("workers", 0, "forecast: windows replayed at once (0 = GOMAXPROCS); the output does not depend on it")
	f.String("samples", "", "samples file (Parquet, from mirage features build); required")
	f.StringP("output", "o", "", "output model directory; required")
	f.Int("cv", d.CV, "cross-validation folds (0 = none)")
	f.Int("threads", 0, "XGBoost threads (0 = its default)")
	f.Uint64("seed", d.Seed, "XGBoost seed")
	f.String("device", d.Device, "training device: cpu, cuda (needs a CUDA build of libxgboost) or auto")
	f.String("objective", "", "loss on r: squared or pseudohuber (default squared; config train.params.objective)")
	f.Float64("huber-slope", 0, "pseudo-Huber delta in hours (default 1; config train.params.huber_slope)")
	f.Int("max-depth", 0, "maximum tree depth (0 = model default; config train.params.max_depth)")
	f.Float64("eta", 0, "learning rate (0 = model default; config train.params.eta)")
	f.Int("rounds", 0, "maximum boosting rounds, xgboost (0 = default; config train.params.rounds)")
	f.Bool("no-early-stopping", false, "xgboost: run every --rounds round instead of stopping early on the latest training windows")
	f.Int("trees", 0, "trees per round, forest (0 = default; config train.params.trees)")
	return cmd
}

// trainParams returns kind's defaults overridden by the config file's
// train.params.* and then by the flags the user set.
func trainParams(cmd *cobra.Command, kind train.Kind, c TrainConfig) (train.Params, error) {
	pc := c.Params
	f := cmd.Flags()
	if f.Changed("objective") {
		pc.Objective, _ = f.GetString("objective")
	}
	if f.Changed("huber-slope") {
		pc.HuberSlope, _ = f.GetFloat64("huber-slope")
	}
	if f.Changed("max-depth") {
		pc.MaxDepth, _ = f.GetInt("max-depth")
	}
	if f.Changed("eta") {
		pc.Eta, _ = f.GetFloat64("eta")
	}
	if f.Changed("rounds") {
		pc.Rounds, _ = f.GetInt("rounds")
	}
	if f.Changed("trees") {
		pc.Trees, _ = f.GetInt("trees")
	}
	p := train.DefaultParams(kind)
	p.Seed, p.Threads = c.Seed, c.Threads
	if pc.Objective != "" {
		o, err := train.ParseObjective(pc.Objective)
		if err != nil {
			return p, usageError{err}
		}
		p.Objective = o
	}
	setPos := func(dst *float64, v float64) {
		if v > 0 {
			*dst = v
		}
	}
	setInt := func(dst *int, v int) {
		if v > 0 {
			*dst = v
		}
	}
	setPos(&p.HuberSlope, pc.HuberSlope)
	setInt(&p.MaxDepth, pc.MaxDepth)
	setPos(&p.Eta, pc.Eta)
	setInt(&p.Rounds, pc.Rounds)
	setInt(&p.NumParallelTree, pc.Trees)
	setPos(&p.Subsample, pc.Subsample)
	setPos(&p.ColsampleByNode, pc.ColsampleByNode)
	setPos(&p.MinChildWeight, pc.MinChildWeight)
	setInt(&p.EarlyStopping, pc.EarlyStopping)
	setPos(&p.ValidShare, pc.ValidShare)
	if ne, _ := f.GetBool("no-early-stopping"); ne {
		p.ValidShare, p.EarlyStopping = 0, 0
	}
	if pc.MaxDepth < 0 || pc.Eta < 0 || pc.Rounds < 0 || pc.Trees < 0 || pc.HuberSlope < 0 ||
		p.Subsample > 1 || p.ColsampleByNode > 1 || p.ValidShare >= 1 {
		return p, usagef("train: parameters out of range: %+v", pc)
	}
	return p, nil
}

// trainSummary is the JSON of `mirage train`.
type trainSummary struct {
	Model          string                `json:"model"`
	Target         string                `json:"target,omitempty"`
	OperatingPoint *train.OperatingPoint `json:"operating_point,omitempty"`
	Output         string                `json:"output"`
	Rows           int                   `json:"rows"`
	WallSec        float64               `json:"wall_sec"`
	CV             *trainCV              `json:"cv,omitempty"`
}

type trainCV struct {
	Folds        int     `json:"folds"`
	MAEH         float64 `json:"mae_h"`
	RMSEH        float64 `json:"rmse_h"`
	Within1H     float64 `json:"within_1h"`
	SignAccuracy float64 `json:"sign_accuracy"`
}

// trainModelKinds are the kinds train --model takes.
var trainModelKinds = []string{train.KindForest.String(), train.KindXGBoost.String(), train.KindEstimate, string(train.TargetEstimateRT),
	"dqn", "runtime", evaluate.ForecastKind, string(train.TargetFixedLead)}

// foldsHint adds to a train.ErrFolds error the flag that fixes it: the
// samples have too few windows, or too short a span, for the --cv folds.
func foldsHint(err error, cv int) error {
	if !errors.Is(err, train.ErrFolds) {
		return err
	}
	return fmt.Errorf("%w: pass fewer folds (--cv %d now; at least 2, or --cv 0 for none) or build the samples over more windows", err, cv)
}

func runTrain(cmd *cobra.Command, g *globalOptions) error {
	c := g.cfg.Train
	if !slices.Contains(trainModelKinds, c.Model) {
		n := len(trainModelKinds)
		return usagef("train: %s %q: want %s or %s%s", settingName(cmd, "model"), c.Model,
			strings.Join(trainModelKinds[:n-1], ", "), trainModelKinds[n-1], suggest.Hint(c.Model, trainModelKinds))
	}
	if c.Model == "dqn" {
		return runTrainDQN(cmd, g, c)
	}
	if c.Model == "runtime" {
		return runTrainRuntime(cmd, g, c)
	}
	if c.Model == evaluate.ForecastKind {
		return runTrainForecast(cmd, g, c)
	}
	if c.Samples == "" || c.Output == "" {
		return usagef("train: --samples and -o are required")
	}
	if err := checkOutput("train -o", c.Output, outputDir, train.ArtifactFiles...); err != nil {
		return err
	}
	if c.OverlapBudget < 0 {
		return usagef("train: --overlap-budget %s < 0", c.OverlapBudget)
	}
	budgetH := c.OverlapBudget.Hours()
	rule, err := budgetRule(c)
	if err != nil {
		return err
	}
	if c.Model == train.KindEstimate || c.Model == string(train.TargetEstimateRT) || c.Model == string(train.TargetFixedLead) {
		m, err := train.FitSamples(cmd.Context(), c.Samples, c.Output, train.Options{Target: train.Target(c.Model), OverlapBudgetH: budgetH, K: c.CV,
			BudgetEveryBlock: c.BudgetEveryBlock, BudgetRule: rule, Version: version})
		if err != nil {
			return foldsHint(err, c.CV)
		}
		return printOperatingPoint(g, m, c.Output)
	}
	kind, err := train.ParseKind(c.Model)
	if err != nil {
		return usageError{err}
	}
	target, err := train.ParseTarget(c.Target)
	if err != nil {
		return usageError{err}
	}
	if c.StopHorizon < 0 || c.StopHorizon > 0 && target != train.TargetStop {
		return usagef("--stop-horizon %v: a duration >= 0, for --target stop only", c.StopHorizon)
	}
	stopLabel, err := train.ParseStopLabel(c.StopLabel)
	if err != nil || stopLabel != train.StopLabelRate && target != train.TargetStop {
		return usagef("--stop-label %q: rate, peak or worst, for --target stop only", c.StopLabel)
	}
	began := time.Now()
	p, err := trainParams(cmd, kind, c)
	if err != nil {
		return err
	}
	if p.Device, err = train.SelectDevice(c.Device, g.log()); err != nil {
		return err
	}
	opts := train.Options{Params: p, K: c.CV, Version: version, Target: target, OverlapBudgetH: budgetH, Unweighted: c.Unweighted,
		BudgetEveryBlock: c.BudgetEveryBlock, BudgetRule: rule, StopHorizonSec: int64(c.StopHorizon / time.Second), StopLabel: stopLabel}
	m, err := train.FitSamples(cmd.Context(), c.Samples, c.Output, opts)
	if err != nil {
		return foldsHint(err, c.CV)
	}
	sum := trainSummary{Model: m.Kind, Target: m.Target, Output: c.Output, Rows: m.Rows, WallSec: time.Since(began).Seconds(),
		OperatingPoint: m.OperatingPoint}
	if m.CV != nil && m.CV.Calibration != nil {
		for _, n := range m.ChainNodes {
			b := m.CV.CalibrationByChain[n]
			g.log().Info("cv calibration", "model", m.Kind, "chain_nodes", n, "rows", b.Rows, "brier", b.Brier,
				"brier_base_rate", b.BrierBaseRate, "log_loss", b.LogLoss)
		}
	} else if m.CV != nil {
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
	fmt.Fprintf(g.stdout, "%s (target %s): %d rows, %d rounds, %.1f s\n", m.Kind, m.Target, m.Rows, m.Rounds, sum.WallSec)
	if cal := m.CV; cal != nil && cal.Calibration != nil {
		fmt.Fprintf(g.stdout, "cv (%d folds): Brier %.4f (base rate alone %.4f), log loss %.4f\n",
			len(cal.Folds), cal.Calibration.Brier, cal.Calibration.BrierBaseRate, cal.Calibration.LogLoss)
	} else if sum.CV != nil {
		fmt.Fprintf(g.stdout, "cv (%d folds): MAE %.2f h, RMSE %.2f h, within 1 h %.1f%%, sign accuracy %.1f%%\n",
			sum.CV.Folds, sum.CV.MAEH, sum.CV.RMSEH, 100*sum.CV.Within1H, 100*sum.CV.SignAccuracy)
	}
	writeOperatingPoint(g, m.OperatingPoint)
	fmt.Fprintf(g.stdout, "wrote %s\n", c.Output)
	return nil
}

// writeOperatingPoint prints the chosen parameter per chain size.
func writeOperatingPoint(g *globalOptions, op *train.OperatingPoint) {
	if op == nil {
		return
	}
	keys := make([]string, 0, len(op.ByChain))
	for k := range op.ByChain {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Compare(len(a), len(b))*2 + cmp.Compare(a, b) })
	for _, k := range keys {
		c := op.ByChain[k]
		note := ""
		if r := op.BudgetRule; r != "" && r != train.BudgetMean {
			note = fmt.Sprintf(", CV bound %.2f h (%s", c.OverlapBoundH, r)
			if r == train.BudgetNested {
				note += fmt.Sprintf(", k = %.2g", c.BoundK)
			}
			note += ")"
		}
		if !c.WithinBudget {
			note += " (no parameter within the budget: least overlap)"
		}
		fmt.Fprintf(g.stdout, "operating point, %s-node chains (budget %.2g h, training CV): %s = %.4g -> %.1f%% less interruption, %.2f h mean overlap%s\n",
			k, op.BudgetH, op.Param, c.Value, 100*c.InterruptionReduction, c.MeanOverlapH, note)
	}
}

// budgetRule returns the operating point's budget rule of --budget-rule
// and --budget-every-block, which must agree.
func budgetRule(c TrainConfig) (train.BudgetRule, error) {
	r, err := train.ParseBudgetRule(c.BudgetRule)
	if err != nil {
		return "", usageError{err}
	}
	switch {
	case c.BudgetRule == "" && c.BudgetEveryBlock:
		return train.BudgetEveryBlock, nil
	case c.BudgetEveryBlock && r != train.BudgetEveryBlock:
		return "", usagef("train: --budget-every-block with --budget-rule %s", r)
	}
	return r, nil
}

// printOperatingPoint is the output of train --model estimate.
func printOperatingPoint(g *globalOptions, m *train.Manifest, dir string) error {
	if g.cfg.JSON {
		b, err := json.MarshalIndent(trainSummary{Model: m.Kind, Target: m.Target, Output: dir, Rows: m.Rows, OperatingPoint: m.OperatingPoint}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(g.stdout, string(b))
		return err
	}
	writeOperatingPoint(g, m.OperatingPoint)
	_, err := fmt.Fprintf(g.stdout, "wrote %s\n", dir)
	return err
}

// runTrainDQN trains the Deep Q-Network provisioner in the simulator.
func runTrainDQN(cmd *cobra.Command, g *globalOptions, c TrainConfig) error {
	if c.Trace == "" || (c.Protocol == "" && c.Study == "") || c.Output == "" {
		return usagef("train --model dqn: --trace, --protocol (or --study) and -o are required")
	}
	if err := checkOutput("train -o", c.Output, outputDir, dqn.ArtifactFiles...); err != nil {
		return err
	}
	var raw []byte
	if c.DQNConfig != "" {
		var err error
		if raw, err = os.ReadFile(c.DQNConfig); err != nil {
			return usageError{fmt.Errorf("train --dqn-config: %w", err)}
		}
	}
	cfg, err := dqn.DecodeConfig(raw, c.Episodes)
	if err != nil {
		return fmt.Errorf("train --dqn-config %s: %w", c.DQNConfig, err)
	}
	if cmd.Flags().Changed("seed") || c.DQNConfig == "" {
		cfg.Seed = c.Seed
	}
	began := time.Now()
	spec, err := featuresProtocol(FeaturesConfig{Protocol: c.Protocol, Study: c.Study, Profile: c.Profile, Period: "train", Start: c.Start, Windows: c.Windows,
		Interval: c.Interval, ChainNodes: c.ChainNodes, Mode: c.Mode, PartitionNodes: c.PartitionNodes})
	if err != nil {
		return err
	}
	if err := checkStudyTrace(c.Study, c.Trace); err != nil {
		return err
	}
	budgetH := max(c.OverlapBudget.Hours(), 1e-9) // FitOptions: 0 means the default
	res, err := dqn.Fit(cmd.Context(), dqn.FitOptions{Trace: c.Trace, Protocol: spec.Name, Spec: &spec, Dir: c.Output, Version: version,
		OverlapBudgetH: budgetH, CheckFit: true, AllowSkip: c.AllowSkip, PartitionFlag: partitionFlag(c.Study, "--partition-nodes"), Logger: g.log()},
		cfg, nil)
	if errors.Is(err, sim.ErrUnfit) {
		return fmt.Errorf("train --model dqn: %w", err)
	}
	if err != nil {
		return err
	}
	sum := map[string]any{
		"model": "dqn", "output": c.Output, "episodes": len(res.Curve), "decisions": res.Decisions,
		"grad_steps": res.GradSteps, "early_stopped": res.Stopped, "wall_sec": time.Since(began).Seconds(),
	}
	if g.cfg.JSON {
		b, err := json.MarshalIndent(sum, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(g.stdout, string(b))
		return err
	}
	_, err = fmt.Fprintf(g.stdout, "dqn: %d episodes, %d decisions, %d gradient steps, %.1f s -> %s\n",
		len(res.Curve), res.Decisions, res.GradSteps, sum["wall_sec"], c.Output)
	return err
}
