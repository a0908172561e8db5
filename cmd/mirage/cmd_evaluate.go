package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/features"
)

func newEvaluateCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "evaluate --trace T.parquet --protocol NAME --policy LIST -o DIR",
		Short: "Replay provisioning policies on a protocol's windows and compute their metrics",
		Long: `For each window of the protocol and each chain size, simulate the cluster, submit
the predecessor P after the warm-up and, every decision interval from P's
submission (and at P's start), ask each policy whether to submit the successor Q
now; Q is forced at P's end. Each policy's outcome r = Q.start - P.end comes from
a fork of the same window. Writes DIR/metrics.json and DIR/windows.csv.

With --real-chains it also replays the trace's own service chains (the chain
detector of mirage analyze, on the protocol's partition) whose heads were
submitted in [--real-chains-from, --real-chains-to) (default: the span of the
protocol's windows, warm-up and workload included): for each link, a window cut
as the protocol cuts one, with the real predecessor's nodes, limit, run time and
user submitted at its real submission, the trace without the chain's jobs as
background, and the real successor's shape as Q; every policy decides on it.
DIR/chains.csv gets one row per link and policy, metrics.json's real_chains the
totals: the real interruption of the replayed links beside the simulated
reactive one and each policy's (hours), and the links skipped, by reason. At
most --real-chains-max-links links (the first by head submission).

With --lifetime 30d it also replays each policy as a service of that length from
each window (every --lifetime-every-th): P1, then each successor the policy submits
at its own decision times on the timeline holding the service's earlier links, each
link with the chain's limit, until a link's expected end covers the lifetime. With
--handover D (default 10m) a link ends D after its successor starts; --handover off
lets it run to its end (the paper's accounting). DIR/lifetimes.csv gets one row per
policy, chain size and window, metrics.json's lifetime per policy and chain size:
availability, downtime per 30 days (mean, p95), interruptions and links per 30
days and node-hours per service hour, with 95% bootstrap intervals; the oracle
decides per link. Without --lifetime the outputs are as before.

Each window's cost is interruption + λ·overlap in hours (--lambda, recorded
as metrics.json's lambda). Metrics are per chain size (by_chain_nodes, with
by_load inside; the pooled summary only under "pooled"); the frontier gives
each policy family's best interruption reduction within a mean overlap of
0.5, 1 and 2 h.

Policies: reactive, immediate, avg, dependency (Q submitted when P starts, held
until P ends: sbatch --dependency=afterany:$SLURM_JOB_ID), fixed-lead@lead=HOURS
(submit that long before P's expected end: sbatch --dependency=after:P+N, N the
limit minus the lead; fixed-lead alone: 1 h), fixed-lead:DIR (the lead chosen by
train --model fixed-lead), slurm-estimate (--margins 0,15m,1h sweeps
its margin: slurm-estimate@margin=HOURS), slurm-estimate-rt (the same estimate
planned with predicted run times in place of limits: each job's user's recent
run-time-to-limit ratio times its limit; --margins sweeps it too),
slurm-estimate:DIR (the margin chosen by train --model estimate or estimate-rt),
oracle (zero interruption with the
least overlap), oracle-cost (least cost; oracle-cost@λ=V at λ = V instead of
--lambda, and --sweep adds λ variants: the hindsight frontier, the least mean
overlap at which any policy deciding on the same grid reaches each reduction),
forest:DIR, xgboost:DIR (models from
mirage train; --theta 0.25,0.5,1 sweeps θ; a model trained on samples built with
features build --runtime-model computes q_est_model_start_minus_p_end_sec with the
run-time model its manifest names, and is refused when that model is gone or its
sha256 changed), dqn:DIR (mirage train --model
dqn; arg-max of its Q-values, no θ), runtime-estimate:DIR (the estimate planned
with the run-time model's medians, at the margin chosen by train --model forecast;
DIR from it, or a run-time model: margin 0), forecast:DIR (P(r > 0) by Monte Carlo
rollouts of the live queue with run times drawn from the run-time model; submit
when it reaches the τ chosen by train --model forecast, or 0.5; --sweep adds τ
variants). Any causal policy may end in @tmin=DURATION (reactive@tmin=6h,
xgboost:DIR@tmin=90m): it decides as before but submits Q with that sbatch
--time-min in place of the protocol's (--q-time-min), so backfill may start Q
earlier under a shorter limit; with --lifetime every successor link it submits has
it, and a link granted less ends at that limit. Such a variant is not swept.
Protocols: ` + strings.Join(features.ProtocolNames, ", ") + `.`,
		Args:        usageArgs(cobra.NoArgs),
		Annotations: map[string]string{configSection: "evaluate"},
		GroupID:     "models",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runEvaluate(cmd, g)
		},
	}
	f := cmd.Flags()
	d := defaultConfig().Evaluate
	f.String("trace", "", "trace file (Parquet, from mirage ingest); required")
	f.String("protocol", d.Protocol, "preset: "+strings.Join(features.ProtocolNames, ", "))
	f.String("study", "", "study (built-in name or file; see mirage study show): replaces --protocol, and its trace.zone is checked against the trace's")
	f.String("period", d.Period, "with --study: the period whose windows to evaluate, train or validation")
	f.String("profile", "", profileOverrideHelp(""))
	f.StringP("output", "o", "", "output directory; required")
	f.String("policy", d.Policy, "comma-separated policies")
	f.String("chain-nodes", "", chainNodesUsage+" (empty = the protocol's)")
	f.Duration("q-time-min", 0, qTimeMinUsage)
	f.Int("partition-nodes", 0, partitionNodesUsage+" (0 = the protocol's)")
	// The old names keep their old meanings: --nodes is --chain-nodes.
	addRenamedFlag(f, "nodes", "chain-nodes")
	addRenamedFlag(f, "partition", "partition-nodes")
	f.Bool("allow-skip", false, "evaluate even when the jobs wider than the partition (skipped) are more than 1% of the jobs or node-hours (otherwise exit status 2)")
	f.String("start", "", "first window start, YYYY-MM-DDTHH:MM:SS in the protocol's zone (empty = the protocol's)")
	f.Int("windows", 0, "windows per chain size (0 = the protocol's)")
	f.Duration("interval", 0, "time between window starts (0 = the protocol's)")
	f.Duration("decision", d.Decision, "decision interval")
	f.String("theta", "", "model threshold θ in hours, comma-separated for a sweep (empty = 0.5)")
	f.Duration("margin", 0, "slurm-estimate margin before P's end")
	f.String("margins", "", "slurm-estimate margins, comma-separated durations for a sweep (e.g. 0,15m,1h); not with --margin")
	f.Bool("sweep", false, "also replay each forest/xgboost model and forecast at a fixed sweep of its rule parameter (θ, τ or margin; evaluate.SweepParams) beside its training-chosen operating point, and oracle-cost at a sweep of λ (evaluate.SweepLambdas: the hindsight frontier)")
	f.Float64("lambda", evaluate.DefaultLambda, "λ: hours of interruption an hour of overlap costs (cost = interruption + λ·overlap)")
	f.Int("workers", 0, "windows replayed at once (0 = GOMAXPROCS); the output does not depend on it")
	f.String("lifetime", "", "also replay each policy as a service of this length (e.g. 30d, 720h) from each window: P1, then each successor the policy submits, until a link's expected end covers it (DIR/lifetimes.csv, metrics.json's lifetime); empty: off")
	f.String("handover", d.Handover, "with --lifetime: when a successor starts, its predecessor ends this long after (a duration), or off: it runs to its end")
	f.Int("lifetime-every", d.LifetimeEvery, "with --lifetime: replay a lifetime from every N-th window only")
	f.Bool("real-chains", false, "also replay the trace's own service chains (DIR/chains.csv, metrics.json's real_chains)")
	f.String("real-chains-from", "", "with --real-chains: first head submission, YYYY-MM-DD[THH:MM:SS] in the protocol's zone (empty = the first window's start)")
	f.String("real-chains-to", "", "with --real-chains: end of the head submissions (excluded), as --real-chains-from (empty = the last window's end)")
	f.Int("real-chains-max-links", 0, fmt.Sprintf("with --real-chains: the most links replayed (0 = %d)", evaluate.DefaultChainLinks))
	addProgressFlag(f)
	return cmd
}

