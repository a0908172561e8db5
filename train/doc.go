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
// artifact, checks its seal, and predicts with the pure-Go evaluator
// train/xgbjson, so prediction needs no cgo.
//
// Every model directory (kinds forest, xgboost, estimate; dqn of
// train/dqn; runtime of train/jobruntime; forecast of evaluate, whose
// manifest is forecast.json) is sealed by its manifest (Seal):
//
//   - "files" maps the name of every other file of the directory to its
//     size in bytes and SHA-256 (hex);
//   - "manifest_sha256" is the SHA-256 (hex) of the manifest's canonical
//     form: the manifest's JSON object with that one top-level value set to
//     "" (the empty string), encoded compactly with every object's keys
//     sorted by bytes, numbers as written in the file, and strings as
//     encoding/json writes them (ManifestDigest).
//
// Reformatting a manifest (whitespace, key order) keeps its digest; any
// other edit changes it. Loaders check the manifest's digest first
// (ReadManifestFile; a manifest without one, written before seals, is
// refused with ErrUnsealed: train the model again), then each file's size
// before reading it (Seal.ReadFile, Seal.Verify: a file of another size
// is refused unread) and its SHA-256: errors wrap ErrDigest and name the
// file. Files and manifests have size bounds (MaxManifestBytes,
// MaxModelFileBytes; train/dqn bounds its weights by its architecture).
// A directory of another kind than a loader takes is a *KindError, whose
// message names the commands that take it (KindUses).
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
