package evaluate

import (
	"errors"
	"testing"
)

// TestParsePolicies_Practice: the baselines of practice parse by the
// names the docs give them, and a bad lead is refused.
func TestParsePolicies_Practice(t *testing.T) {
	ps, err := ParsePolicies("dependency,fixed-lead,fixed-lead@lead=2.5", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ps[0].(HeldQ); !ok || ps[0].Name() != DependencyName {
		t.Errorf("dependency: %T %q, want a HeldQ named %q", ps[0], ps[0].Name(), DependencyName)
	}
	for i, want := range []float64{DefaultFixedLeadH, 2.5} {
		f, ok := ps[i+1].(*FixedLead)
		if !ok || f.LeadFor(1) != want {
			t.Errorf("%s: %T, lead %v; want %v", ps[i+1].Name(), ps[i+1], f.LeadFor(1), want)
		}
		if isHeld(f) {
			t.Errorf("%s is held", f.Name())
		}
	}
	for _, bad := range []string{"fixed-lead@lead=-1", "fixed-lead@lead=soon", "fixed-lead@lead=+Inf"} {
		if err := CheckPolicies(bad); !errors.Is(err, ErrPolicy) {
			t.Errorf("%s: %v, want ErrPolicy", bad, err)
		}
	}
	if n := ParseName("fixed-lead@lead=2"); n.Family != FixedLeadName || n.Key != "lead" || n.Value != 2 || n.IsModel() {
		t.Errorf("ParseName: %+v", n)
	}
}
