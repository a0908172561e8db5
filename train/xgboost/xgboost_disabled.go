//go:build !cgo || noxgboost

package xgboost

// Available reports whether libxgboost is linked.
const Available = false

// DMatrix is a stub; see xgboost.go.
type DMatrix struct{}

// Booster is a stub; see xgboost.go.
type Booster struct{}

// Version returns ErrUnavailable.
func Version() (LibVersion, error) { return LibVersion{}, ErrUnavailable }

// BuildInfo returns ErrUnavailable.
func BuildInfo() (map[string]any, error) { return nil, ErrUnavailable }

// NewDMatrix returns ErrUnavailable.
func NewDMatrix(data []float32, nrow, ncol int, layout Layout) (*DMatrix, error) {
	return nil, ErrUnavailable
}

// SetLabels returns ErrUnavailable.
func (d *DMatrix) SetLabels(y []float32) error { return ErrUnavailable }

// SetWeights returns ErrUnavailable.
func (d *DMatrix) SetWeights(w []float32) error { return ErrUnavailable }

// Rows returns ErrUnavailable.
func (d *DMatrix) Rows() (int, error) { return 0, ErrUnavailable }

// Close does nothing.
func (d *DMatrix) Close() error { return nil }

// NewBooster returns ErrUnavailable.
func NewBooster(cache ...*DMatrix) (*Booster, error) { return nil, ErrUnavailable }

// LoadBooster returns ErrUnavailable.
func LoadBooster(model []byte) (*Booster, error) { return nil, ErrUnavailable }

// SetParam returns ErrUnavailable.
func (b *Booster) SetParam(key, value string) error { return ErrUnavailable }

// SetParams returns ErrUnavailable.
func (b *Booster) SetParams(ps []Param) error { return ErrUnavailable }

// Update returns ErrUnavailable.
func (b *Booster) Update(iter int, train *DMatrix) error { return ErrUnavailable }

// Eval returns ErrUnavailable.
func (b *Booster) Eval(iter int, dmats []*DMatrix, names []string) (string, error) {
	return "", ErrUnavailable
}

// Predict returns ErrUnavailable.
func (b *Booster) Predict(d *DMatrix, iterEnd int) ([]float32, error) { return nil, ErrUnavailable }

// BoostedRounds returns ErrUnavailable.
func (b *Booster) BoostedRounds() (int, error) { return 0, ErrUnavailable }

// Save returns ErrUnavailable.
func (b *Booster) Save(f Format) ([]byte, error) { return nil, ErrUnavailable }

// Load returns ErrUnavailable.
func (b *Booster) Load(model []byte) error { return ErrUnavailable }

// SaveFile returns ErrUnavailable.
func (b *Booster) SaveFile(path string) error { return ErrUnavailable }

// LoadFile returns ErrUnavailable.
func (b *Booster) LoadFile(path string) error { return ErrUnavailable }

// FeatureScore returns ErrUnavailable.
func (b *Booster) FeatureScore(importanceType string) (map[string]float64, error) {
	return nil, ErrUnavailable
}

// Close does nothing.
func (b *Booster) Close() error { return nil }
