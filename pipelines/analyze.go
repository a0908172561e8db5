package pipelines

import (
	"context"

	"github.com/mirage-hpc/mirage/analyze"
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
	if s.Cluster.Profile != "" {
		opts.Replay.Profile = s.Cluster.Profile
	}
	return stage{name: "analyze", config: struct {
		Nodes   int
		Profile string
		Chains  analyze.ChainOptions
		Replay  analyze.ReplayOptions
	}{opts.Nodes, opts.Replay.Profile, opts.Chains, opts.Replay}, inputs: []string{traceKey},
		run: func(ctx context.Context, dir string) error {
			opts.Logger = o.Logger
			_, err := analyze.Run(ctx, o.Trace, dir, opts)
			return err
		}}
}
