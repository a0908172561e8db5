package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// exampleCommand returns the command an example line runs (the longest
// command path its leading words name under root) and the line's flag
// names (--name, -n), or nil when the line does not run mirage.
func exampleCommand(root *cobra.Command, line string) (*cobra.Command, []string) {
	words := strings.Fields(line)
	if len(words) == 0 || words[0] != "mirage" {
		return nil, nil
	}
	c := root
	i := 1
	for ; i < len(words); i++ {
		var next *cobra.Command
		for _, s := range c.Commands() {
			if s.Name() == words[i] {
				next = s
			}
		}
		if next == nil {
			break
		}
		c = next
	}
	var flags []string
	for _, w := range words[i:] {
		if w == "#" || w == ">" || w == "|" {
			break
		}
		if strings.HasPrefix(w, "-") && len(w) > 1 {
			name, _, _ := strings.Cut(w, "=")
			flags = append(flags, name)
		}
	}
	return c, flags
}

// TestExamples_Flags checks that every flag an example passes is a flag
// of the command it runs, so that no example goes stale when a flag is
// renamed, and that the flags added after the examples were written are
// each shown in their command's examples.
func TestExamples_Flags(t *testing.T) {
	root := newRootCommand(&globalOptions{})
	shown := map[string]bool{} // "mirage evaluate --lifetime"
	for path, ex := range examples {
		for _, line := range strings.Split(ex, "\n") {
			c, flags := exampleCommand(root, line)
			if c == nil {
				continue
			}
			for _, f := range flags {
				var ok bool
				if name, long := strings.CutPrefix(f, "--"); long {
					ok = c.Flags().Lookup(name) != nil || c.InheritedFlags().Lookup(name) != nil
				} else {
					ok = c.Flags().ShorthandLookup(strings.TrimPrefix(f, "-")) != nil ||
						c.InheritedFlags().ShorthandLookup(strings.TrimPrefix(f, "-")) != nil
				}
				if !ok {
					t.Errorf("examples[%q]: %q passes %s, not a flag of %s", path, line, f, c.CommandPath())
				}
				shown[c.CommandPath()+" "+f] = true
			}
		}
	}
	for _, want := range []string{
		"mirage evaluate --lifetime", "mirage evaluate --handover", "mirage evaluate --q-time-min", "mirage evaluate --real-chains",
		"mirage train --target", "mirage train --stop-horizon",
		"mirage features build --wide", "mirage features build --q-time-min",
		"mirage ingest --columns", "mirage ingest --format", "mirage ingest --keep-current",
	} {
		if !shown[want] {
			t.Errorf("no example shows %s", want)
		}
	}
	for _, want := range []string{"train --model fixed-lead", "train --model xgboost --target stop", "ingest --format csv"} {
		if !strings.Contains(examples["mirage "+strings.Fields(want)[0]], "mirage "+want) {
			t.Errorf("no example runs mirage %s", want)
		}
	}
}

// TestREADME_CommandFlags checks the README's command lines (bin/mirage
// ...) as TestExamples_Flags checks the help's: every flag they pass is
// one of their command's.
func TestREADME_CommandFlags(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	root := newRootCommand(&globalOptions{})
	n := 0
	for i, line := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "bin/mirage ")
		if !ok {
			continue
		}
		c, flags := exampleCommand(root, "mirage "+rest)
		for _, f := range flags {
			name := strings.TrimLeft(f, "-")
			var fl *pflag.Flag
			if strings.HasPrefix(f, "--") {
				if fl = c.Flags().Lookup(name); fl == nil {
					fl = c.InheritedFlags().Lookup(name)
				}
			} else if fl = c.Flags().ShorthandLookup(name); fl == nil {
				fl = c.InheritedFlags().ShorthandLookup(name)
			}
			if fl == nil {
				t.Errorf("README.md:%d: %s is not a flag of %s", i+1, f, c.CommandPath())
			}
		}
		n++
	}
	if n < 20 {
		t.Errorf("only %d bin/mirage lines in the README", n)
	}
}