// evaluateSummary is the JSON of `mirage evaluate`.
type evaluateSummary struct {
	Protocol string           `json:"protocol"`
	Output   string           `json:"output"`
	WallSec  float64          `json:"wall_sec"`
	Metrics  evaluate.Metrics `json:"metrics"`
	// Warnings are the input checks' findings (jobs wider than the
	// partition, demand far above the trace's usage), as logged.
	Warnings []string `json:"warnings,omitempty"`
}

func parseFloats(flag, s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, usagef("--%s %q: want numbers separated by commas", flag, s)
		}
		out = append(out, v)
	}
	return out, nil
}

func runEvaluate(cmd *cobra.Command, g *globalOptions) error {
	c := g.cfg.Evaluate
	if c.Trace == "" || c.Output == "" {
		return usagef("evaluate: --trace and -o are required")
	}
	if err := checkOutput("evaluate -o", c.Output, outputDir, evaluate.DirFiles...); err != nil {
		return err
	}
	if c.Decision <= 0 || c.Decision%time.Second != 0 {
		return usagef("--decision %v: want a positive whole number of seconds", c.Decision)
	}
	if c.PartitionNodes < 0 {
		return usagef("--partition-nodes %d: want a node count >= 0", c.PartitionNodes)
	}
	if c.Workers < 0 {
		return usagef("evaluate: --workers %d: want >= 1 (0 = GOMAXPROCS)", c.Workers)
	}
	p, err := featuresProtocol(FeaturesConfig{Protocol: c.Protocol, Study: c.Study, Profile: c.Profile, Period: c.Period, Start: c.Start,
		Windows: c.Windows, Interval: c.Interval, ChainNodes: c.ChainNodes, PartitionNodes: c.PartitionNodes, QTimeMin: c.QTimeMin})
	if err != nil {
		return err
	}
	if err := checkStudyTrace(c.Study, c.Trace); err != nil {
		return err
	}
	thetas, err := parseFloats("theta", c.Theta)
	if err != nil {
		return err
	}
	lambda := c.Lambda
	if !(lambda >= 0) || math.IsInf(lambda, 1) {
		return usagef("--lambda %v: want a finite number >= 0", lambda)
	}
	margins, err := parseMargins(c.Margins)
	if err != nil {
		return err
	}
	if len(margins) > 0 && c.Margin != 0 {
		return usagef("--margin and --margins: give one")
	}
	sweep, _ := cmd.Flags().GetBool("sweep")
	chains, err := realChainsOptions(c, p)
	if err != nil {
		return err
	}
	life, err := lifetimeOptions(c)
	if err != nil {
		return err
	}
	bar := newProgressBar(g.stderr, c.Progress, g.cfg.JSON)
	began := time.Now()
	res, err := evaluate.Run(cmd.Context(), evaluate.In{Trace: c.Trace, Protocol: p}, evaluate.RunOptions{
		Policies: evaluate.PolicySpec{List: c.Policy, Thetas: thetas, MarginSec: int64(c.Margin / time.Second),
			MarginsSec: margins, Sweep: sweep},
		Lambda: lambda, DecisionSec: int64(c.Decision / time.Second), Workers: c.Workers,
		Logger: g.log(), Progress: bar.windows("evaluate"),
		AllowSkip: c.AllowSkip, FitFlag: partitionFlag(c.Study, "--partition-nodes"), Output: c.Output,
		RealChains: chains, Lifetime: life,
	})
	bar.finish()
	if err != nil {
		return err
	}
	m := res.Metrics
	m.ModelDirs = nil // metrics.json's, relative to -o; never in the summary
	sum := evaluateSummary{Protocol: p.Name, Output: c.Output, WallSec: time.Since(began).Seconds(), Metrics: m, Warnings: res.Warnings}
	g.log().Info("evaluated", "protocol", p.Name, "windows", m.Windows, "policies", len(res.Policies), "wall_sec", sum.WallSec)
	if g.cfg.JSON {
		b, err := json.MarshalIndent(sum, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(g.stdout, string(b))
		return err
	}
	fmt.Fprintf(g.stdout, "%s: %d windows in %.1f s; cost = interruption + %g·overlap (h)\n", p.Name, m.Windows, sum.WallSec, m.Lambda)
	printEvaluateTables(g.stdout, res.Policies, m)
	if m.Lifetime != nil {
		printLifetimes(g.stdout, res.Policies, m.Lifetime)
		fmt.Fprintf(g.stdout, "wrote %s\n", filepath.Join(c.Output, evaluate.LifetimesCSV))
	}
	if m.RealChains != nil {
		printRealChains(g.stdout, m.RealChains)
		fmt.Fprintf(g.stdout, "wrote %s, %s and %s\n", filepath.Join(c.Output, "metrics.json"), filepath.Join(c.Output, "windows.csv"),
			filepath.Join(c.Output, evaluate.ChainsCSV))
		return nil
	}
	fmt.Fprintf(g.stdout, "wrote %s and %s\n", filepath.Join(c.Output, "metrics.json"), filepath.Join(c.Output, "windows.csv"))
	return nil
}

// parseMargins reads --margins: durations, comma-separated, in whole
// seconds ("0" allowed; a negative margin submits only once the estimate
// is that far after P's expected end).
func parseMargins(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		d, err := time.ParseDuration(f)
		if f == "0" {
			d, err = 0, nil
		}
		if err != nil || d%time.Second != 0 {
			return nil, usagef("--margins %q: want durations in whole seconds separated by commas", s)
		}
		out = append(out, int64(d/time.Second))
	}
	return out, nil
}

