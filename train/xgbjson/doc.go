// Package xgbjson evaluates XGBoost models saved as JSON (gbtree booster,
// numerical splits, identity-link regression objectives) in pure Go, with
// no cgo, so deployment tools can predict without libxgboost.
//
// Predictions follow libxgboost's CPU predictor: the sum starts at
// base_score and adds each tree's leaf in tree order, in float32, with
// the feature values rounded to float32; a NaN feature takes the node's
// default direction, and otherwise x < split_condition goes left. The
// results agree with libxgboost bit for bit on the models this package
// accepts (see the parity test in package train).
//
// Parse accepts only what it can reproduce exactly (ErrUnsupported
// otherwise); Model.Predict evaluates one row, Model.PredictColumns a
// column-major matrix such as features.Samples.Features. Package train's
// Open wraps it with the artifact's SHA-256 and feature checks.
package xgbjson
