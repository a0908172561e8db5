package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// The names of the settings that mean the same thing in every command.
const (
	// partitionNodesUsage begins the help of every --partition-nodes: the
	// size of the simulated partition.
	partitionNodesUsage = "partition size in nodes"
	// chainNodesUsage begins the help of every --chain-nodes: the node
	// counts of the chains (P and Q) whose windows are simulated.
	chainNodesUsage = "comma-separated chain sizes in nodes, e.g. 1,8"
	// qTimeMinUsage is the help of every --q-time-min.
	qTimeMinUsage = "Q's --time-min: backfill may start Q earlier under a limit between it and the chain's (a shorter link); 0 = the protocol's (none)"
)

// renamedValue is the value of a flag's old name: the text given, moved
// to the new name's flag by applyRenamed, which parses it.
type renamedValue struct {
	old, new string // flag names without the dashes
	typ      string // the new flag's type, as its help shows it
	text     string
}

func (r *renamedValue) String() string { return r.text }
func (r *renamedValue) Type() string   { return r.typ }
func (r *renamedValue) Set(s string) error {
	r.text = s
	return nil
}

// addRenamedFlag adds --old to f as the deprecated old name of its flag
// --new (added before): hidden from the help, the same setting when given
// (applyRenamed), and so are the config key and MIRAGE_* variable spelled
// after it. The old name keeps its old meaning for one release.
func addRenamedFlag(f *pflag.FlagSet, old, new string) {
	nf := f.Lookup(new)
	if nf == nil {
		panic("addRenamedFlag: no flag --" + new)
	}
	f.Var(&renamedValue{old: old, new: new, typ: nf.Value.Type()}, old, "deprecated: use --"+new)
	if err := f.MarkDeprecated(old, deprecationNote(new)); err != nil {
		panic(err)
	}
}

func deprecationNote(new string) string {
	return "use --" + new + " (the old name goes in the next release)"
}

// applyRenamed gives each old flag name of cmd (addRenamedFlag) its new
// name's setting, tier by tier as resolveConfig's precedence: the new
// flag, else the old flag, else the new MIRAGE_* variable, else the old
// one, else the new config key, else the old one. It returns a warning
// for each old name used; an old and a new flag both given are a usage
// error. Config keys and variables are those of cmd's config section.
func applyRenamed(cmd *cobra.Command, v *viper.Viper) ([]string, error) {
	var warnings []string
	var err error
	section := cmd.Annotations[configSection]
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		r, ok := f.Value.(*renamedValue)
		if !ok || err != nil {
			return
		}
		fs := cmd.Flags()
		nf := fs.Lookup(r.new)
		switch {
		case f.Changed && nf.Changed:
			err = usagef("--%s is the deprecated name of --%s: give only --%s", r.old, r.new, r.new)
			return
		case f.Changed:
			if fs.Set(r.new, r.text) != nil {
				err = usagef("invalid argument %q for \"--%s\" flag: want %s", r.text, r.old, valueKind(r.typ))
				return
			}
			warnings = append(warnings, fmt.Sprintf("--%s is deprecated: %s", r.old, deprecationNote(r.new)))
			return
		case nf.Changed || section == "":
			return
		}
		oldKey, newKey := section+"."+configKey(r.old), section+"."+configKey(r.new)
		oldEnv, newEnv := envName(oldKey), envName(newKey)
		if os.Getenv(oldEnv) != "" {
			if os.Getenv(newEnv) != "" {
				warnings = append(warnings, fmt.Sprintf("%s is deprecated and ignored: %s is set", oldEnv, newEnv))
				return
			}
			v.Set(newKey, os.Getenv(oldEnv))
			warnings = append(warnings, fmt.Sprintf("%s is deprecated: use %s (the old name goes in the next release)", oldEnv, newEnv))
			return
		}
		if os.Getenv(newEnv) != "" || !v.InConfig(oldKey) {
			return
		}
		if v.InConfig(newKey) {
			warnings = append(warnings, fmt.Sprintf("config key %s is deprecated and ignored: %s is set", oldKey, newKey))
			return
		}
		v.Set(newKey, v.Get(oldKey))
		warnings = append(warnings, fmt.Sprintf("config key %s is deprecated: use %s (the old name goes in the next release)", oldKey, newKey))
	})
	return warnings, err
}

// valueKind names a flag type for an error message.
func valueKind(typ string) string {
	if typ == "int" {
		return "an integer"
	}
	return "a " + typ
}

// configKey is a flag's key within its config section.
func configKey(flag string) string { return strings.ReplaceAll(flag, "-", "_") }

// envName is the MIRAGE_* variable of a config key.
func envName(key string) string {
	return "MIRAGE_" + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(key))
}
