package pipelines

import (
	"path/filepath"
)

// modelNames maps the directory part of each trained model's policy
// (KIND:DIR, DIR relative to the output directory, slash-separated:
// stages/STAGE-KEY/NAME) to the model's directory. The policy names are
// in the evaluation's and the report's bytes, so they do not depend on
// how the output directory is spelled (relative, absolute, through a
// symbolic link) or where it is.
type modelNames map[string]string

// add records the model directory dir (under out) and returns its name.
func (n modelNames) add(out, dir string) string {
	name := dir
	if rel, err := filepath.Rel(out, dir); err == nil {
		name = filepath.ToSlash(rel)
	}
	n[name] = dir
	return name
}

// dirOf returns the directory a policy's DIR names: a trained model's,
// else DIR itself (a study's policy names its model as the user spelled
// it).
func (n modelNames) dirOf(dir string) string {
	if d, ok := n[dir]; ok {
		return d
	}
	return dir
}
