package pipelines

import (
	"context"

	"github.com/mirage-hpc/mirage/analyze"
	"github.com/mirage-hpc/mirage/sim"
)

// AnalysisPage is the trace analysis's page in the analyze stage's
// directory (OUT/stages/analyze-KEY/analysis.html).
const AnalysisPage = analyze.Page

// analyzeStage is the trace analysis (mirage analyze) of the study's
// trace: its capacity is the study's cluster.nodes (0: inferred), its
// replays use the study's simulator profile. It reads the trace only.
func analyzeStage(s *Study, traceKey string, o RunOptions) stage {
	opts := analyze.DefaultOptions()
	opts.Nodes = s.Cluster.Nodes
	// The key records a built-in profile by name (a copy of one is it),
	// any other by its name and settings (Cluster.Profile would be a
	// path, and the file may change).
	var spec *sim.Profile
	if prof, err := s.SimProfile(); err != nil {
		opts.Replay.Profile = s.Cluster.Profile // analyze.Run reports it
	} else {
		opts.Replay.Profile, opts.Replay.Sim = prof.BuiltinName(), &prof
		if opts.Replay.Profile == "" {
			opts.Replay.Profile, spec = prof.Name, &prof
		}
	}
	return stage{name: "analyze", config: struct {
		Nodes       int
		Profile     string
		ProfileSpec *sim.Profile `json:",omitempty"`
		Chains      analyze.ChainOptions
		Replay      analyze.ReplayOptions
	}{opts.Nodes, opts.Replay.Profile, spec, opts.Chains, opts.Replay}, inputs: []string{traceKey},
		run: func(ctx context.Context, dir string) error {
			opts.Logger, opts.Version = o.Logger, o.Version
			_, err := analyze.Run(ctx, o.Trace, dir, opts)
			return err
		}}
}
