// Package train fits tree models of a Target (r or Q's wait in hours,
// the probability of interruption now or at the next decision, the time
// to the last safe decision) on the labelled samples of package features
// with XGBoost (through train/xgboost), validates them with time-blocked
// cross-validation (Calibrate for the classifiers), chooses the one
// parameter of the target's threshold rule (RuleScore) for an overlap
// budget from the out-of-fold predictions replayed on the training
// windows (ChooseOperatingPoint, OperatingPoint), and writes portable
// artifacts:
// model.json (XGBoost JSON), manifest.json and cv.json. Open loads an
// artifact, checks the model's SHA-256, and predicts with the pure-Go
// evaluator train/xgbjson, so prediction needs no cgo.
//
// Kinds: KindForest is XGBoost's random-forest mode (num_parallel_tree
// trees, row and per-node column subsampling, learning rate 1, one
// round); KindXGBoost is boosted trees with early stopping on the last
// (by time) part of the training windows.
//
// Folds are blocked over windows in time order: test block k holds
// consecutive windows, and a training window is kept only if its start is
// at least Gap away from every test window's start, so no simulated
// period is in both (Gap is the window length, warm-up plus workload).
package train
