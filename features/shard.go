package features

import (
	"context"
	"fmt"
)

// Sharded builds: a caller that splits Run over machines runs RunShard for
// contiguous runs of the windows and MergeShards once over all the
// shards' samples; the merged file is byte for byte Run's (where the
// shards' files keep every value's bits, see WriteParquet).

// Part returns o narrowed to windows [a, b) (0-based, b exclusive) of the
// chain size nodes: Build then numbers the windows from 0.
func (o Options) Part(a, b, nodes int) Options {
	o.Start += int64(a) * o.IntervalSec
	o.Windows = b - a
	o.ChainNodes = []int{nodes}
	return o
}

// RunShard builds windows [a, b) of in.Protocol's windows, for each of
// its chain sizes, prepared as Run prepares them: out[c] are the samples
// of chain size c (ChainNodes' order) with window ids of the whole period
// and Build's weights over the shard's windows (which MergeShards does not
// use), and meta their metadata (opts.Seed; opts.Output is not used). The
// run-time predictions are of every job of the trace, as in Run, so the
// shards' columns are its rows'.
func RunShard(ctx context.Context, in In, opts RunOptions, a, b int) (out []Samples, meta FileMeta, err error) {
	if a < 0 || b < a || b > in.Protocol.Windows {
		return nil, FileMeta{}, fmt.Errorf("%w: shard of windows [%d, %d) of %d", ErrOptions, a, b, in.Protocol.Windows)
	}
	pr, err := in.prepare(ctx, opts, true)
	if err != nil {
		return nil, FileMeta{}, err
	}
	for _, nodes := range pr.fo.ChainNodes {
		s, _, err := Build(ctx, pr.jobs, pr.fo.Part(a, b, nodes))
		if err != nil {
			return nil, FileMeta{}, err
		}
		for k := range s.WindowID {
			s.WindowID[k] += int32(a)
		}
		out = append(out, s)
	}
	return out, in.meta(pr.fo.Config, opts.Seed), nil
}

// MergeShards writes opts.Output from the shards' samples as Run writes
// it: parts[k][c] are shard k's samples of chain size c, the shards in
// window order (RunShard's, read back). The run-time column is the
// shards' (in.RunTimes gives only the metadata; nothing is predicted);
// the trace is read for the simulator configuration of the metadata.
func MergeShards(ctx context.Context, in In, opts RunOptions, parts [][]*Samples) (RunSummary, error) {
	if opts.Output == "" {
		return RunSummary{}, fmt.Errorf("%w: no output file", ErrOptions)
	}
	opts.FitChecked = true // the shards checked it
	pr, err := in.prepare(ctx, opts, false)
	if err != nil {
		return RunSummary{}, err
	}
	s := Merge(parts, in.FeatureNames(), len(pr.fo.ChainNodes), pr.fo.Windows)
	if err := WriteParquet(opts.Output, &s, in.meta(pr.fo.Config, opts.Seed)); err != nil {
		return RunSummary{}, err
	}
	sum := summarise(&s, pr.fo.Windows, len(pr.fo.ChainNodes))
	return in.summary(sum, opts, len(s.Names), nil), nil
}

// Merge returns the samples of parts (parts[k][c]: shard k's samples of
// chain size c, chains chain sizes, the shards in window order) with
// feature columns names, in Build's row order (chain size, then window)
// and with Build's weights: every one of the chains*windows (window,
// chain size) weighs the same in total and the mean weight is 1; the
// parts' weights are not used.
func Merge(parts [][]*Samples, names []string, chains, windows int) Samples {
	s := Samples{Names: names}
	s.Features = make([][]float64, len(s.Names))
	type unit struct{ chain, window int32 }
	probes := map[unit]int{}
	var units []unit // each row's
	for c := range chains {
		for k := range parts {
			q := parts[k][c]
			s.WindowID = append(s.WindowID, q.WindowID...)
			s.WindowStart = append(s.WindowStart, q.WindowStart...)
			s.ChainNodes = append(s.ChainNodes, q.ChainNodes...)
			s.ProbeTime = append(s.ProbeTime, q.ProbeTime...)
			for f := range s.Features {
				s.Features[f] = append(s.Features[f], q.Features[f]...)
			}
			s.LabelRSec = append(s.LabelRSec, q.LabelRSec...)
			s.LabelWaitSec = append(s.LabelWaitSec, q.LabelWaitSec...)
			for _, w := range q.WindowID {
				u := unit{int32(c), w}
				probes[u]++
				units = append(units, u)
			}
		}
	}
	n, all := s.Len(), chains*windows
	s.Weight = make([]float64, n)
	for r, u := range units {
		s.Weight[r] = float64(n) / float64(all) / float64(probes[u])
	}
	return s
}
