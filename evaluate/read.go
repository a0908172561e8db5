package evaluate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// File names inside an evaluation directory (WriteDir's).
const (
	MetricsFile = "metrics.json"
	WindowsFile = "windows.csv"
)

// ErrNoEvaluation reports a directory without metrics.json or windows.csv.
var ErrNoEvaluation = errors.New("not an evaluation directory")

// ErrModelDir reports a model directory that an evaluation's policy names
// but that cannot be found.
var ErrModelDir = errors.New("model directory not found")

// ReadMetrics reads dir/metrics.json. A missing file is an error wrapping
// ErrNoEvaluation.
func ReadMetrics(dir string) (Metrics, error) {
	var m Metrics
	path := filepath.Join(dir, MetricsFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, fmt.Errorf("%w: %s has no %s%s", ErrNoEvaluation, dir, MetricsFile, notEvaluationHint(dir))
	}
	if err != nil {
		return m, fmt.Errorf("read metrics: %w", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("read metrics %s: %w", path, err)
	}
	return m, nil
}

// ReadWindows reads dir/windows.csv with ReadCSV. A missing file is an
// error wrapping ErrNoEvaluation.
func ReadWindows(dir string) ([]Row, error) {
	path := filepath.Join(dir, WindowsFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s has no %s", ErrNoEvaluation, dir, WindowsFile)
	}
	if err != nil {
		return nil, fmt.Errorf("read windows: %w", err)
	}
	defer f.Close()
	rows, err := ReadCSV(f)
	if err != nil {
		return nil, fmt.Errorf("read windows %s: %w", path, err)
	}
	return rows, nil
}

// modelDirs returns, for each model policy family of m (KIND:DIR, DIR as
// the policy named it, relative to the working directory), DIR relative
// to the evaluation directory evalDir (slash-separated), or absolute when
// there is no relative path (another volume).
func modelDirs(evalDir string, m Metrics) map[string]string {
	return ModelDirsIn(evalDir, m, nil)
}

// ModelDirsIn is what WriteDir records as m.ModelDirs for policies
// parsed by ParsePoliciesIn with dirOf: each model family's directory
// dirOf(DIR) (nil: DIR), relative to evalDir.
func ModelDirsIn(evalDir string, m Metrics, dirOf func(string) string) map[string]string {
	out := map[string]string{}
	absEval, err := filepath.Abs(evalDir)
	if err != nil {
		return nil
	}
	for p := range m.Policies {
		n := ParseName(p)
		if !n.IsModel() {
			continue
		}
		if _, done := out[n.Family]; done {
			continue
		}
		dir := n.Dir
		if dirOf != nil {
			dir = dirOf(dir)
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(absEval, abs); err == nil {
			out[n.Family] = filepath.ToSlash(rel)
		} else {
			out[n.Family] = abs
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// ModelDir returns the directory of model policy family (KIND:DIR) of the
// evaluation read from evalDir: m.ModelDirs' entry, relative to evalDir
// (or absolute); without one (an evaluation written before model_dirs),
// DIR itself when absolute. It never resolves against the working
// directory. A directory that does not exist is an error wrapping
// ErrModelDir.
func (m Metrics) ModelDir(evalDir, family string) (string, error) {
	n := ParseName(family)
	if !n.IsModel() {
		return "", fmt.Errorf("%w: %q is not a model policy (KIND:DIR)", ErrModelDir, family)
	}
	dir, ok := m.ModelDirs[n.Family]
	switch {
	case ok && !filepath.IsAbs(dir):
		dir = filepath.Join(evalDir, filepath.FromSlash(dir))
	case !ok && filepath.IsAbs(n.Dir):
		dir = n.Dir
	case !ok:
		return "", fmt.Errorf("%w: %s: %s records no model_dirs entry for it (written before model paths were stored; rerun mirage evaluate)",
			ErrModelDir, n.Family, filepath.Join(evalDir, MetricsFile))
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrModelDir, n.Family, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%w: %s: %s is not a directory", ErrModelDir, n.Family, dir)
	}
	return dir, nil
}

// ModelFamilies returns m's model policy families (KIND:DIR), sorted.
func (m Metrics) ModelFamilies() []string {
	var out []string
	for p := range m.Policies {
		if n := ParseName(p); n.IsModel() && !slices.Contains(out, n.Family) {
			out = append(out, n.Family)
		}
	}
	slices.Sort(out)
	return out
}

// notEvaluationHint says what dir, which has no metrics.json, is and the
// command that makes an evaluation of it: a model directory (its
// manifest.json) is evaluated by its kind's policy, a pipeline run's
// output directory already holds its report stage.
func notEvaluationHint(dir string) string {
	if b, err := os.ReadFile(filepath.Join(dir, "manifest.json")); err == nil {
		var m struct {
			Kind   string `json:"kind"`
			Target string `json:"target"`
		}
		if json.Unmarshal(b, &m) == nil && m.Kind != "" {
			policy := m.Kind + ":" + dir
			switch m.Kind {
			case "estimate":
				policy = "slurm-estimate:" + dir
				if m.Target == "fixed-lead" { // train --model fixed-lead: the lead of the fixed-lead baseline
					policy = "fixed-lead:" + dir
				}
			case "runtime":
				policy = "runtime-estimate:" + dir
			}
			return fmt.Sprintf(": it is a model directory of kind %s (from mirage train), not an evaluation; evaluate the model first, then report on that: mirage evaluate --trace T.parquet --study STUDY --policy reactive,%s -o EVAL && mirage report --trace T.parquet EVAL", m.Kind, policy)
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "stages")); err == nil && st.IsDir() {
		return fmt.Sprintf(": it is a pipeline run's output directory; its report is %s/stages/report-*/report.html (mirage pipeline status STUDY -o %s lists the stages)", dir, dir)
	}
	return " (an evaluation directory is what mirage evaluate -o EVAL writes: mirage evaluate --trace T.parquet --study STUDY -o EVAL, then mirage report EVAL)"
}