// evalColumn is a column of evaluate's table: a two-line header (name,
// then unit or detail) and the value's format.
type evalColumn struct {
	top, bottom string
	value       func(evaluate.ChainMetrics) string
}

// evalColumns are evaluate's table columns, headed in plain words; the
// top header spans the columns next to each other that share it.
var evalColumns = []evalColumn{
	{"", "windows", func(s evaluate.ChainMetrics) string { return strconv.Itoa(s.Windows) }},
	{"interruption h", "mean", func(s evaluate.ChainMetrics) string { return fmt.Sprintf("%.2f", s.MeanInterruptionH) }},
	{"interruption h", "p90", func(s evaluate.ChainMetrics) string { return fmt.Sprintf("%.2f", s.P90InterruptionH) }},
	{"windows with", "none", func(s evaluate.ChainMetrics) string { return fmt.Sprintf("%.3f", s.ZeroInterruptionShare) }},
	{"windows with", "rescued", func(s evaluate.ChainMetrics) string { return fmt.Sprintf("%.3f", s.RescuedShare) }},
	{"vs reactive", "reduction", func(s evaluate.ChainMetrics) string { return fmt.Sprintf("%.3f", s.InterruptionReduction) }},
	{"mean (h)", "overlap", func(s evaluate.ChainMetrics) string { return fmt.Sprintf("%.2f", s.MeanOverlapH) }},
	{"mean (h)", "cost", func(s evaluate.ChainMetrics) string { return fmt.Sprintf("%.2f", s.MeanCostH) }},
	{"cost ÷", "oracle-cost", func(s evaluate.ChainMetrics) string { return optFormat(s.CostVsOracleCost, "%.3f") }},
	{"wasted", "node-h", func(s evaluate.ChainMetrics) string { return fmt.Sprintf("%.1f", s.WastedNodeH) }},
	{"gap to", "oracle (h)", func(s evaluate.ChainMetrics) string { return optFormat(s.GapToOracleInterruptionH, "%.2f") }},
}

