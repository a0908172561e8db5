package pipelines

import (
	"testing"
)

// FuzzLoad checks that any study file, in each of the formats Load
// reads, is a valid study or an error (never a panic), and that a study
// Load accepts is written by Marshal as YAML that Load accepts again.
func FuzzLoad(f *testing.F) {
	_, synth, err := Builtin("synth")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(".yaml", synth)
	f.Add(".yaml", []byte("name: x\nkind: forest\n"))
	f.Add(".json", []byte(`{"name": "x", "trace": {"generate": {"jobs": 1000}}}`))
	f.Add(".toml", []byte("name = \"x\"\n[slurm]\naccount = \"a\"\n"))
	f.Fuzz(func(t *testing.T, ext string, data []byte) {
		if ext != ".yaml" && ext != ".json" && ext != ".toml" {
			ext = ".yaml"
		}
		s, err := Load("/studies/s"+ext, data)
		if err != nil {
			return
		}
		b, err := s.Marshal()
		if err != nil {
			t.Fatalf("Load accepted the study, Marshal fails: %v", err)
		}
		if _, err := Load("/studies/again.yaml", b); err != nil {
			t.Fatalf("Load accepted the study, not its YAML:\n%s\n%v", b, err)
		}
	})
}
