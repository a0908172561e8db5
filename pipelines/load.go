package pipelines

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"
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
	case ".json", ".toml":
		s, err = decodeViper(path, strings.TrimPrefix(ext, "."), data)
	default:
		return nil, fmt.Errorf("%w: %s: want a .yaml, .yml, .json or .toml file", ErrStudy, path)
	}
	if err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.dir = filepath.Dir(path)
	return s, nil
}

func decodeYAML(name string, data []byte) (*Study, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Study
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %s: %s", ErrStudy, name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return &s, nil
}

func decodeViper(name, kind string, data []byte) (*Study, error) {
	v := viper.New()
	v.SetConfigType(kind)
	if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrStudy, name, err)
	}
	var s Study
	hook := viper.DecodeHook(mapstructure.TextUnmarshallerHookFunc())
	if err := v.UnmarshalExact(&s, hook); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrStudy, name, err)
	}
	return &s, nil
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
