package pipelines

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// lineBreaks are the characters no string of a study may hold: its
// values reach batch scripts, sbatch's command line, job names and
// one-line records and logs, none of which can carry a line break or a
// NUL.
const lineBreaks = "\n\r\x00"

// checkText refuses a newline, a carriage return or a NUL in any string
// of the study (every field, list element, map key and value, however
// deep), naming the first such field as the study file spells it
// (slurm.account, trace.inputs[1], models[0].dqn.hidden).
func (s *Study) checkText() error {
	return textField(reflect.ValueOf(s).Elem(), "")
}

func textField(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.String:
		if strings.ContainsAny(v.String(), lineBreaks) {
			return fmt.Errorf("%w: %s: %q: holds a newline, carriage return or NUL: want one line", ErrStudy, path, v.String())
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return textField(v.Elem(), path)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			if path != "" {
				name = path + "." + name
			}
			if err := textField(v.Field(i), name); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := textField(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		for _, k := range keys {
			name := fmt.Sprintf("%s.%v", path, k)
			if err := textField(k, path+" key"); err != nil {
				return err
			}
			if err := textField(v.MapIndex(k), name); err != nil {
				return err
			}
		}
	}
	return nil
}
