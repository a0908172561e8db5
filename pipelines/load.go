package pipelines

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"
)

//go:embed studies/*.yaml
var builtin embed.FS

// BuiltinNames lists the studies built into mirage (mirage study show
// NAME), sorted.
func BuiltinNames() []string {
	entries, _ := fs.ReadDir(builtin, "studies")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	slices.Sort(names)
	return names
}

// Builtin returns a built-in study, validated as Load validates a file,
// and its YAML text.
func Builtin(name string) (*Study, []byte, error) {
	b, err := builtin.ReadFile("studies/" + name + ".yaml")
	if err != nil {
		return nil, nil, fmt.Errorf("%w: no built-in study %q (built in: %s)", ErrStudy, name, strings.Join(BuiltinNames(), ", "))
	}
	s, err := decodeYAML("study "+name, b)
	if err != nil {
		return nil, nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, nil, fmt.Errorf("study %s: %w", name, err)
	}
	return s, b, nil
}

// Load reads a study file: YAML (.yaml, .yml), JSON (.json) or TOML
// (.toml). Unknown fields are errors; errors name the file (and, for
// YAML, the line) and the field. The study is validated.
func Load(path string, data []byte) (*Study, error) {
	var s *Study
	var err error
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".yaml", ".yml":
		s, err = decodeYAML(path, data)
	case ".json":
		s, err = decodeJSON(path, data)
	case ".toml":
		s, err = decodeTOML(path, data)
	default:
		return nil, fmt.Errorf("%w: %s: want a .yaml, .yml, .json or .toml file", ErrStudy, path)
	}
	if err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		if ext := strings.ToLower(filepath.Ext(path)); ext == ".yaml" || ext == ".yml" {
			if line := validationLine(parseYAMLDoc(data), err); line > 0 {
				return nil, fmt.Errorf("%s: line %d: %w", path, line, err)
			}
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.dir = filepath.Dir(path)
	return s, nil
}

func decodeYAML(name string, data []byte) (*Study, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err == nil && doc.Kind != 0 {
		if err := checkYAMLKeys(name, &doc, reflect.TypeFor[Study]()); err != nil {
			return nil, err
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Study
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %s: %s", ErrStudy, name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return &s, nil
}

// decodeJSON decodes a JSON study, field names as the json tags give
// them (matched case-insensitively, as encoding/json does); an unknown
// field is an error naming it.
func decodeJSON(name string, data []byte) (*Study, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Study
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %s: %s", ErrStudy, name, strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: %s: more than one JSON value", ErrStudy, name)
	}
	return &s, nil
}

// decodeTOML decodes a TOML study: go-toml reads it into a tree, which
// decodeJSON then decodes, so TOML and JSON studies share one set of
// field names and checks.
func decodeTOML(name string, data []byte) (*Study, error) {
	var tree map[string]any
	if err := toml.Unmarshal(data, &tree); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrStudy, name, err)
	}
	b, err := json.Marshal(tree)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrStudy, name, err)
	}
	return decodeJSON(name, b)
}

// Marshal writes the study as YAML.
func (s *Study) Marshal() ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// parseYAMLDoc is data's YAML node tree, for the lines of Validate's
// errors; nil when it does not parse.
func parseYAMLDoc(data []byte) *yaml.Node {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || doc.Kind == 0 {
		return nil
	}
	return &doc
}
