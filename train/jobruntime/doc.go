// Package jobruntime predicts each job's run time as a fraction of its
// time limit from what is known at its submission, with quantiles (the
// run-time model of `mirage train --model runtime`).
//
//	trace.Job ──History (causal: only jobs with End <= Submit)──▶ user/name history columns
//	          ──Encoding (fit on training rows only)────────────▶ target-encoded name, account, user, partition, QOS
//	          ──static──────────────────────────────────────────▶ limit, nodes, GPUs, hour and weekday in the zone
//	                                  │ Matrix (column-major, FeatureNames)
//	                                  ▼
//	   softprob: one multi:softprob booster over Bins ─┐
//	   heads:    one binary:logistic booster per inner ├─▶ CDF over Bins ─▶ Quantiles (10/50/90 %, seconds)
//	             bin edge, P(ratio <= edge), isotonic  ─┘
//
// The ratio is min(run time, limit) / limit in [0, 1]. A distribution
// over the bins (DefaultEdges) is read as log-uniform within each bin,
// except the first (the jobs that ran 0 s), a point mass at 0, and the
// last (ratio >= 0.995, "ran to its limit"), a point mass at 1. Train compares
// both approaches by time-blocked cross-validation on the training period
// and keeps the one whose quantiles calibrate best (the mean absolute
// difference between nominal level and observed coverage over the levels
// 0.1, 0.2, ..., 0.9). Prediction (Open, Model.Predict) is pure Go
// (train/xgbjson); training needs libxgboost (train/xgboost).
//
// Glossary:
//   - ratio: run time / time limit, clamped to [0, 1].
//   - history: a user's jobs that ran and whose End is at or before the
//     submission of the job being predicted (End <= Submit, seconds).
//   - target encoding: the smoothed mean ratio of a key (job name,
//     account, user, partition, QOS) over training rows; training rows
//     get it out of fold (time blocks), so no row sees its own label.
//   - coverage of level q: the share of jobs whose real ratio is at or
//     below their predicted q-quantile (ideally q).
package jobruntime
