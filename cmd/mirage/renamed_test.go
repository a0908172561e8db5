package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestFlagNames_OneNamePerConcept walks every command's flags: a flag
// named nodes or partition is a deprecated old name (advise's --partition,
// a Slurm partition, apart); every --partition-nodes and --chain-nodes has
// the one meaning (its help begins partitionNodesUsage or
// chainNodesUsage); and no other flag's help says it sizes the partition or
// the chains.
func TestFlagNames_OneNamePerConcept(t *testing.T) {
	root := newRootCommand(&globalOptions{stdout: io.Discard, stderr: io.Discard})
	have := map[string][]string{} // flag (old -> new for old names): command paths
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := strings.TrimPrefix(c.CommandPath(), "mirage ")
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			where := path + " --" + f.Name
			switch f.Name {
			case "nodes", "partition":
				if path == "advise" && f.Name == "partition" {
					return // the Slurm partition to advise on
				}
				r, ok := f.Value.(*renamedValue)
				if !ok || f.Deprecated == "" {
					t.Errorf("%s: not a deprecated old name (addRenamedFlag): one name per concept, --partition-nodes or --chain-nodes", where)
					return
				}
				if c.LocalFlags().Lookup(r.new) == nil {
					t.Errorf("%s: the old name of --%s, which %s lacks", where, r.new, path)
				}
				have[f.Name+" -> "+r.new] = append(have[f.Name+" -> "+r.new], path)
			case "partition-nodes", "chain-nodes":
				usage := map[string]string{"partition-nodes": partitionNodesUsage, "chain-nodes": chainNodesUsage}[f.Name]
				if !strings.HasPrefix(f.Usage, usage+" (") {
					t.Errorf("%s: help %q; want it to begin %q (the same meaning everywhere)", where, f.Usage, usage+" (")
				}
				have[f.Name] = append(have[f.Name], path)
			default:
				if f.Deprecated == "" && (strings.Contains(f.Usage, "partition size") || strings.Contains(f.Usage, "chain sizes")) {
					t.Errorf("%s: help %q sizes the partition or the chains: name it --partition-nodes or --chain-nodes", where, f.Usage)
				}
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	want := map[string][]string{
		"partition-nodes":              {"analyze", "evaluate", "features build", "sim calibrate", "sim replay", "sim starts", "study init", "synth", "train"},
		"chain-nodes":                  {"evaluate", "features build", "train"},
		"nodes -> partition-nodes":     {"features build", "sim replay", "sim starts", "synth", "train"},
		"nodes -> chain-nodes":         {"evaluate"},
		"partition -> partition-nodes": {"evaluate"},
	}
	for _, paths := range have {
		slices.Sort(paths)
	}
	if !reflect.DeepEqual(have, want) {
		t.Errorf("flags by command:\n%v\nwant\n%v", have, want)
	}
}

// TestRenamedFlags_SameOutput checks that each command with a renamed flag
// gives byte-identical outputs under the old name, with a deprecation
// warning on stderr (and none under the new name), on a small synthetic
// trace.
func TestRenamedFlags_SameOutput(t *testing.T) {
	dir := t.TempDir()
	out := func(name string) string { return filepath.Join(dir, name) }
	same := func(name, warn string, newArgs, oldArgs []string, outputs func(dir string) []string, norm func([]byte) []byte) {
		t.Helper()
		if norm == nil {
			norm = func(b []byte) []byte { return b }
		}
		res := map[string][]string{}
		for _, v := range []struct {
			which string
			args  []string
		}{{"new", newArgs}, {"old", oldArgs}} {
			d := out(name + "-" + v.which)
			args := make([]string, len(v.args))
			for i, a := range v.args {
				args[i] = strings.ReplaceAll(a, "OUT", d)
			}
			stdout, stderr, code := run(t, args...)
			if code != 0 {
				t.Fatalf("%s (%s names): exit %d: %s", name, v.which, code, stderr)
			}
			if got := strings.Contains(stderr, "deprecated"); got != (v.which == "old") || v.which == "old" && !strings.Contains(stderr, warn) {
				t.Errorf("%s (%s names): stderr %q; want a warning %q only with the old names", name, v.which, stderr, warn)
			}
			got := []string{string(norm([]byte(strings.ReplaceAll(stdout, d, "OUT"))))}
			for _, f := range outputs(d) {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(b))
			}
			res[v.which] = got
		}
		for i := range res["new"] {
			if res["new"][i] != res["old"][i] {
				t.Errorf("%s: output %d differs between the new and the old flag names:\nnew %.300q\nold %.300q", name, i, res["new"][i], res["old"][i])
			}
		}
	}
	none := func(string) []string { return nil }

	synthArgs := []string{"synth", "--jobs", "500", "--seed", "3", "-o", "OUT"}
	same("synth", "--nodes is deprecated: use --partition-nodes", append(synthArgs, "--partition-nodes", "16"), append(synthArgs, "--nodes", "16"),
		func(d string) []string { return []string{d} }, nil)
	tr := out("t.parquet")
	if _, stderr, code := run(t, "ingest", "--tz", "America/Chicago", "-o", tr, out("synth-new")); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}

	noWall := func(b []byte) []byte {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, b)
		}
		delete(m, "wall_sec")
		delete(m, "events_per_sec")
		b, _ = json.Marshal(m)
		return b
	}
	same("sim replay", "--nodes is deprecated: use --partition-nodes",
		[]string{"sim", "replay", "--trace", tr, "--json", "--partition-nodes", "16"},
		[]string{"sim", "replay", "--trace", tr, "--json", "--nodes", "16"}, none, noWall)

	timed := func([]byte) []byte { return nil } // a summary with its wall time: the files are compared
	windows := []string{"--protocol", "mirage-ls6", "--start", "2022-11-02T00:00:00", "--windows", "2", "--interval", "1h", "--workers", "1"}
	features := append([]string{"features", "build", "--trace", tr, "-o", "OUT.parquet", "--chain-nodes", "1,2"}, windows...)
	same("features build", "--nodes is deprecated: use --partition-nodes",
		append(features, "--partition-nodes", "16"), append(features, "--nodes", "16"), func(d string) []string { return []string{d + ".parquet"} }, timed)

	evaluate := append([]string{"evaluate", "--trace", tr, "-o", "OUT", "--policy", "reactive,immediate,oracle"}, windows...)
	same("evaluate", "--partition is deprecated: use --partition-nodes",
		append(evaluate, "--chain-nodes", "1,2", "--partition-nodes", "16"), append(evaluate, "--nodes", "1,2", "--partition", "16"),
		func(d string) []string {
			return []string{filepath.Join(d, "metrics.json"), filepath.Join(d, "windows.csv")}
		}, timed)
	if b, err := os.ReadFile(filepath.Join(out("evaluate-old"), "metrics.json")); err != nil || !bytes.Contains(b, []byte(`"chain_nodes": [
    1,
    2
  ]`)) {
		t.Errorf("evaluate --nodes 1,2 did not evaluate chain sizes 1 and 2 (err %v):\n%.400s", err, b)
	}
}

