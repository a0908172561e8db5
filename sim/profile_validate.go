package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// fieldError is a bad profile value: path is its field in the YAML
// (config.backfill.interval_sec, config.capacity.2.nodes).
type fieldError struct {
	path string
	msg  string
}

func (e *fieldError) Error() string { return e.path + ": " + e.msg }

// Validate checks every value of the profile and returns an error
// wrapping ErrProfile that names the first bad field as the YAML spells
// it.
func (p *Profile) Validate() error {
	bad := func(path, format string, args ...any) error {
		return fmt.Errorf("%w: %w", ErrProfile, &fieldError{path: path, msg: fmt.Sprintf(format, args...)})
	}
	c := &p.Config
	pr, bf := c.Priority, c.Backfill
	type weight struct {
		path string
		v    float64
	}
	for _, w := range []weight{{"config.priority.age_weight", pr.AgeWeight}, {"config.priority.size_weight", pr.SizeWeight},
		{"config.priority.fairshare_weight", pr.FairShareWeight}} {
		if math.IsNaN(w.v) || math.IsInf(w.v, 0) || w.v < 0 {
			return bad(w.path, "%v: want a weight >= 0", w.v)
		}
	}
	backfillOn := bf.Flavour != BackfillNone
	switch {
	case strings.TrimSpace(p.Name) == "" || strings.ContainsAny(p.Name, "\n\r"):
		return bad("name", "%q: want a name on one line", p.Name)
	case c.Nodes <= 0:
		return bad("config.nodes", "%d: want a node count > 0", c.Nodes)
	case pr.MaxAgeSec < 0 || pr.MaxAgeSec == 0 && pr.AgeWeight != 0:
		return bad("config.priority.max_age_sec", "%d: want > 0 (>= 0 with age_weight 0)", pr.MaxAgeSec)
	case pr.DecayHalfLifeSec < 0 || pr.DecayHalfLifeSec == 0 && pr.FairShareWeight != 0:
		return bad("config.priority.decay_half_life_sec", "%d: want > 0 (>= 0 with fairshare_weight 0)", pr.DecayHalfLifeSec)
	case bf.IntervalSec < 0 || bf.IntervalSec == 0 && backfillOn:
		return bad("config.backfill.interval_sec", "%d: want > 0 (>= 0 with flavour none)", bf.IntervalSec)
	case bf.WindowSec < 0 || bf.WindowSec == 0 && backfillOn:
		return bad("config.backfill.window_sec", "%d: want > 0 (>= 0 with flavour none)", bf.WindowSec)
	case bf.ResolutionSec < 0 || bf.ResolutionSec == 0 && backfillOn:
		return bad("config.backfill.resolution_sec", "%d: want > 0 (>= 0 with flavour none)", bf.ResolutionSec)
	case bf.MaxJobTest < 0:
		return bad("config.backfill.max_job_test", "%d: want >= 0 (0 = all)", bf.MaxJobTest)
	case bf.MaxJobUser < 0:
		return bad("config.backfill.max_job_user", "%d: want >= 0 (0 = no limit)", bf.MaxJobUser)
	case c.MainIntervalSec < 0:
		return bad("config.main_interval_sec", "%d: want >= 0 (0 = a main pass after every event)", c.MainIntervalSec)
	case c.Limits.MaxJobsPerUser < 0:
		return bad("config.limits.max_jobs_per_user", "%d: want >= 0 (0 = unlimited)", c.Limits.MaxJobsPerUser)
	case c.Limits.MaxNodesPerUser < 0:
		return bad("config.limits.max_nodes_per_user", "%d: want >= 0 (0 = unlimited)", c.Limits.MaxNodesPerUser)
	case len(c.Capacity) > 0 && p.InferCapacity != nil:
		return bad("config.capacity", "given with infer_capacity, which replaces it: keep one")
	}
	if sp := c.SyncPoints; sp != nil {
		if err := sp.Validate(); err != nil {
			return fmt.Errorf("%w: %w", ErrProfile, &fieldError{path: "config.sync_points." + strings.SplitN(err.Error(), ":", 2)[0], msg: strings.TrimSpace(strings.SplitN(err.Error(), ":", 2)[1])})
		}
	}
	for i, st := range c.Capacity {
		switch {
		case st.Nodes < 0 || st.Nodes > c.Nodes:
			return bad(fmt.Sprintf("config.capacity.%d.nodes", i), "%d: want 0 to config.nodes (%d)", st.Nodes, c.Nodes)
		case i > 0 && st.At < c.Capacity[i-1].At:
			return bad(fmt.Sprintf("config.capacity.%d.at", i), "%d: before the step above it (%d): want the steps sorted by at", st.At, c.Capacity[i-1].At)
		}
	}
	if d := p.InferDependencies; d != nil {
		switch {
		case d.GapSec < 0:
			return bad("infer_dependencies.gap_sec", "%d: want >= 0 (0 = %d)", d.GapSec, DefaultGapSec)
		case d.MinWaitSec < 0:
			return bad("infer_dependencies.min_wait_sec", "%d: want >= 0 (0 = %d)", d.MinWaitSec, DefaultMinWaitSec)
		}
	}
	if o := p.InferCapacity; o != nil {
		switch {
		case o.BucketSec < 0:
			return bad("infer_capacity.bucket_sec", "%d: want >= 0 (0 = %d)", o.BucketSec, DefaultCapacityBucketSec)
		case o.Smooth < 0:
			return bad("infer_capacity.smooth", "%d: want >= 0 buckets", o.Smooth)
		case o.Headroom < 0:
			return bad("infer_capacity.headroom", "%d: want >= 0 nodes", o.Headroom)
		case o.MinPendingSec < 0:
			return bad("infer_capacity.min_pending_sec", "%d: want >= 0 (0 = every bucket)", o.MinPendingSec)
		}
	}
	if err := p.validatePartitions(); err != nil {
		return err
	}
	if err := c.Validate(); err != nil { // what the checks above missed
		return bad("config", "%v", err)
	}
	return nil
}

// fieldLine returns the line of the value at path (dot-separated mapping
// keys and sequence indices) in the YAML document root, or of its nearest
// ancestor present; 0 when nothing of it is.
func fieldLine(root *yaml.Node, path string) int {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	line := 0
	for _, key := range strings.Split(path, ".") {
		var next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == key {
					next = n.Content[i+1]
					break
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(key); err == nil && i >= 0 && i < len(n.Content) {
				next = n.Content[i]
			}
		}
		if next == nil {
			return line
		}
		n, line = next, next.Line
	}
	return line
}
