package sim

import (
	"reflect"
	"testing"
)

// FuzzParseProfile checks that any profile file (sim replay --profile
// FILE, a study's cluster.profile) is a valid profile or an error, never
// a panic, and that a profile it accepts is written by YAML as a file it
// reads back as the same profile.
func FuzzParseProfile(f *testing.F) {
	for _, name := range ProfileNames() {
		b, err := BuiltinProfileYAML(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("name: x\nconfig:\n  nodes: 4\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile("p.yaml", "p", data)
		if err != nil {
			return
		}
		b, err := p.YAML()
		if err != nil {
			t.Fatalf("ParseProfile accepted it, YAML fails: %v", err)
		}
		again, err := ParseProfile("again.yaml", "p", b)
		if err != nil {
			t.Fatalf("ParseProfile accepted it, not its YAML:\n%s\n%v", b, err)
		}
		if !reflect.DeepEqual(again, p) {
			t.Fatalf("round trip\n got %+v\nwant %+v", again, p)
		}
	})
}
