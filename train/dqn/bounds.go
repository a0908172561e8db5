package dqn

import (
	"errors"
	"fmt"
	"math"

	"github.com/mirage-hpc/mirage/train"
)

// Bounds of a network Open loads: at most MaxLayers layer sizes (input,
// hidden layers and output), each at most MaxLayerWidth units, and at most
// MaxParams weights and biases in all (64 MiB of F32 weights). Open
// checks a manifest's architecture against them before it reads or
// allocates anything of its size.
const (
	MaxLayers     = 32
	MaxLayerWidth = 1 << 14
	MaxParams     = 1 << 24
)

// ErrArchitecture is wrapped by CheckArchitecture's errors.
var ErrArchitecture = errors.New("dqn: architecture")

// CheckArchitecture checks the layer sizes of a manifest's architecture:
// at least 2 and at most MaxLayers, the first the number of features
// nFeatures, the last NumActions, each in [1, MaxLayerWidth], and at most
// MaxParams parameters in all. It returns the parameter count.
func CheckArchitecture(layers []int, nFeatures int) (int64, error) {
	if len(layers) < 2 || len(layers) > MaxLayers {
		return 0, fmt.Errorf("%w: %d layer sizes %v, want 2 to %d", ErrArchitecture, len(layers), layers, MaxLayers)
	}
	if layers[0] != nFeatures || layers[len(layers)-1] != NumActions {
		return 0, fmt.Errorf("%w: layers %v do not fit %d features and %d actions", ErrArchitecture, layers, nFeatures, NumActions)
	}
	var params int64
	for l, n := range layers {
		if n < 1 || n > MaxLayerWidth {
			return 0, fmt.Errorf("%w: layer %d has %d units, want 1 to %d", ErrArchitecture, l, n, MaxLayerWidth)
		}
		if l > 0 {
			params += int64(layers[l-1])*int64(n) + int64(n)
		}
	}
	if params > MaxParams {
		return 0, fmt.Errorf("%w: layers %v have %d parameters, more than %d", ErrArchitecture, layers, params, MaxParams)
	}
	return params, nil
}

// Check returns an error unless s standardises dim features to finite
// values: dim means and standard deviations, every mean finite, every
// standard deviation finite and > 0, and Clip finite and ≥ 0 (a standard
// deviation of 0 divides by 0: NaN or infinite inputs).
func (s Stats) Check(dim int) error {
	if len(s.Mean) != dim || len(s.Std) != dim {
		return fmt.Errorf("%d means and %d standard deviations for %d features", len(s.Mean), len(s.Std), dim)
	}
	for j := range dim {
		if m := s.Mean[j]; math.IsNaN(m) || math.IsInf(m, 0) {
			return fmt.Errorf("mean %d is %v", j, m)
		}
		if sd := s.Std[j]; !(sd > 0) || math.IsInf(sd, 0) {
			return fmt.Errorf("std %d is %v: want a finite number > 0", j, sd)
		}
	}
	if !(s.Clip >= 0) || math.IsInf(s.Clip, 0) {
		return fmt.Errorf("clip %v: want a finite number >= 0", s.Clip)
	}
	return nil
}

// Advantage returns Q(submit) − Q(wait) at raw features x and the
// Q-values; an error wrapping train.ErrBadModel when a Q-value is NaN or
// infinite (a model that cannot decide).
func (m *Model) Advantage(x []float64) (float64, []float64, error) {
	q := m.Q(nil, x)
	for a, v := range q {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, q, fmt.Errorf("%w: dqn: Q(%s) is %v", train.ErrBadModel, actionName(a), v)
		}
	}
	return q[ActionSubmit] - q[ActionWait], q, nil
}

func actionName(a int) string {
	if a == ActionSubmit {
		return "submit"
	}
	return "wait"
}

// Decide is SubmitAt with Advantage's check: an error wrapping
// train.ErrBadModel when a Q-value is NaN or infinite.
func (m *Model) Decide(x []float64, nodes int) (bool, error) {
	adv, q, err := m.Advantage(x)
	if err != nil {
		return false, err
	}
	if op := m.Manifest.OperatingPoint; op != nil {
		return adv >= op.For(nodes).Threshold, nil
	}
	return ArgMax(q) == ActionSubmit, nil
}
