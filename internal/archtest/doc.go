// Package archtest enforces Mirage's package layers (STYLE.md section 1):
// Check lists the module's packages with go list and reports every
// violation of the rules, which are data in this package:
//
//   - Layers places every package, sub-packages and internal/ included, in
//     a layer; a package imports only from strictly lower layers, and a
//     package with no layer is a violation;
//   - CLIOnly: cobra, pflag and viper only in cmd/;
//   - Forbidden: further imports a package must not use;
//   - NoCgo: the pure-Go XGBoost evaluator links no cgo, directly or
//     through any import.
//
// A go list error fails the check. TestLayers_Planted plants a violation
// of each kind in a copy of the module and sees the check fail.
package archtest
