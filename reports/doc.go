// Package reports turns an evaluation directory (evaluate.WriteDir's
// metrics.json and windows.csv) into figures and one self-contained HTML
// page.
//
// Render draws, with gonum/plot, each figure as PNG and SVG into the
// directory: the CDFs of interruption and of overlap per policy, the
// zero-interruption share per policy by load class, and the
// interruption-overlap trade-off (sweeps, policies named NAME@θ=V or
// NAME@margin=V, as curves; both oracles marked), each with one panel per
// chain size when there are several, and, per DQN model, its training curve
// (dqn-curve-NAME, from the model directory's curve.csv, read by column
// name with ReadCurve: the episode return, raw and as a moving mean over
// DQNWindow episodes, and the validation return; the loss and ε in panels
// below when the curve has them). DQN models are the evaluation's
// dqn:DIR policies (DIR as written, relative to the working directory;
// one that cannot be read is skipped with a warning on Options.Logger)
// and the directories in Options.DQN (an error when missing). It then
// writes report.html, which inlines
// every figure as a base64 PNG and carries the metric tables (one per
// chain size, with its load classes; cost = interruption + λ·overlap with
// λ stated; never pooled across chain sizes), the frontier table and a
// protocol summary from the rows and from the model manifests (a model
// policy "forest:DIR" reads DIR/manifest.json when DIR exists). The page
// references no other file.
//
// Figures whose data is not in the directory (predicted vs actual r, the
// trace's wait-time CDF without Options.Trace) are skipped with a note.
// The plotted data (Figure.Series) is what tests compare: the output is
// deterministic, but PNG bytes depend on the font rasteriser.
package reports
