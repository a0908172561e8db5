package pipelines

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// TestLoad_Formats: the built-in synth study written as JSON and as TOML
// loads as the same study as its YAML, and an unknown field is refused
// naming it in each format.
func TestLoad_Formats(t *testing.T) {
	want, text, err := Builtin("synth")
	if err != nil {
		t.Fatal(err)
	}
	yml, err := Load("/s/synth.yaml", text)
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var tree map[string]any
	if err := json.Unmarshal(js, &tree); err != nil {
		t.Fatal(err)
	}
	tm, err := toml.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		data []byte
		bad  []byte
	}{
		{"/s/synth.json", js, []byte(`{"name": "x", "periods": {"train": {"windws": 3}}}`)},
		{"/s/synth.toml", tm, []byte("name = \"x\"\n[periods.train]\nwindws = 3\n")},
	} {
		got, err := Load(c.path, c.data)
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.path, err, c.data)
		}
		if !reflect.DeepEqual(got, yml) {
			t.Errorf("%s loads as\n%+v\nthe YAML as\n%+v", c.path, got, yml)
		}
		if _, err := Load(c.path, c.bad); err == nil || !strings.Contains(err.Error(), "windws") {
			t.Errorf("%s with an unknown field: %v, want an error naming windws", c.path, err)
		}
	}
}
