package features

import "testing"

// TestReplayProfile: the profile a protocol replays a trace with has the
// protocol's partition size and its inferences on exactly as it says.
func TestReplayProfile(t *testing.T) {
	p, err := LookupProtocol("ls6")
	if err != nil {
		t.Fatal(err)
	}
	prof, err := p.ReplayProfile()
	if err != nil {
		t.Fatal(err)
	}
	if prof.InferDependencies == nil || prof.InferCapacity == nil {
		t.Error("ls6: the inferences are off, want the profile's on")
	}
	p.Nodes, p.InferDeps, p.InferCapacity = 40, false, false
	if prof, err = p.ReplayProfile(); err != nil {
		t.Fatal(err)
	}
	if prof.Config.Nodes != 40 || prof.NodesFromTrace || prof.InferDependencies != nil || prof.InferCapacity != nil {
		t.Errorf("nodes %d (from trace %v), inferences %v %v; want 40 nodes, none", prof.Config.Nodes, prof.NodesFromTrace,
			prof.InferDependencies != nil, prof.InferCapacity != nil)
	}
	m, err := LookupProtocol("mirage-ls6")
	if err != nil {
		t.Fatal(err)
	}
	m.InferDeps, m.InferCapacity = true, true // on for a profile that has no settings for them
	if prof, err = m.ReplayProfile(); err != nil {
		t.Fatal(err)
	}
	if prof.InferDependencies == nil || prof.InferCapacity == nil || prof.Config.Nodes != 88 {
		t.Errorf("mirage-ls6 with inferences: %+v", prof)
	}
}
