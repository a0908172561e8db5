package pipelines

import (
	"context"
	"fmt"
)

// Executor runs the stages Run plans: nil in RunOptions is the local
// executor (every stale stage in this process); NewSlurmExecutor returns
// one that submits each stale stage as an sbatch job. Run calls it in
// dependency order, so a stage's inputs are finished (locally) or
// submitted (Slurm) before it.
type Executor interface {
	// run runs, or submits, independent stages, each of which reads
	// the stages in after (or, when set, those in its own after); it
	// returns their results in order. On failure it returns the results
	// before the first failed stage.
	run(ctx context.Context, env *runEnv, stages []stage, after []StageResult) ([]StageResult, error)
	// runsHere says whether a stage is finished when run returns (so
	// its outputs can be read to key the next stages).
	runsHere() bool
}

// runEnv is what an executor needs of a Run beyond its stages: the
// study, the trace as given (before an ingest stage replaced it) and the
// options.
type runEnv struct {
	study *Study
	trace string
	o     RunOptions
}

// localExecutor runs stale stages in this process, at most o.Jobs at
// once. With o.Only it runs that stage alone and only looks at the
// others (a dry run).
type localExecutor struct{}

func (localExecutor) runsHere() bool { return true }

func (localExecutor) run(ctx context.Context, env *runEnv, stages []stage, _ []StageResult) ([]StageResult, error) {
	o := env.o
	if o.Only != "" {
		var res []StageResult
		for _, st := range stages {
			so := o
			so.DryRun = st.name != o.Only
			run := runStage
			switch {
			case so.DryRun || o.Shards <= 0:
			case o.Merge:
				run = mergeShards
			default:
				run = runShard
			}
			r, err := run(ctx, st, so)
			if err != nil {
				return res, fmt.Errorf("pipeline: stage %s: %w", st.name, err)
			}
			res = append(res, r)
		}
		return res, nil
	}
	if len(stages) == 1 {
		r, err := runStage(ctx, stages[0], o)
		if err != nil {
			return nil, fmt.Errorf("pipeline: stage %s: %w", stages[0].name, err)
		}
		return []StageResult{r}, nil
	}
	return runParallel(ctx, stages, o)
}
