package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCheckOutput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	model := filepath.Join(dir, "model")
	os.MkdirAll(model, 0o755)
	os.WriteFile(filepath.Join(model, "manifest.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(model, "notes.txt"), []byte("mine"), 0o644)
	type tc struct {
		Name  string
		Path  string
		Kind  outputKind
		Owned []string
		Msg   string // "" for no error
	}
	tests := []tc{
		{"FileOK", filepath.Join(dir, "o.parquet"), outputFile, nil, ""},
		{"FileExists", file, outputFile, nil, ""},
		{"FileNoDir", filepath.Join(dir, "missing", "o.parquet"), outputFile, nil, "directory " + filepath.Join(dir, "missing") + " does not exist"},
		{"FileIsDir", dir, outputFile, nil, "is a directory, want a file path"},
		{"FileSlash", filepath.Join(dir, "new") + "/", outputFile, nil, "names a directory, want a file path"},
		{"FileUnderFile", filepath.Join(file, "o.parquet"), outputFile, nil, file + " is a file, not a directory"},
		{"FileUnderFileDeep", filepath.Join(file, "a", "o.parquet"), outputFile, nil, file + " is a file, not a directory"},
		{"AppendExists", file, outputAppend, nil, ""},
		{"AppendIsDir", dir, outputAppend, nil, "is a directory"},
		{"DirNew", filepath.Join(dir, "m"), outputDir, nil, ""},
		{"DirNoParent", filepath.Join(dir, "a", "b", "m"), outputDir, nil, "directory " + filepath.Join(dir, "a", "b") + " does not exist"},
		{"DirIsFile", file, outputDir, nil, "exists and is not a directory"},
		{"DirUnderFile", filepath.Join(file, "m"), outputDir, nil, "is a file, not a directory"},
		{"DirForeign", model, outputDir, []string{"manifest.json", "model.json"}, "notes.txt"},
		{"DirOwned", model, outputDir, []string{"manifest.json", "*.txt"}, ""},
		{"IntoDirExisting", model, outputIntoDir, nil, ""},
		{"IntoDirNew", filepath.Join(dir, "out"), outputIntoDir, nil, ""},
		{"IntoDirNoParent", filepath.Join(dir, "x", "out"), outputIntoDir, nil, "does not exist"},
		{"IntoDirIsFile", file, outputIntoDir, nil, "exists and is not a directory"},
	}
	if _, err := os.Stat("/proc/self"); err == nil {
		tests = append(tests, tc{"Unwritable", "/proc/mirage-out", outputDir, nil, "cannot create files in /proc"})
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			err := checkOutput("-o", tt.Path, tt.Kind, tt.Owned...)
			if tt.Msg == "" {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.Msg) || exitCode(err) != exitUsage {
				t.Fatalf("got %v (exit %d), want a usage error containing %q", err, exitCode(err), tt.Msg)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("checkOutput left files: %d entries", len(entries))
	}
}

// outputCommand is a command line with one output path, and the inputs
// it names missing, so that a command that does any work before checking
// its output fails on an input instead.
type outputCommand struct {
	name string
	kind outputKind
	flag string // how the message names the output ("ingest -o")
	// args returns the command line writing out; missing is a path that
	// does not exist.
	args func(out, missing string) []string
	file string // the output's name: a file name for file outputs
}

// outputCommands are every command that takes an output path.
var outputCommands = []outputCommand{
	{"ingest", outputFile, "ingest -o", func(o, m string) []string { return []string{"ingest", "-o", o, m} }, "o.parquet"},
	{"ingest-quarantine", outputFile, "ingest --quarantine", func(o, m string) []string {
		return []string{"ingest", "--quarantine", o, "-o", filepath.Join(filepath.Dir(m), "ok.parquet"), m}
	}, "q.jsonl"},
	{"synth", outputFile, "synth -o", func(o, m string) []string { return []string{"synth", "--jobs", "100000", "-o", o} }, "s.sacct"},
	{"features", outputFile, "features build -o", func(o, m string) []string {
		return []string{"features", "build", "--trace", m, "--protocol", "mirage-ls6", "-o", o}
	}, "s.parquet"},
	{"train-xgboost", outputDir, "train -o", func(o, m string) []string {
		return []string{"train", "--model", "xgboost", "--samples", m, "-o", o}
	}, "model"},
	{"train-estimate", outputDir, "train -o", func(o, m string) []string {
		return []string{"train", "--model", "estimate", "--samples", m, "-o", o}
	}, "model"},
	{"train-dqn", outputDir, "train -o", func(o, m string) []string {
		return []string{"train", "--model", "dqn", "--trace", m, "--protocol", "mirage-ls6", "-o", o}
	}, "model"},
	{"train-runtime", outputDir, "train -o", func(o, m string) []string {
		return []string{"train", "--model", "runtime", "--trace", m, "--protocol", "mirage-ls6", "-o", o}
	}, "model"},
	{"train-forecast", outputDir, "train -o", func(o, m string) []string {
		return []string{"train", "--model", "forecast", "--runtime-model", m, "--trace", m, "--protocol", "mirage-ls6", "-o", o}
	}, "model"},
	{"predict", outputFile, "predict -o", func(o, m string) []string {
		return []string{"predict", "--model", m, "--samples", m, "-o", o}
	}, "p.parquet"},
	{"evaluate", outputDir, "evaluate -o", func(o, m string) []string {
		return []string{"evaluate", "--trace", m, "--protocol", "mirage-ls6", "--policy", "reactive", "-o", o}
	}, "eval"},
	{"report", outputDir, "report -o", func(o, m string) []string { return []string{"report", m, "-o", o} }, "report"},
	{"analyze", outputDir, "analyze -o", func(o, m string) []string { return []string{"analyze", m, "-o", o} }, "analysis"},
	{"sim-starts", outputIntoDir, "sim starts -o", func(o, m string) []string {
		return []string{"sim", "starts", "--trace", m, "-o", o}
	}, "starts"},
	{"study-init", outputFile, "study init -o", func(o, m string) []string {
		return []string{"study", "init", "--trace", m, "-o", o}
	}, "s.yaml"},
	{"pipeline-run", outputIntoDir, "pipeline run -o", func(o, m string) []string {
		return []string{"pipeline", "run", "synth", "--trace", m, "-o", o}
	}, "out"},
	{"pipeline-run-stage", outputIntoDir, "pipeline run-stage -o", func(o, m string) []string {
		return []string{"pipeline", "run-stage", "ingest", "synth", "--trace", m, "-o", o}
	}, "out"},
	{"advise-audit", outputAppend, "advise --audit", func(o, m string) []string {
		return []string{"advise", "--model", m, "--job", "1", "--audit", o}
	}, "audit.jsonl"},
}

// TestCommands_BadOutputExit3: every command that takes an output path
// refuses one it cannot write (a missing parent directory, a parent that
// is a file, a directory no one can create files in, an existing
// directory for a file or a file for a directory, a directory holding
// other files for one replaced as a whole) with exit status 3 and a
// message naming the flag and the reason, before any work: before
// reading its (missing) inputs, in well under a second, writing nothing.
func TestCommands_BadOutputExit3(t *testing.T) {
	type badPath struct {
		name   string
		path   func(root string, c outputCommand) string
		reason string
		skip   func(c outputCommand) string // why this case does not apply ("" when it does)
	}
	onlyFiles := func(c outputCommand) string {
		if c.kind != outputFile && c.kind != outputAppend {
			return "a directory output"
		}
		return ""
	}
	onlyDirs := func(c outputCommand) string {
		if c.kind == outputFile || c.kind == outputAppend {
			return "a file output"
		}
		return ""
	}
	cases := []badPath{
		{"MissingParent", func(r string, c outputCommand) string { return filepath.Join(r, "missing", c.file) }, "does not exist", nil},
		{"ParentIsFile", func(r string, c outputCommand) string { return filepath.Join(r, "file", c.file) }, "is a file, not a directory", nil},
		{"Proc", func(r string, c outputCommand) string { return filepath.Join("/proc", "mirage-"+c.file) }, "cannot create files in /proc", func(outputCommand) string {
			if _, err := os.Stat("/proc/self"); err != nil {
				return "no /proc"
			}
			return ""
		}},
		{"ReadOnlyDir", func(r string, c outputCommand) string { return filepath.Join(r, "ro", c.file) }, "permission denied", func(outputCommand) string {
			if os.Geteuid() == 0 {
				return "running as root: chmod does not stop root's writes (the Proc and ReadOnlyFS cases cover an unwritable directory)"
			}
			return ""
		}},
		{"ReadOnlyFS", func(r string, c outputCommand) string {
			return filepath.Join(os.Getenv("MIRAGE_TEST_READONLY_DIR"), c.file)
		}, "read-only file system", func(outputCommand) string {
			if os.Getenv("MIRAGE_TEST_READONLY_DIR") == "" {
				return "set MIRAGE_TEST_READONLY_DIR to a directory on a read-only file system"
			}
			return ""
		}},
		{"FileIsDir", func(r string, c outputCommand) string { return filepath.Join(r, "adir") }, "is a directory, want a file path", onlyFiles},
		{"FileSlash", func(r string, c outputCommand) string { return filepath.Join(r, c.file) + "/" }, "names a directory, want a file path", onlyFiles},
		{"DirIsFile", func(r string, c outputCommand) string { return filepath.Join(r, "file") }, "exists and is not a directory", onlyDirs},
		{"DirForeign", func(r string, c outputCommand) string { return filepath.Join(r, "adir") }, "holds files this command does not write", func(c outputCommand) string {
			if c.kind != outputDir || c.name == "train-forecast" {
				return "not replaced as a whole"
			}
			return ""
		}},
	}
	for _, bp := range cases {
		t.Run(bp.name, func(t *testing.T) {
			for _, c := range outputCommands {
				t.Run(c.name, func(t *testing.T) {
					if bp.skip != nil {
						if why := bp.skip(c); why != "" {
							t.Skip("skipping: " + why)
						}
					}
					root := t.TempDir()
					os.WriteFile(filepath.Join(root, "file"), []byte("x"), 0o644)
					os.MkdirAll(filepath.Join(root, "adir"), 0o755)
					os.WriteFile(filepath.Join(root, "adir", "notes.txt"), []byte("mine"), 0o644)
					ro := filepath.Join(root, "ro")
					os.MkdirAll(ro, 0o555)
					defer os.Chmod(ro, 0o755)
					before := listTree(t, root)
					out, missing := bp.path(root, c), filepath.Join(root, "missing-input.parquet")
					began := time.Now()
					_, stderr, code := run(t, c.args(out, missing)...)
					took := time.Since(began)
					if code != exitUsage || !strings.Contains(stderr, c.flag+" "+out+": ") || !strings.Contains(stderr, bp.reason) {
						t.Errorf("exit %d, stderr %q; want exit 3 naming %q and %q", code, stderr, c.flag+" "+out, bp.reason)
					}
					if strings.Contains(stderr, "missing-input") {
						t.Errorf("the message is about the input, so the command read it before checking its output: %q", stderr)
					}
					if took > 2*time.Second {
						t.Errorf("took %v: work ran before the output check", took)
					}
					if after := listTree(t, root); !slices.Equal(before, after) {
						t.Errorf("wrote files: before %v, after %v", before, after)
					}
				})
			}
		})
	}
}

// listTree lists every path under root (relative, sorted).
func listTree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// TestCommands_UnwritableOutputNoModelLeft: train on a missing samples
// file fails and leaves no model directory behind.
func TestCommands_UnwritableOutputNoModelLeft(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.parquet")
	_, _, code := run(t, "train", "--model", "xgboost", "--samples", missing, "-o", filepath.Join(dir, "m"))
	if code == 0 {
		t.Fatal("train on a missing samples file succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "m")); !os.IsNotExist(err) {
		t.Errorf("train left %s behind: %v", filepath.Join(dir, "m"), err)
	}
}
