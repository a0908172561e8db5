package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/ingest"
)

// TestMakefile_TraceName checks that `make run TRACE=...` names its
// outputs, cluster and study as ingest.TraceName does, so traces that
// differ after their first dot do not overwrite each other.
func TestMakefile_TraceName(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	for _, in := range []string{"/d/X-2.1-b1.swf.gz", "X-2.1-b2.swf.gz", "../shared/traces/ls6-a100.log", "a.b.csv", "plain"} {
		out, err := exec.Command("make", "-s", "-C", "../..", "trace-name", "TRACE="+in).Output()
		if err != nil {
			t.Fatalf("make trace-name TRACE=%s: %v", in, err)
		}
		if got, want := strings.TrimSpace(string(out)), ingest.TraceName(in); got != want {
			t.Errorf("make names %s %q, ingest.TraceName %q", in, got, want)
		}
	}
}

// TestStudyInit_DefaultName checks that study init names a study after
// its trace file, keeping what distinguishes X-2.1-b1 from X-2.1-b2.
func TestStudyInit_DefaultName(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "X-2.1-b1.sacct")
	if _, stderr, code := run(t, "synth", "--jobs", "20000", "-o", in); code != 0 {
		t.Fatalf("synth: exit %d: %s", code, stderr)
	}
	tr := filepath.Join(dir, ingest.TraceName(in)+".parquet")
	if _, stderr, code := run(t, "ingest", "--progress", "never", "-o", tr, in); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	st := filepath.Join(dir, "s.yaml")
	if _, stderr, code := run(t, "study", "init", "--trace", tr, "-o", st); code != 0 {
		t.Fatalf("study init: exit %d: %s", code, stderr)
	}
	if b := readFile(t, st); !strings.HasPrefix(string(b), "name: X-2.1-b1\n") {
		t.Errorf("study:\n%s\nwant name X-2.1-b1", b)
	}
}

// TestMakeFuzz_EveryTarget checks that `make fuzz` (scripts/fuzz.sh, which
// finds its targets by grep) runs every fuzz target of the module: the
// targets go/parser finds in every _test.go file are exactly the ones the
// script lists, so a target written another way is not left out.
func TestMakeFuzz_EveryTarget(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	root := filepath.Join("..", "..")
	var want []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "out" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Fuzz") || len(fn.Type.Params.List) != 1 {
				continue
			}
			if star, ok := fn.Type.Params.List[0].Type.(*ast.StarExpr); ok {
				if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "F" {
					want = append(want, filepath.ToSlash(rel)+":"+fn.Name.Name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	out, err := exec.Command("bash", filepath.Join(root, "scripts", "fuzz.sh"), "--list").Output()
	if err != nil {
		t.Fatalf("scripts/fuzz.sh --list: %v", err)
	}
	got := strings.Fields(string(out))
	if !slices.Equal(got, want) {
		t.Errorf("make fuzz runs\n%q\nthe module's fuzz targets are\n%q", got, want)
	}
	if len(want) < 11 {
		t.Errorf("found only %d fuzz targets: %q", len(want), want)
	}
}
