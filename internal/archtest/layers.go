package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
)

// Module is the module path the rules are written for.
const Module = "github.com/mirage-hpc/mirage"

// Layers gives every package of the module its layer, by its path
// relative to the module. A package may import only packages of strictly
// lower layers; a package missing from the table is itself a violation,
// so a new package has to be placed. internal/ helpers sit at the bottom
// (they import nothing of the domain), the leaf model formats beside
// them, and cmd at the top.
var Layers = map[string]int{
	// Leaves: import no package of the module.
	"internal/atomicfile": 0, "internal/digest": 0, "internal/workpool": 0, "internal/htmlpage": 0, "internal/plotticks": 0,
	"internal/golden": 0, "internal/testenv": 0, "internal/suggest": 0, "internal/bootstrap": 0, "train/xgbjson": 0, "train/xgboost": 0, "ingest/synth": 0,
	// Helpers built on the leaves.
	"internal/atomicdir": 1, "internal/browsercheck": 1, "internal/archtest": 1,
	"internal/browsercheck/cmd/browsercheck": 2,
	// The domain, lowest first (STYLE.md section 1).
	"trace":  10,
	"ingest": 20, "sim": 20,
	"ingest/ls6test": 21, "sim/simtest": 21,
	"features": 30, "analyze": 30,
	"train":     40,
	"train/dqn": 41, "train/jobruntime": 41, "train/modeltest": 41,
	"evaluate": 50, "advise": 50,
	"sim/replay": 55,
	"reports":    60,
	"pipelines":  70,
	"cmd/mirage": 80,
}

// CLIOnly are the import path prefixes only cmd/ may import: the
// command-line and configuration libraries. Every other package takes
// plain Go values, so that the pipeline and library users call it
// without flags or config files.
var CLIOnly = []string{"github.com/spf13/", "github.com/go-viper/"}

// Forbidden lists, per package, further import path prefixes it must not
// use (Arrow stays out of the trace layer, whose format is parquet-go's).
var Forbidden = map[string][]string{
	"trace": {"github.com/apache/arrow"},
}

// NoCgo lists packages that must not link cgo, directly or through any
// package they import: the pure-Go XGBoost evaluator, which the
// predictors use where libxgboost is not installed.
var NoCgo = []string{"train/xgbjson"}

// listed is the part of `go list -json` the checks read.
type listed struct {
	ImportPath string
	Imports    []string
	Deps       []string
	CgoFiles   []string
	Error      *struct{ Err string }
	DepsErrors []*struct{ Err string }
}

// Check lists the packages of the module in dir with `go list -e -deps`
// and returns every violation of the rules above, one line each, sorted.
// An error from go list itself, or a package it cannot load, is an
// error: a check that cannot see the code does not pass.
func Check(dir string) ([]string, error) {
	cmd := exec.Command("go", "list", "-e", "-json", "-deps", "./...")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list in %s: %w: %s", dir, err, strings.TrimSpace(stderr.String()))
	}
	pkgs := map[string]*listed{}
	var order []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list in %s: %w", dir, err)
		}
		pkgs[p.ImportPath] = &p
		order = append(order, p.ImportPath)
	}
	var bad []string
	seen := 0
	for _, path := range order {
		p := pkgs[path]
		rel, ok := relPath(path)
		if !ok {
			continue // the standard library or a dependency, listed by -deps
		}
		seen++
		if p.Error != nil {
			return nil, fmt.Errorf("go list: %s: %s", rel, p.Error.Err)
		}
		for _, e := range p.DepsErrors {
			return nil, fmt.Errorf("go list: %s: %s", rel, e.Err)
		}
		bad = append(bad, checkPackage(rel, p, pkgs)...)
	}
	if seen == 0 {
		return nil, fmt.Errorf("go list in %s: no package of %s", dir, Module)
	}
	slices.Sort(bad)
	return bad, nil
}

// checkPackage returns the violations of one package (rel: its path in
// the module).
func checkPackage(rel string, p *listed, pkgs map[string]*listed) []string {
	var bad []string
	layer, ok := Layers[rel]
	if !ok {
		return []string{fmt.Sprintf("%s has no layer: add it to archtest.Layers", rel)}
	}
	cmd := rel == "cmd" || strings.HasPrefix(rel, "cmd/")
	for _, imp := range p.Imports {
		for _, prefix := range append(slices.Clone(Forbidden[rel]), cliOnly(cmd)...) {
			if strings.HasPrefix(imp, prefix) {
				bad = append(bad, fmt.Sprintf("%s imports %s, which only cmd/ may use", rel, imp))
			}
		}
		to, ok := relPath(imp)
		if !ok {
			continue
		}
		if lt, ok := Layers[to]; ok && lt >= layer {
			bad = append(bad, fmt.Sprintf("%s (layer %d) imports %s (layer %d): imports must go down", rel, layer, to, lt))
		}
	}
	if slices.Contains(NoCgo, rel) {
		for _, dep := range append([]string{p.ImportPath}, p.Deps...) {
			if d := pkgs[dep]; d != nil && len(d.CgoFiles) > 0 && !isStd(dep) {
				bad = append(bad, fmt.Sprintf("%s links cgo through %s, and must stay pure Go", rel, dep))
			}
		}
	}
	return bad
}

// cliOnly returns CLIOnly for a package outside cmd/.
func cliOnly(cmd bool) []string {
	if cmd {
		return nil
	}
	return CLIOnly
}

// relPath returns an import path relative to the module, and whether it
// is in the module.
func relPath(path string) (string, bool) {
	if path == Module {
		return ".", true
	}
	rel, ok := strings.CutPrefix(path, Module+"/")
	return rel, ok
}

// isStd reports whether path is a standard-library package (its first
// element has no dot): those link cgo only as the toolchain builds them
// (net, os/user), which NoCgo does not police.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}
