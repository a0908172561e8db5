package pipelines

import (
	"encoding"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mirage-hpc/mirage/internal/suggest"
)

// checkYAMLKeys walks a YAML study's node tree beside the Go type it
// decodes into (a *Study) and returns the first error naming its line and
// the key's path as the study file spells it (periods.train.windws): an
// unknown key, with the keys allowed there and a did-you-mean, or a value
// its type's UnmarshalText refuses (stride: 6hours). yaml's own errors
// name the Go type instead ("field windws not found in type
// pipelines.Period") and, for a Duration, neither field nor line.
func checkYAMLKeys(name string, doc *yaml.Node, t reflect.Type) error {
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		doc = doc.Content[0]
	}
	return walkYAML(name, doc, t, "")
}

var (
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	yamlUnmarshaler = reflect.TypeFor[yaml.Unmarshaler]()
)

func walkYAML(name string, n *yaml.Node, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	pt := reflect.PointerTo(t)
	switch {
	case pt.Implements(yamlUnmarshaler):
		return nil // its own reader names its errors
	case pt.Implements(textUnmarshaler):
		if n.Kind != yaml.ScalarNode {
			return nil // the decoder says what is wrong
		}
		v := reflect.New(t).Interface().(encoding.TextUnmarshaler)
		if err := v.UnmarshalText([]byte(n.Value)); err != nil {
			return fmt.Errorf("%w: %s: line %d: %s: %w", ErrStudy, name, n.Line, path, err)
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		fields := yamlFields(t)
		var names []string
		for k := range fields {
			names = append(names, k)
		}
		slices.Sort(names)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			f, ok := fields[k.Value]
			if !ok {
				where := "the top level"
				if path != "" {
					where = path
				}
				return fmt.Errorf("%w: %s: line %d: unknown key %s in %s (known there: %s)%s",
					ErrStudy, name, k.Line, join(path, k.Value), where, strings.Join(names, ", "), suggest.Hint(k.Value, names))
			}
			if err := walkYAML(name, v, f.Type, join(path, k.Value)); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return nil
		}
		for i, e := range n.Content {
			if err := walkYAML(name, e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode || t.Elem().Kind() == reflect.Interface {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := walkYAML(name, n.Content[i+1], t.Elem(), join(path, n.Content[i].Value)); err != nil {
				return err
			}
		}
	}
	return nil
}

// yamlFields maps the YAML keys of struct type t to its fields (inline
// structs' keys included).
func yamlFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		if tag == "-" {
			continue
		}
		key, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(","+opts+",", ",inline,") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range yamlFields(ft) {
					out[k] = v
				}
			}
			continue
		}
		if key == "" {
			key = strings.ToLower(f.Name)
		}
		out[key] = f
	}
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// fieldPath matches the key path a Validate error starts with
// (models[1].kind, periods.train.stride, policies).
var fieldPath = regexp.MustCompile(`^([a-z_]+(?:\[\d+\])?(?:\.[a-z_]+(?:\[\d+\])?)*): `)

// yamlLine returns the line of the key path (as fieldPath matches it) in
// a YAML document, or 0 when the document does not spell it; when the
// value under it holds the scalar value (a list's bad element), that
// scalar's line.
func yamlLine(doc *yaml.Node, path, value string) int {
	n := doc
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	line := 0
	for _, part := range strings.Split(path, ".") {
		key, idx, hasIdx := strings.Cut(part, "[")
		if n.Kind != yaml.MappingNode {
			return 0
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				line, next = n.Content[i].Line, n.Content[i+1]
				break
			}
		}
		if next == nil {
			return 0
		}
		n = next
		if hasIdx {
			i, err := strconv.Atoi(strings.TrimSuffix(idx, "]"))
			if err != nil || n.Kind != yaml.SequenceNode || i >= len(n.Content) {
				return line
			}
			n = n.Content[i]
			line = n.Line
		}
	}
	if l := scalarLine(n, value); l > 0 {
		return l
	}
	return line
}

// scalarLine is the line of the first scalar under n whose value is v,
// or 0.
func scalarLine(n *yaml.Node, v string) int {
	if v == "" {
		return 0
	}
	if n.Kind == yaml.ScalarNode && n.Value == v {
		return n.Line
	}
	for _, c := range n.Content {
		if l := scalarLine(c, v); l > 0 {
			return l
		}
	}
	return 0
}

// quotedValue is the first %q-quoted string of msg, or "".
var quotedValue = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)

// validationLine returns the line of the field a Validate error names
// ("invalid study: models[1].kind: ..."), or 0.
func validationLine(doc *yaml.Node, err error) int {
	if doc == nil {
		return 0
	}
	msg := strings.TrimPrefix(err.Error(), ErrStudy.Error()+": ")
	m := fieldPath.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	value := ""
	if q := quotedValue.FindString(msg[len(m[0]):]); q != "" {
		value, _ = strconv.Unquote(q)
	}
	return yamlLine(doc, m[1], value)
}