// evalSpans groups evalColumns by their top header: [first, end) runs.
func evalSpans() [][2]int {
	var spans [][2]int
	for i := 0; i < len(evalColumns); {
		j := i + 1
		for j < len(evalColumns) && evalColumns[j].top == evalColumns[i].top {
			j++
		}
		spans = append(spans, [2]int{i, j})
		i = j
	}
	return spans
}

func optFormat(v *float64, format string) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf(format, *v)
}

// maxPolicyLabel is the widest policy label of evaluate's table, in
// runes: a longer name (a model's path) is shortened, and listed in full
// under the table.
const maxPolicyLabel = 24

// policyLabels are the table's labels of the policies: the name, or for
// a KIND:DIR longer than maxPolicyLabel, KIND:…/ plus the end of DIR
// (numbered when two would be the same); long reports which were
// shortened.
func policyLabels(policies []string) (labels []string, long bool) {
	labels = make([]string, len(policies))
	seen := map[string]int{}
	for i, name := range policies {
		label := name
		if r := []rune(name); len(r) > maxPolicyLabel && strings.Contains(name, ":") && strings.ContainsRune(name, filepath.Separator) {
			kind, _, _ := strings.Cut(name, ":")
			keep := max(maxPolicyLabel-len([]rune(kind))-2, 4)
			label = kind + ":…" + string(r[len(r)-keep:])
			long = true
		}
		if n := seen[label]; n > 0 {
			label = fmt.Sprintf("%s#%d", label, n+1)
		}
		seen[label]++
		labels[i] = label
	}
	return labels, long
}

