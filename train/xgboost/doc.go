// Package xgboost is a thin, safe cgo binding to the XGBoost C API
// (libxgboost, 1.7 and later): DMatrix from dense float32 with NaN as
// missing, labels and weights; Booster create, set parameters, update one
// iteration, evaluate, predict, feature importance, and save and load
// models as JSON or UBJSON.
//
// This is the only package of mirage that uses cgo. Built without cgo, or
// with the build tag noxgboost, every constructor returns ErrUnavailable
// (see xgboost_disabled.go), so `CGO_ENABLED=0 go build ./...` works.
//
// Handles are freed by Close; a cleanup frees them when a value becomes
// unreachable without Close. A DMatrix or Booster must not be used by two
// goroutines at once.
package xgboost
