package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/spf13/cobra"
)

func newSimProfileCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Simulator profiles: what the simulator knows of a cluster",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "show NAME|FILE",
		Short: "Print a simulator profile (built in, or a YAML file), checked",
		Long: `Print a simulator profile: the scheduler's configuration (partition size,
priority weights, backfill, limits) and the dependency and capacity inference
a replay of the cluster's traces uses. A built-in profile (` + strings.Join(sim.ProfileNames(), ", ") + `)
prints as its YAML file, comments included, to copy and edit:

  mirage sim profile show ls6 > my-cluster.yaml

and a profile file prints as YAML after every field is checked (as JSON with
--json). Every command that simulates takes the file where it takes a profile
name: sim replay and sim starts --profile, analyze --profile, a study's
cluster.profile (relative to the study file).`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := sim.LoadProfile(args[0])
			if err != nil {
				return usageError{err}
			}
			var b []byte
			switch {
			case g.cfg.JSON:
				if b, err = json.MarshalIndent(p, "", "  "); err == nil {
					b = append(b, '\n')
				}
			case sim.IsBuiltinProfile(args[0]):
				b, err = sim.BuiltinProfileYAML(args[0])
			default:
				b, err = p.YAML()
			}
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(g.stdout, string(b))
			return err
		},
	})
	return cmd
}

// profileOverrideHelp is the usage of a --profile flag that replaces a
// features protocol's simulator profile, after prefix.
func profileOverrideHelp(prefix string) string {
	return prefix + "simulator profile replacing the protocol's, its dependency and capacity inference included: a built-in one (" +
		strings.Join(sim.ProfileNames(), ", ") + ") or a profile file (empty = the protocol's)"
}