// resolveArgs resolves the Config of a command line as a run does, with
// the warnings about old names.
func resolveArgs(t *testing.T, args ...string) (Config, []string, error) {
	t.Helper()
	g := &globalOptions{stdout: io.Discard, stderr: io.Discard}
	root := newRootCommand(g)
	cmd, rest, err := root.Find(args)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Fatal(err)
	}
	return resolveConfig(cmd, g.configFile, defaultConfig())
}

// TestRenamedSettings_Precedence checks the old names of renamed settings
// in flags, MIRAGE_* variables and config files: each is read as the new
// name with a warning, the new name wins over the old in the same place,
// the usual precedence (flag > variable > file) holds across old and new
// names, and evaluate's old nodes still means chain sizes.
func TestRenamedSettings_Precedence(t *testing.T) {
	cfgFile := filepath.Join(t.TempDir(), "c.yaml")
	write := func(s string) {
		if err := os.WriteFile(cfgFile, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name   string
		file   string
		env    map[string]string
		args   []string
		get    func(Config) any
		want   any
		warn   []string
		errMsg string
	}{
		{name: "NewFlag", args: []string{"sim", "replay", "--partition-nodes", "7"}, get: func(c Config) any { return c.Sim.PartitionNodes }, want: 7},
		{name: "OldFlag", args: []string{"sim", "replay", "--nodes", "7"}, get: func(c Config) any { return c.Sim.PartitionNodes }, want: 7,
			warn: []string{"--nodes is deprecated: use --partition-nodes (the old name goes in the next release)"}},
		{name: "BothFlags", args: []string{"features", "build", "--nodes", "7", "--partition-nodes", "7"},
			errMsg: "--nodes is the deprecated name of --partition-nodes: give only --partition-nodes"},
		{name: "BadOldFlag", args: []string{"train", "--nodes", "seven"}, errMsg: `invalid argument "seven" for "--nodes" flag: want an integer`},
		{name: "OldEnv", env: map[string]string{"MIRAGE_TRAIN_NODES": "9"}, args: []string{"train"},
			get: func(c Config) any { return c.Train.PartitionNodes }, want: 9,
			warn: []string{"MIRAGE_TRAIN_NODES is deprecated: use MIRAGE_TRAIN_PARTITION_NODES (the old name goes in the next release)"}},
		{name: "NewEnvWins", env: map[string]string{"MIRAGE_TRAIN_NODES": "9", "MIRAGE_TRAIN_PARTITION_NODES": "10"}, args: []string{"train"},
			get: func(c Config) any { return c.Train.PartitionNodes }, want: 10,
			warn: []string{"MIRAGE_TRAIN_NODES is deprecated and ignored: MIRAGE_TRAIN_PARTITION_NODES is set"}},
		{name: "NewFlagOverOldEnv", env: map[string]string{"MIRAGE_SIM_NODES": "9"}, args: []string{"sim", "starts", "--partition-nodes", "3"},
			get: func(c Config) any { return c.Sim.PartitionNodes }, want: 3},
		{name: "OldKey", file: "synth:\n  nodes: 5\n", args: []string{"synth"}, get: func(c Config) any { return c.Synth.PartitionNodes }, want: 5,
			warn: []string{"config key synth.nodes is deprecated: use synth.partition_nodes (the old name goes in the next release)"}},
		{name: "NewKeyWins", file: "synth:\n  nodes: 5\n  partition_nodes: 6\n", args: []string{"synth"},
			get: func(c Config) any { return c.Synth.PartitionNodes }, want: 6,
			warn: []string{"config key synth.nodes is deprecated and ignored: synth.partition_nodes is set"}},
		{name: "OldEnvOverNewKey", file: "synth:\n  partition_nodes: 6\n", env: map[string]string{"MIRAGE_SYNTH_NODES": "4"}, args: []string{"synth"},
			get: func(c Config) any { return c.Synth.PartitionNodes }, want: 4,
			warn: []string{"MIRAGE_SYNTH_NODES is deprecated: use MIRAGE_SYNTH_PARTITION_NODES (the old name goes in the next release)"}},
		{name: "EvaluateOldNames", file: "evaluate:\n  nodes: \"1,8\"\n", env: map[string]string{"MIRAGE_EVALUATE_PARTITION": "40"}, args: []string{"evaluate"},
			get: func(c Config) any { return [2]any{c.Evaluate.ChainNodes, c.Evaluate.PartitionNodes} }, want: [2]any{"1,8", 40},
			warn: []string{"config key evaluate.nodes is deprecated: use evaluate.chain_nodes (the old name goes in the next release)",
				"MIRAGE_EVALUATE_PARTITION is deprecated: use MIRAGE_EVALUATE_PARTITION_NODES (the old name goes in the next release)"}},
		{name: "EvaluateOldFlags", args: []string{"evaluate", "--nodes", "2", "--partition", "30"},
			get: func(c Config) any { return [2]any{c.Evaluate.ChainNodes, c.Evaluate.PartitionNodes} }, want: [2]any{"2", 30},
			warn: []string{"--nodes is deprecated: use --chain-nodes (the old name goes in the next release)",
				"--partition is deprecated: use --partition-nodes (the old name goes in the next release)"}},
		{name: "OtherSectionIgnored", file: "features:\n  nodes: 5\n", args: []string{"sim", "replay"},
			get: func(c Config) any { return c.Sim.PartitionNodes }, want: 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			args := tt.args
			if tt.file != "" {
				write(tt.file)
				args = append(args, "--config", cfgFile)
			}
			cfg, warnings, err := resolveArgs(t, args...)
			if tt.errMsg != "" {
				if err == nil || err.Error() != tt.errMsg || exitCode(err) != exitUsage {
					t.Fatalf("error %v; want the usage error %q", err, tt.errMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(warnings)
			slices.Sort(tt.warn)
			if got := tt.get(cfg); !reflect.DeepEqual(got, tt.want) || !slices.Equal(warnings, tt.warn) {
				t.Errorf("setting %v, warnings %q; want %v, %q", got, warnings, tt.want, tt.warn)
			}
		})
	}
}

// TestRenamedFlags_WarningNotOnStdout checks that the deprecation note of
// an old flag name is a log record on stderr, not pflag's note, which
// cobra would print on stdout among the data.
func TestRenamedFlags_WarningNotOnStdout(t *testing.T) {
	stdout, stderr, code := run(t, "synth", "--jobs", "10", "--nodes", "4", "-o", "-", "--log-level", "warn")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "deprecated") || !strings.Contains(stderr, "level=WARN") || !strings.Contains(stderr, "--nodes is deprecated") {
		t.Errorf("stdout %.200q\nstderr %q; want the warning as a log record on stderr only", stdout, stderr)
	}
}
