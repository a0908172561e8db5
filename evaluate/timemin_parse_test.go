package evaluate

import (
	"errors"
	"testing"
)

// TestParsePolicies_TimeMin: "BASE@tmin=DUR" wraps BASE in WithTimeMin
// with DUR in seconds, named as typed; a policy without it is not
// wrapped; a bad duration, a hindsight base or an unknown base is an
// ErrPolicy.
func TestParsePolicies_TimeMin(t *testing.T) {
	for _, tc := range []struct {
		list  string
		names []string
		tmin  []int64 // -1: not a TimeMinPolicy
		bad   bool
	}{
		{list: "reactive", names: []string{"reactive"}, tmin: []int64{-1}},
		{list: "reactive@tmin=6h", names: []string{"reactive@tmin=6h"}, tmin: []int64{6 * 3600}},
		{list: "reactive,reactive@tmin=90m,dependency@tmin=1h30m", names: []string{"reactive", "reactive@tmin=90m", "dependency@tmin=1h30m"}, tmin: []int64{-1, 5400, 5400}},
		{list: "fixed-lead@lead=2@tmin=12h", names: []string{"fixed-lead@lead=2@tmin=12h"}, tmin: []int64{12 * 3600}},
		{list: "slurm-estimate@tmin=1h", names: []string{"slurm-estimate@tmin=1h"}, tmin: []int64{3600}},
		{list: "reactive@tmin=0s", bad: true},
		{list: "reactive@tmin=-1h", bad: true},
		{list: "reactive@tmin=1.5s", bad: true},
		{list: "reactive@tmin=6", bad: true},
		{list: "reactive@tmin=", bad: true},
		{list: "@tmin=6h", bad: true},
		{list: "oracle@tmin=6h", bad: true},
		{list: "oracle-cost@λ=1@tmin=6h", bad: true},
		{list: "reactiv@tmin=6h", bad: true},
		{list: "reactive@tmin=6h,reactive@tmin=6h", bad: true},
	} {
		ps, err := ParsePolicies(tc.list, nil, 0)
		if tc.bad {
			if !errors.Is(err, ErrPolicy) {
				t.Errorf("%q: err %v, want ErrPolicy", tc.list, err)
			}
			if cerr := CheckPolicies(tc.list); !errors.Is(cerr, ErrPolicy) {
				t.Errorf("%q: CheckPolicies err %v, want ErrPolicy", tc.list, cerr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.list, err)
			continue
		}
		if len(ps) != len(tc.names) {
			t.Errorf("%q: %d policies, want %d", tc.list, len(ps), len(tc.names))
			continue
		}
		for i, p := range ps {
			if p.Name() != tc.names[i] {
				t.Errorf("%q: policy %d named %q, want %q", tc.list, i, p.Name(), tc.names[i])
			}
			tp, ok := p.(TimeMinPolicy)
			switch {
			case tc.tmin[i] < 0 && ok:
				t.Errorf("%q: %s is a TimeMinPolicy", tc.list, p.Name())
			case tc.tmin[i] >= 0 && !ok:
				t.Errorf("%q: %s is not a TimeMinPolicy", tc.list, p.Name())
			case ok && tp.QTimeMinSec() != tc.tmin[i]:
				t.Errorf("%q: %s time-min %d s, want %d", tc.list, p.Name(), tp.QTimeMinSec(), tc.tmin[i])
			}
		}
	}
	// dependency keeps its held Q through the wrapper.
	ps, err := ParsePolicies("dependency@tmin=1h", nil, 0)
	if err != nil || !isHeld(ps[0]) {
		t.Errorf("dependency@tmin=1h: held %v, err %v; want held", err == nil && isHeld(ps[0]), err)
	}
	// slurm-estimate's margin sweep keeps the time-min.
	ps = SweepMargins([]Policy{WithTimeMin(SlurmEstimate{}, 60)}, []int64{0, 1800})
	if len(ps) != 2 || ps[1].Name() != "slurm-estimate@margin=0.5+time-min=1m0s" || ps[1].(TimeMinPolicy).QTimeMinSec() != 60 {
		t.Errorf("margin sweep of a time-min slurm-estimate: %v", ps)
	}
}

// TestParseName_TimeMin: a time-min suffix stays in Family but not in
// Kind or Dir, so a model's directory is found.
func TestParseName_TimeMin(t *testing.T) {
	for _, tc := range []struct{ in, family, kind, dir, tmin string }{
		{"xgboost:m/x@tmin=6h", "xgboost:m/x@tmin=6h", "xgboost", "m/x", "tmin=6h"},
		{"xgboost:m/x@θ=0.5@tmin=6h", "xgboost:m/x@tmin=6h", "xgboost", "m/x", "tmin=6h"},
		{"reactive@tmin=1h", "reactive@tmin=1h", "reactive", "", "tmin=1h"},
		{"xgboost:m/x", "xgboost:m/x", "xgboost", "m/x", ""},
	} {
		n := ParseName(tc.in)
		if n.Family != tc.family || n.Kind != tc.kind || n.Dir != tc.dir || n.TimeMin != tc.tmin {
			t.Errorf("%q: %+v, want family %q kind %q dir %q time-min %q", tc.in, n, tc.family, tc.kind, tc.dir, tc.tmin)
		}
	}
}
