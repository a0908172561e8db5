package xgboost

import (
	"errors"
	"strconv"
)

// ErrUnavailable is returned by every constructor when the package was
// built without cgo or with the noxgboost tag.
var ErrUnavailable = errors.New("xgboost: library not linked (built without cgo or with the noxgboost tag)")

// ErrClosed is returned by methods of a closed DMatrix or Booster.
var ErrClosed = errors.New("xgboost: use of closed handle")

// Layout is the memory order of a dense matrix.
type Layout uint8

const (
	// LayoutRowMajor stores row i, column j at i*ncol+j.
	LayoutRowMajor Layout = iota
	// LayoutColMajor stores row i, column j at j*nrow+i.
	LayoutColMajor
)

// String returns "row-major" or "col-major".
func (l Layout) String() string {
	if l == LayoutColMajor {
		return "col-major"
	}
	return "row-major"
}

// Format is a model serialisation format.
type Format uint8

const (
	// FormatJSON is XGBoost's JSON model format.
	FormatJSON Format = iota
	// FormatUBJSON is XGBoost's universal binary JSON model format.
	FormatUBJSON
)

// String returns "json" or "ubj", the names XGBoost's config uses.
func (f Format) String() string {
	if f == FormatUBJSON {
		return "ubj"
	}
	return "json"
}

// LibVersion is the version of the linked libxgboost.
type LibVersion struct {
	Major, Minor, Patch int
}

// String returns "major.minor.patch".
func (v LibVersion) String() string {
	return strconv.Itoa(v.Major) + "." + strconv.Itoa(v.Minor) + "." + strconv.Itoa(v.Patch)
}

// Param is one booster parameter; parameters are applied in order.
type Param struct {
	Key, Value string
}