// printEvaluateTables writes one table per chain size: the policies in
// order, with their interruption, overlap and cost, the share of
// oracle-cost's cost and the gap to the oracle's interruption; policies
// whose names were shortened are listed in full after the tables.
func printEvaluateTables(w io.Writer, policies []string, m evaluate.Metrics) {
	labels, long := policyLabels(policies)
	width := len("policy")
	for _, l := range labels {
		width = max(width, utf8.RuneCountInString(l))
	}
	widths := make([]int, len(evalColumns))
	for i, c := range evalColumns {
		widths[i] = max(utf8.RuneCountInString(c.bottom), 5)
	}
	spans := evalSpans()
	spanWidth := func(sp [2]int) int {
		w := 2 * (sp[1] - sp[0] - 1)
		for i := sp[0]; i < sp[1]; i++ {
			w += widths[i]
		}
		return w
	}
	for _, sp := range spans { // widen a span's columns to fit its top header
		for i := sp[0]; utf8.RuneCountInString(evalColumns[sp[0]].top) > spanWidth(sp); i++ {
			widths[sp[0]+(i-sp[0])%(sp[1]-sp[0])]++
		}
	}
	pad := func(s string, n int) string { return strings.Repeat(" ", max(n-utf8.RuneCountInString(s), 0)) + s }
	for _, n := range m.ChainNodes {
		k := strconv.Itoa(n)
		fmt.Fprintf(w, "\nchains of %d node(s)\n", n)
		var top, bottom strings.Builder
		fmt.Fprintf(&top, "%-*s", width, "")
		fmt.Fprintf(&bottom, "%-*s", width, "policy")
		for _, sp := range spans {
			top.WriteString("  " + pad(evalColumns[sp[0]].top, spanWidth(sp)))
		}
		for i, c := range evalColumns {
			bottom.WriteString("  " + pad(c.bottom, widths[i]))
		}
		fmt.Fprintln(w, strings.TrimRight(top.String(), " "))
		fmt.Fprintln(w, strings.TrimRight(bottom.String(), " "))
		for pi, name := range policies {
			s, ok := m.Policies[name].ByChain[k]
			if !ok {
				continue
			}
			var row strings.Builder
			row.WriteString(labels[pi] + strings.Repeat(" ", width-utf8.RuneCountInString(labels[pi])))
			for i, c := range evalColumns {
				row.WriteString("  " + pad(c.value(s), widths[i]))
			}
			fmt.Fprintln(w, row.String())
		}
	}
	if long {
		fmt.Fprintln(w, "\npolicies in full:")
		for i, name := range policies {
			if labels[i] != name {
				fmt.Fprintf(w, "  %s = %s\n", labels[i], name)
			}
		}
	}
}
