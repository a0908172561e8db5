package evaluate

import (
	"context"
	"fmt"

	"github.com/mirage-hpc/mirage/features"
)

// RunShard replays windows [a, b) of every chain size of in.Protocol, as
// Run does all of them (without writing anything: opts.Output is not
// used): rows[c] are chain size c's rows (the protocol's ChainNodes
// order) in Replay's order, their Window numbered in the whole period.
// opts.Progress counts the windows of one chain size at a time.
func RunShard(ctx context.Context, in In, opts RunOptions, a, b int) ([][]Row, error) {
	r, err := prepareRun(ctx, in, opts)
	if err != nil {
		return nil, err
	}
	if a < 0 || b < a || b > r.fo.Windows {
		return nil, fmt.Errorf("%w: windows [%d, %d) of %d", features.ErrOptions, a, b, r.fo.Windows)
	}
	rows := make([][]Row, len(r.fo.ChainNodes))
	for c, nodes := range r.fo.ChainNodes {
		res, err := Replay(ctx, r.jobs, r.policies, r.replayOptions(shardOptions(r.fo, a, b, nodes)))
		if err != nil {
			return nil, err
		}
		for k := range res.Rows {
			res.Rows[k].Window += a
		}
		rows[c] = res.Rows
	}
	return rows, nil
}

// shardOptions narrows fo to windows [a, b) of the chain size nodes.
func shardOptions(fo features.Options, a, b, nodes int) features.Options {
	fo.Start += int64(a) * fo.IntervalSec
	fo.Windows = b - a
	fo.ChainNodes = []int{nodes}
	return fo
}

// Merge is Run from the rows of RunShard's shards: shards[k][c] are
// shard k's rows of chain size c, the shards in window order. It puts
// the rows in Replay's order (chain size, then window), so its metrics
// and files are byte for byte Run's. It reads in's trace only for the
// simulator configuration the metrics record; it parses no policy and
// checks no fit (opts.Lambda, opts.Output and opts.Policies.DirOf are
// used), unless opts.RealChains asks it to replay the trace's own chains
// (as Run does: with opts.Policies, and the fit check unless
// opts.NoFitCheck).
func Merge(ctx context.Context, in In, opts RunOptions, shards [][][]Row) (RunSummary, error) {
	tjobs, err := readTrace(ctx, in)
	if err != nil {
		return RunSummary{}, err
	}
	_, fo, err := in.Protocol.Prepare(tjobs)
	if err != nil {
		return RunSummary{}, err
	}
	for k, s := range shards {
		if len(s) != len(fo.ChainNodes) {
			return RunSummary{}, fmt.Errorf("merge: shard %d has %d chain sizes, want %d", k, len(s), len(fo.ChainNodes))
		}
	}
	var rows []Row
	for c := range fo.ChainNodes {
		for _, s := range shards {
			rows = append(rows, s[c]...)
		}
	}
	sum := RunSummary{Policies: replayedPolicies(rows), Rows: rows}
	var chains *ChainsSummary
	if opts.RealChains != nil {
		in.Jobs = tjobs // read once
		r, err := prepareRun(ctx, in, opts)
		if err != nil {
			return RunSummary{}, err
		}
		cs, err := r.realChains(ctx, in.Protocol)
		if err != nil {
			return RunSummary{}, err
		}
		chains = &cs
	}
	var life *LifetimeSummary
	if opts.Lifetime != nil {
		in.Jobs = tjobs
		r, err := prepareRun(ctx, in, opts)
		if err != nil {
			return RunSummary{}, err
		}
		if life, err = r.lifetimes(ctx); err != nil {
			return RunSummary{}, err
		}
	}
	if sum.Metrics, err = finish(in.Protocol, fo.Config, opts, rows, chains, life); err != nil {
		return RunSummary{}, err
	}
	return sum, nil
}

// replayedPolicies returns the policies of rows' first window, in order: the
// policies of a replay (Results.Policies).
func replayedPolicies(rows []Row) []string {
	var out []string
	for _, r := range rows {
		if r.Window != rows[0].Window || r.ChainNodes != rows[0].ChainNodes {
			break
		}
		out = append(out, r.Policy)
	}
	return out
}
