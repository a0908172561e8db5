// Package evaluate replays provisioning policies through the simulator on
// held-out windows and computes their metrics.
//
// For every window of a protocol and chain size, Replay builds the main
// timeline as features.Build does (cold or warm, P submitted after the
// warm-up; Q never exists on it) and walks a decision grid: P's
// submission plus every DecisionSec while P has not ended, P's start and
// P's end. At each grid time every policy that has not yet submitted is
// asked whether to submit Q now; Q is forced at P's end. A policy's
// outcome is a fork of the main timeline at its submission time in which
// Q is submitted and run until it starts, so every policy sees the same
// window. The oracle labels every grid time and keeps the best one, the
// ceiling no policy on the same grid can beat: zero interruption with
// the least overlap. The cost-optimal oracle (oracle-cost) keeps instead
// the grid time of least cost, interruption + λ·overlap (CostH,
// Options.Lambda), the earliest on ties; oracle-cost@λ=V uses λ = V, and
// SweepModels adds a sweep of λ (SweepLambdas). Since each window's
// choice minimises interruption + λ·overlap, the sweep traces the
// hindsight frontier: no policy deciding on the same grid reaches a
// point below the curve it draws (the lower convex hull of what the
// grid's outcomes allow), so it bounds what better models can gain.
//
// A decision at t sees the queue just before the scheduler's events at t
// (features.Timeline.Advance), and Q submitted at t joins t's main and
// backfill passes.
//
// SlurmEstimate with RunTimes (slurm-estimate-rt) plans with predicted
// run times (sim.EstimatedStartPredicted) in place of limits.
//
// Model policies (Model: forest:DIR, xgboost:DIR; TrainedEstimate:
// slurm-estimate:DIR, for train --model estimate or estimate-rt; DQN:
// dqn:DIR) are one threshold rule each
// (train.RuleScore), at the rule parameter their manifest's operating
// point chose per chain size on training windows for an overlap budget
// (train.ChooseOperatingPoint; the DQN's bias, dqn.ChooseBias); --theta
// overrides it for models of r, and SweepModels adds fixed parameter
// values beside it (evaluate --sweep). The validation windows replayed
// here take no part in any choice.
//
// A model trained on samples with the run-time model column
// (features.ModelEstimateName; train.Manifest.RuntimeModel) computes it
// at each decision time with that run-time model's predictions
// (FeatureRunTimes' rule: out of fold for its training period), bound by
// BindTrace and re-indexed by the window's job IDs
// (DecisionContext.JobIndex); NewModel refuses it (ErrRuntimeModel) when
// the run-time model is gone or its model digest differs from the one
// the samples were built with.
//
// Forecast (forecast:DIR) and RuntimeEstimate (runtime-estimate:DIR) use
// the run-time model of train --model runtime (RunTimes, bound to the
// jobs by BindTrace). RuntimeEstimate plans the scheduler's estimate with
// the model's medians (sim.EstimatedStartWith). Forecast estimates
// P(r > 0) by K Monte Carlo rollouts of the live queue (sim.Sim.Rollout:
// future trace arrivals and unannounced capacity steps dropped; every
// running, pending and held job's run time drawn from the model given
// the time it has already run; P to its limit; optionally arrivals
// resampled from the last days the window holds) and submits when it reaches τ,
// deciding on the decision grid's labelled times only. TrainForecast
// chooses τ and the runtime estimate's margin on training windows
// (train --model forecast, DIR/forecast.json).
//
//	live queue at t ──Live──▶ running (elapsed e), pending, held
//	      │                         │ Draw: ratio ~ model | ratio ≥ e/limit
//	      └──Rollout × K (no future arrivals) + SubmitBatch(resampled, Q)
//	            └──RunUntilStartedBy(Q, P's end) ──▶ late? ──▶ P(r > 0) = late/K ≥ τ
//
// Metrics are pure functions over the per-window rows (Row), which
// WriteCSV and ReadCSV carry through windows.csv. They are per chain
// size (PolicyMetrics.ByChain, with load classes inside); the summary
// over every chain size is kept only as PolicyMetrics.Pooled. Frontier
// gives each policy family (Family: a name without its "@KEY=VALUE"
// sweep suffix) its best interruption reduction within mean-overlap
// budgets of 0.5, 1 and 2 h.
//
// Run is the stage as one call, what mirage evaluate and the pipeline
// both call: parse the policies (PolicySpec), read the trace, check its
// fit to the partition, prepare the windows, bind the policies to the
// trace, Replay, Compute and WriteDir. RunShard replays a run of the
// windows and Merge writes a whole stage's files from the shards' rows,
// byte for byte Run's.
//
// RealChains (or Run with RunOptions.RealChains) replays the trace's own
// service chains instead of the protocol's synthetic ones: each link
// found by analyze's detector (analyze.ChainRows) gets a timeline cut
// as the protocol cuts a window, with the real predecessor's shape
// submitted at its real submission and the trace without the chain's
// jobs as background (features.NewChainTimeline), and every policy
// decides on it as in Replay; chains.csv holds a row per link and policy,
// Metrics.RealChains the totals beside what the links really lost.
//
// Lifetimes (or Run with RunOptions.Lifetime) replays each policy as a
// service of several links (LifetimeOptions.LengthSec, e.g. 30 days)
// from every window: P₁ as in Replay, then each successor submitted on
// the same timeline when the policy decides at that link's decision
// grid (so a model's features at each decision see the service's earlier
// links), each link with the chain's limit and run time, until a link's
// expected end covers P₁'s start plus the lifetime. With a handover
// (HandoverSec, default 10 min) a link ends that long after its
// successor starts (sim.Sim.EndBy; the scheduler still plans with its
// limit); HandoverOff lets it run to its end. A hindsight policy is
// applied per link (the oracle of each link given the earlier ones, not
// of the whole lifetime). LifetimeMetrics are per policy and chain size:
// availability (up time / lifetime), downtime per 30 days (mean, p95),
// interruptions and links per 30 days and node-hours charged per hour of
// service, each with a percentile bootstrap interval over the lifetimes
// (internal/bootstrap, the reports' resampling, deterministic with the
// seed); lifetimes.csv holds a row per policy, chain size and window.
// Lifetimes that run past the trace's last submission meet a draining
// queue: LifetimeMetrics.BeyondTraceShare says how much of them did.
//
// The baselines of practice: dependency (sbatch
// --dependency=afterany:$SLURM_JOB_ID from P's script: Q held until P
// ends, accruing age from then; HeldQ) and fixed-lead (submit a lead
// before P's expected end, what sbatch --dependency=after:P+N does with N
// the limit minus the lead; fixed-lead@lead=H, or fixed-lead:DIR at the
// lead train --model fixed-lead chose on training windows for the
// overlap budget).
//
// Q's --time-min: the protocol's (features.Options.QTimeMinSec) for every
// policy, or a causal policy's own (TimeMinPolicy: WithTimeMin, the
// policy list's "BASE@tmin=DUR"). Replay labels that policy's Q with it;
// Lifetimes submit each successor link with it, and a link backfill
// granted a shorter limit (sim.Sim.Limit) ends at it: its successor is
// decided on for that end, and the lifetime may need more links.
//
// Glossary: r = Q.start - P.end (seconds; > 0 interruption, < 0 overlap);
// cost = interruption + λ·overlap (hours; λ is metrics.json's lambda);
// load class = the reactive policy's interruption: light (<= 2 h),
// medium (2-12 h), heavy (> 12 h).
package evaluate
