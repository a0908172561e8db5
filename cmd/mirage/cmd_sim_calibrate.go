package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mirage-hpc/mirage/internal/atomicfile"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/replay"
	"github.com/mirage-hpc/mirage/trace"
)

func newSimCalibrateCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "calibrate --trace T.parquet --from A --to B -o PROFILE.yaml [flags]",
		Short: "Fit the simulator's settings to a trace's real waits and write the profile",
		Long: `Fit what a trace does not record (priority: the profile's multifactor weights,
first come first served, fair-share or size first; the backfill flavour; what
jobs cancelled while pending do; capacity and dependency inference; partitions,
when the trace's jobs name several) to its real waits on the months from --from
to --to, by successive halving over month replays (each month after a week of
the trace before it), scored by wait Spearman plus the share of waits within a
factor of 2, less 0.25 times |ln(simulated / real)| of the trace's own service
chains' reactive interruption on the same months (on the later rungs and the
finalists). A coordinate search then perturbs the best setting's continuous
settings (multifactor weights, age cap, fair-share half-life, backfill window
and test limit, capacity inference; --no-tune leaves it out). The fitted profile is then checked on the months after --to (to
--check-to, else the trace's end), which it was not fitted on, beside the base
profile (--profile). Writes PROFILE.yaml, a profile file (mirage sim profile
show format) whose header states the fidelity before and after; give it as
--profile or a study's cluster.profile.

The search is deterministic (--seed orders the sampled months) and replays
--workers months at once; the result does not depend on --workers.`,
		Args:        usageArgs(cobra.NoArgs),
		Annotations: map[string]string{configSection: "sim"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSimCalibrate(cmd, g)
		},
	}
	addReplayFlags(cmd.Flags(), false)
	f := cmd.Flags()
	f.Lookup("from").Usage = "first day of the calibration months (YYYY-MM-DD or RFC 3339, in --tz); required"
	f.Lookup("to").Usage = "end of the calibration months (exclusive); the check months follow; required"
	f.String("check-to", "", "end of the check months (exclusive; empty = the trace's end)")
	f.String("study", "", "study (built-in name or file): calibrate as its cluster.calibrate does, on its training months from its profile, checked on the months after (replaces --from, --to, --check-to, --profile and the partition flags)")
	f.StringP("output", "o", "", "profile file to write (YAML); required")
	f.Int("workers", 0, "month replays at once (0 = GOMAXPROCS); the result does not depend on it")
	f.Uint64("seed", 1, "seed of the order the search samples the calibration months in")
	f.Bool("no-tune", false, "leave out the coordinate search of the continuous settings (multifactor weights, age cap, fair-share half-life, backfill window and test limit, capacity inference) after the grid")
	return cmd
}

// calibrateSummary is the JSON of `mirage sim calibrate`.
type calibrateSummary struct {
	Output string `json:"output"`
	replay.Calibration
}

func runSimCalibrate(cmd *cobra.Command, g *globalOptions) error {
	c := g.cfg.Sim
	if c.Output == "" || c.Trace == "" || c.Study == "" && (c.From == "" || c.To == "") {
		return usagef("sim calibrate: --trace, -o and --from and --to (or --study) are required")
	}
	if err := checkOutput("sim calibrate -o", c.Output, outputFile); err != nil {
		return err
	}
	in, co, err := calibrateIn(cmd, c)
	if err != nil {
		return err
	}
	if in.Jobs == nil {
		if in.Jobs, err = trace.ReadAllContext(cmd.Context(), in.Trace); err != nil {
			return err
		}
	}
	if in.Profile.NodesFromTrace && c.PartitionNodes <= 0 {
		// The profile's node count is a placeholder: the pool is the
		// trace's (its most nodes busy at once, never below its widest job).
		idx := make([]int, len(in.Jobs))
		for i := range idx {
			idx[i] = i
		}
		in.Profile.Config.Nodes, in.Profile.NodesFromTrace = sim.PeakBusy(in.Jobs, idx), false
		g.log().Info("calibrate: partition sized from the trace", "nodes", in.Profile.Config.Nodes)
	}
	bar := newProgressBar(g.stderr, c.Progress, g.cfg.JSON)
	co.Workers, co.Progress = c.Workers, func(done, total int) { bar.set("calibrate: %d of %d month replays", done, total) }
	res, err := replay.Calibrate(cmd.Context(), in, co)
	bar.finish()
	if err != nil {
		return unfit("sim calibrate", err)
	}
	res.Profile.Name = strings.TrimSuffix(filepath.Base(c.Output), filepath.Ext(c.Output))
	y, err := res.Profile.YAML()
	if err != nil {
		return err
	}
	text := res.Describe(filepath.Base(in.Trace)) + "# Base profile: " + c.Profile + ". Edit freely: mirage sim replay --profile FILE measures an edit.\n" + string(y)
	if err := atomicfile.WriteFile(c.Output, []byte(text)); err != nil {
		return err
	}
	if g.cfg.JSON {
		b, err := json.MarshalIndent(calibrateSummary{Output: c.Output, Calibration: res}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(g.stdout, string(b))
		return err
	}
	fmt.Fprint(g.stdout, strings.ReplaceAll(res.Describe(filepath.Base(in.Trace)), "# ", ""))
	fmt.Fprintf(g.stdout, "wrote %s\n", c.Output)
	return nil
}

// calibrateIn resolves what sim calibrate fits: the study's calibration
// (--study), or the trace and profile of the sim flags with --from, --to
// and --check-to.
func calibrateIn(cmd *cobra.Command, c SimConfig) (replay.In, replay.CalibrateOptions, error) {
	if c.Study != "" {
		s, err := resolveStudy(c.Study)
		if err != nil {
			return replay.In{}, replay.CalibrateOptions{}, err
		}
		if err := s.CheckTrace(c.Trace); err != nil {
			return replay.In{}, replay.CalibrateOptions{}, err
		}
		in, co, err := s.Calibration(cmd.Context(), c.Trace)
		co.Seed, co.NoTune = c.Seed, c.NoTune
		return in, co, err
	}
	in, loc, from, to, err := replayIn(cmd, c, "sim calibrate")
	if err != nil {
		return in, replay.CalibrateOptions{}, err
	}
	co := replay.CalibrateOptions{From: from, To: to, Zone: loc, Seed: c.Seed, AllowSkip: c.AllowSkip, NoTune: c.NoTune}
	if c.CheckTo != "" {
		t, err := parseWhen(c.CheckTo, loc)
		if err != nil {
			return in, co, err
		}
		co.CheckTo = t.Unix()
	}
	return in, co, nil
}
