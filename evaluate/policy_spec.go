package evaluate

// PolicySpec is a policy list with its parameters and sweeps, as the
// evaluate stage takes it (RunOptions.Policies).
type PolicySpec struct {
	// List is the comma-separated policy list (ParsePolicies).
	List string
	// Thetas are the models' θ in hours (ParsePolicies); nil keeps each
	// model's operating point.
	Thetas []float64
	// MarginSec is slurm-estimate's margin in seconds (ParsePolicies).
	MarginSec int64
	// MarginsSec sweeps slurm-estimate's margin (SweepMargins), in
	// seconds; nil keeps MarginSec.
	MarginsSec []int64
	// Sweep adds the models' and oracle-cost's sweeps (SweepModels).
	Sweep bool
	// DirOf finds the directory a policy's DIR names (ParsePoliciesIn)
	// and so the model directories recorded in metrics.json
	// (ModelDirsIn); nil: DIR, relative to the working directory.
	DirOf func(string) string
}

// Parse returns the policies of s: ParsePoliciesIn, then SweepMargins,
// then SweepModels when s.Sweep. A bad name is an error wrapping
// ErrPolicy; a model directory that does not open is its own error.
func (s PolicySpec) Parse() ([]Policy, error) {
	ps, err := ParsePoliciesIn(s.List, s.Thetas, s.MarginSec, s.DirOf)
	if err != nil {
		return nil, err
	}
	ps = SweepMargins(ps, s.MarginsSec)
	if s.Sweep {
		ps = SweepModels(ps)
	}
	return ps, nil
}

// PolicyListError is the error of Run and RunShard when their
// policy list does not parse (PolicySpec.Parse): a caller can so tell
// its own configuration's fault from the trace's. Its message is Err's.
type PolicyListError struct {
	Err error
}

func (e *PolicyListError) Error() string { return e.Err.Error() }
func (e *PolicyListError) Unwrap() error { return e.Err }
