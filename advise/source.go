package advise

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Source reads the state of a live cluster. SlurmSource reads Slurm's
// commands; tests and deployment tools may supply a fake (StaticSource).
type Source interface {
	// Observe returns the queue, the recent history and the partition's
	// nodes at the time of the reading.
	Observe(ctx context.Context) (*Observation, error)
}

// StaticSource is a Source that returns a fixed Observation, for tests.
type StaticSource struct{ Obs Observation }

// Observe implements Source with a copy of s.Obs.
func (s *StaticSource) Observe(context.Context) (*Observation, error) {
	o := s.Obs
	return &o, nil
}

// SlurmSource reads a Slurm cluster through Runner: `squeue --json`
// (Slurm ≥ 21.08), or SqueueFormatArgs when that fails; sacct for the
// last HistorySec (a cluster without accounting gives an empty history
// and a warning); and sinfo for the nodes.
type SlurmSource struct {
	Runner Runner
	// Partition restricts sinfo to one partition; "" means every node.
	Partition string
	// HistorySec is how far back sacct reads, seconds; 0 means 25 hours
	// (the features' 24 h plus the recent starts before it).
	HistorySec int64
	// RuntimeFields reads sacct with SacctRuntimeArgs (job names,
	// accounts, QOS, CPUs and GPUs) instead of SacctArgs: set it for a
	// model whose features need a run-time model
	// (ModelInfo.RuntimeModel).
	RuntimeFields bool
	// Location is the cluster's zone for times squeue and sacct print
	// without one; nil means time.Local.
	Location *time.Location
	// Clock returns the time of a reading; nil means time.Now.
	Clock func() time.Time
	// Logger receives warnings (fallbacks, no accounting); nil discards.
	Logger *slog.Logger
}

// Observe implements Source.
func (s *SlurmSource) Observe(ctx context.Context) (*Observation, error) {
	log := s.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	loc := s.Location
	if loc == nil {
		loc = time.Local
	}
	clock := s.Clock
	if clock == nil {
		clock = time.Now
	}
	obs := &Observation{Now: clock().Unix()}
	out, err := s.Runner.Run(ctx, "squeue", SqueueJSONArgs...)
	if err == nil {
		obs.Queue, err = ParseSqueueJSONBytes(out)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		log.Warn("squeue --json failed; using squeue --format", "err", err)
		if out, err = s.Runner.Run(ctx, "squeue", SqueueFormatArgs...); err != nil {
			return nil, fmt.Errorf("read the queue: %w", err)
		}
		if obs.Queue, err = ParseSqueueFormat(bytes.NewReader(out), loc); err != nil {
			return nil, fmt.Errorf("read the queue: %w", err)
		}
	}
	span := s.HistorySec
	if span <= 0 {
		span = 25 * 3600
	}
	sacct := SacctArgs
	if s.RuntimeFields {
		sacct = SacctRuntimeArgs
	}
	out, err = s.Runner.Run(ctx, "sacct", sacct(obs.Now-span, obs.Now)...)
	if err == nil {
		var bad int
		obs.History, bad, err = ParseSacct(ctx, bytes.NewReader(out), loc)
		if bad > 0 {
			log.Warn("sacct rows skipped", "rows", bad)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		log.Warn("no sacct history; the hist_* features see only the current queue", "err", err)
		obs.History = nil
	}
	args := []string{"--noheader", "--Node", "--format=%N|%T"}
	if s.Partition != "" {
		args = append(args, "--partition="+s.Partition)
	}
	if out, err = s.Runner.Run(ctx, "sinfo", args...); err != nil {
		log.Warn("sinfo failed; using the model's partition size", "err", err)
	} else {
		obs.Nodes, obs.Capacity = ParseSinfoNodes(out)
	}
	return obs, nil
}

// ParseSinfoNodes reads `sinfo --noheader --Node --format=%N|%T` output
// and returns the number of distinct nodes and of those usable now (not
// down, drained, failing, in maintenance or powered off).
func ParseSinfoNodes(out []byte) (nodes, usable int) {
	seen := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		name, state, ok := strings.Cut(strings.TrimSpace(line), "|")
		if !ok || name == "" || seen[name] {
			continue
		}
		seen[name] = true
		nodes++
		state = strings.TrimRight(strings.ToLower(state), "*~#!%$@^-")
		switch {
		case strings.HasPrefix(state, "down"), strings.HasPrefix(state, "drain"), strings.HasPrefix(state, "fail"),
			strings.HasPrefix(state, "maint"), strings.HasPrefix(state, "power"), strings.HasPrefix(state, "unknown"),
			strings.HasPrefix(state, "inval"), strings.HasPrefix(state, "future"), strings.HasPrefix(state, "reserved"):
		default:
			usable++
		}
	}
	return nodes, usable
}
