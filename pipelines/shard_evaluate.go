package pipelines

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/features"
)

// The evaluate stage, whole or in shards, is evaluate.Run, RunShard and
// Merge; this file only places their files.

// evaluateIn is the evaluate stage's input: the run's trace and p.
func evaluateIn(o RunOptions, p features.Protocol) evaluate.In {
	return evaluate.In{Trace: o.Trace, Protocol: p}
}

// evaluateOptions are the evaluate stage's options: the study's policies
// (with the models' sweeps when sweep is set; the trained models'
// directories are o.models'), evaluate.DefaultLambda and no fit check
// (the study checked the fit before any stage, more strictly).
func evaluateOptions(o RunOptions, policyList []string, sweep bool, decision time.Duration, dir string) evaluate.RunOptions {
	return evaluate.RunOptions{
		Policies:    evaluate.PolicySpec{List: strings.Join(policyList, ","), Sweep: sweep, DirOf: o.models.dirOf},
		Lambda:      evaluate.DefaultLambda,
		DecisionSec: int64(decision / time.Second),
		Workers:     o.Workers,
		Logger:      o.Logger,
		Progress:    o.progress("evaluate", "windows"),
		NoFitCheck:  true,
		Output:      dir,
	}
}

// studyPolicyError makes a policy list that does not parse the study's
// fault (ErrStudy).
func studyPolicyError(err error) error {
	if pe, ok := errors.AsType[*evaluate.PolicyListError](err); ok {
		return fmt.Errorf("%w: policies: %w", ErrStudy, pe.Err)
	}
	return err
}

func runEvaluate(ctx context.Context, o RunOptions, p features.Protocol, policyList []string, sweep bool, decision time.Duration, realChains bool,
	life *LifetimeSpec, dir string) error {
	opts := evaluateOptions(o, policyList, sweep, decision, dir)
	var err error
	if opts.RealChains, err = studyRealChains(p, realChains); err != nil {
		return err
	}
	if opts.Lifetime, err = life.options(); err != nil {
		return err
	}
	_, err = evaluate.Run(ctx, evaluateIn(o, p), opts)
	return studyPolicyError(err)
}

// studyRealChains is the evaluate stage's replay of the trace's own
// chains (Study.RealChains): those with heads in the validation period
// p's span (evaluate.ProtocolSpan); nil when off.
func studyRealChains(p features.Protocol, on bool) (*evaluate.ChainsOptions, error) {
	if !on {
		return nil, nil
	}
	from, to, err := evaluate.ProtocolSpan(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStudy, err)
	}
	return &evaluate.ChainsOptions{From: from, To: to}, nil
}

// evaluateShard replays shard i of n of p's windows into dir: one
// rows-C.parquet per chain size, window ids of the whole period.
func evaluateShard(ctx context.Context, o RunOptions, p features.Protocol, policyList []string, sweep bool, decision time.Duration, i, n int, dir string) error {
	a, b := shardWindows(p.Windows, i, n)
	rows, err := evaluate.RunShard(ctx, evaluateIn(o, p), evaluateOptions(o, policyList, sweep, decision, ""), a, b)
	if err != nil {
		return studyPolicyError(err)
	}
	for c := range rows {
		if err := writeRowsShard(rowsShardPath(dir, c), rows[c]); err != nil {
			return err
		}
	}
	return nil
}

// mergeEvaluate writes the evaluate stage's metrics.json and windows.csv
// from the shards' rows (evaluate.Merge), and replays the real chains
// when the study asks for them.
func mergeEvaluate(ctx context.Context, o RunOptions, p features.Protocol, policyList []string, sweep bool, decision time.Duration, realChains bool,
	life *LifetimeSpec, shards []string, dir string) error {
	parts := make([][][]evaluate.Row, len(shards))
	for k, sd := range shards {
		a, b := shardWindows(p.Windows, k, len(shards))
		parts[k] = make([][]evaluate.Row, len(p.ChainNodes))
		for c, nodes := range p.ChainNodes {
			var err error
			if parts[k][c], err = readRowsShard(rowsShardPath(sd, c), nodes, a, b); err != nil {
				return err
			}
		}
	}
	opts := evaluateOptions(o, nil, false, 0, dir)
	if realChains || life != nil { // the real chains and lifetimes are replayed here, whole: Merge needs the policies
		opts = evaluateOptions(o, policyList, sweep, decision, dir)
		var err error
		if opts.RealChains, err = studyRealChains(p, realChains); err != nil {
			return err
		}
		if opts.Lifetime, err = life.options(); err != nil {
			return err
		}
	}
	_, err := evaluate.Merge(ctx, evaluateIn(o, p), opts, parts)
	return studyPolicyError(err)
}
