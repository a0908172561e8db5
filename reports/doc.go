// Package reports turns an evaluation directory (evaluate.WriteDir's
// metrics.json and windows.csv) into a report directory: one
// self-contained page, report.html, and each figure as PNG and SVG.
//
// The page answers which policy to deploy and what it costs, and says
// when the figures cannot: a chain size's recommendation is withheld,
// with its cause and the next step stated first (Reason), when the
// trace's waits are unknown, the simulator's wait fidelity (Fidelity) is
// below Grounds.MinSpearman, the reactive policy loses a negligible
// interruption (nothing to save) or the best candidate's reduction
// interval includes none. It opens, on the first screen, with the
// Recommendation per chain size: the policy with the largest
// interruption reduction whose mean overlap per window is within the
// budget, with its interruption, overlap (and, for chains of more than
// one node, node-hours of overlap) per window, each with a 95 %
// percentile bootstrap interval over the windows (Bootstrap: seeded,
// deterministic, always covering the point estimate), the same per month
// of a service chained without pause (HoursPerMonth over P's mean run
// time), its distance to the hindsight oracles and the next step
// (NextStep: the mirage advise line for a model). The study follows (the
// simulator's fidelity, the trace and its dates, protocol, simulator
// profile, partition, chain sizes, decision interval, overlap budget).
// Tables follow per chain size and load class (never pooled), with
// counts and intervals, the recommended row highlighted and sweep
// variants folded away (<details>), each table in a box that scrolls
// sideways on a narrow screen; then the figures (gonum/plot; sans-serif
// Liberation Sans vendored with gonum; Okabe–Ito colours and six more, a
// colour per policy, with dash patterns and glyphs; 5 to 10 labelled
// ticks; legends in a strip right of the data; point labels laid out
// apart, with leader lines when far from their point; short policy
// labels with a key to the full names). The footer states the version
// and the data's dates, never the time of writing:
//
//   - frontier: mean interruption vs mean overlap per policy, sweeps as
//     curves, the recommendation ringed, the budget as a line, the x axis
//     clipped at max(4 × budget, 1 h) with off-scale points at the edge
//     and their value written beside them;
//   - cdf-r-by-load: CDFs of signed r = Q.start − P.end per load class (a
//     column each) for reactive, the estimate baseline, the oracle, the
//     recommendation and the best model, as the Mirage paper draws them,
//     on one shared asinh x axis (linear near 0, logarithmic beyond);
//   - zero-interruption-by-load: each policy's zero-interruption share per
//     load class with interval whiskers and the window counts;
//   - cdf-wait: the trace's wait CDF on a log time axis (1 min … 1 week);
//   - windows: per validation window, reactive's interruption and the
//     recommended policy's and the oracle's r;
//
// and, when given or named by the evaluation, predicted vs actual r
// (binned medians with quartile whiskers), each
// DQN's training curve, each model's training-CV frontier and each
// classifier's reliability diagram.
//
// Formats belong to their writers: reports reads metrics and windows with
// evaluate.ReadMetrics and evaluate.ReadWindows, model directories with
// train.ReadManifest, train.ReadCV, dqn.ReadManifest and dqn.ReadCurveFile,
// predictions with train.ReadPredictions, and policy names with
// evaluate.ParseName. Model directories are those metrics.json records
// relative to the evaluation directory (Metrics.ModelDir), never the
// working directory, so a report is the same from anywhere; one that
// cannot be found or read is an error.
//
// Render writes the report directory as a unit (a temporary directory
// beside it, renamed into place). The page chrome comes from
// internal/htmlpage, which the trace analysis page shares; tests check it
// in headless Chromium with internal/browsercheck when Chromium is there.
// The plotted data (Figure.Series) is what golden tests compare: the
// output is deterministic, but PNG bytes depend on the font rasteriser.
package reports
