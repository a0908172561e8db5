package pipelines_test

import (
	"testing"

	"github.com/mirage-hpc/mirage/pipelines"
)

// TestStudy_FeaturesWide: the study key features.wide turns on the wide
// columns of both periods' protocols; without it they are off.
func TestStudy_FeaturesWide(t *testing.T) {
	_, text, err := pipelines.Builtin("ls6")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, extra string
		want        bool
	}{{"absent", "", false}, {"on", "features: {wide: true}\n", true}, {"off", "features:\n  wide: false\n", false}} {
		s, err := pipelines.Load("s.yaml", append(append([]byte{}, text...), c.extra...))
		if err != nil {
			t.Fatal(err)
		}
		tr, va, err := s.Protocols()
		if err != nil {
			t.Fatal(err)
		}
		if tr.Wide != c.want || va.Wide != c.want {
			t.Errorf("%s: protocols' wide %v, %v; want %v", c.name, tr.Wide, va.Wide, c.want)
		}
	}
}
