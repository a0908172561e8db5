package train

// Policy decides, at each decision time of a chain, from the model's
// predicted r (hours), whether to submit the successor job Q now.
// Evaluation replays a chain's decision times in order and submits at
// the first one where Submit is true.
type Policy interface {
	Submit(predictedRHours float64) bool
}

// DefaultThetaHours is the artifact's threshold θ.
const DefaultThetaHours = 0.5

// ThresholdPolicy submits Q when the predicted r >= -ThetaHours: when the
// predicted interruption is at worst a small overlap of θ hours. A larger
// θ submits earlier (less interruption, more overlap); evaluation sweeps it.
type ThresholdPolicy struct {
	ThetaHours float64
}

// DefaultPolicy returns the artifact's rule, θ = 0.5 h.
func DefaultPolicy() ThresholdPolicy { return ThresholdPolicy{ThetaHours: DefaultThetaHours} }

// Submit reports whether predictedRHours >= -p.ThetaHours.
func (p ThresholdPolicy) Submit(predictedRHours float64) bool {
	return predictedRHours >= -p.ThetaHours
}

// FirstSubmit returns the index of the first decision time, in order, at
// which p submits given the predictions rHours, or -1 if it never does.
func FirstSubmit(p Policy, rHours []float64) int {
	for i, r := range rHours {
		if p.Submit(r) {
			return i
		}
	}
	return -1
}
