package sim

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// SyncPoints are wall-clock times that no job may run across: a job
// starts only if its time limit ends by the next point, so a job that
// would straddle one waits for it. Schedulers of the 1990s ran so:
// KTH's SP2 (EASY) let no job run across 07:00 and 16:00 on weekdays
// until June 1997, so that the daytime and night limits (4 h, 15 h,
// 60 h over weekends) held. A Slurm cluster gets the same effect from a
// repeating reservation of every node (DAILY or WEEKDAY flags).
//
// A job whose time limit is longer than the longest gap between two
// points of a week (MaxGapSec) could never start under the rule; it
// is exempt from it.
type SyncPoints struct {
	// Zone is the IANA zone the times are in; "" is UTC.
	Zone string `json:"zone,omitempty" yaml:"zone,omitempty"`
	// TimesSec are the points, seconds after midnight (0 to 86399) in
	// Zone.
	TimesSec []int64 `json:"times_sec" yaml:"times_sec"`
	// Weekdays are the days the points fall on, 0 = Sunday to 6 =
	// Saturday; empty is every day.
	Weekdays []int `json:"weekdays,omitempty" yaml:"weekdays,omitempty"`
	// From and To bound the points, Unix seconds: only points in
	// [From, To) exist; 0 leaves a side open.
	From int64 `json:"from,omitempty" yaml:"from,omitempty"`
	To   int64 `json:"to,omitempty" yaml:"to,omitempty"`
}

// Validate checks the points: a known zone, at least one time, each in
// 0..86399, weekdays in 0..6, and To after From when both are set. The
// error names the bad field (zone, times_sec, weekdays, to).
func (p *SyncPoints) Validate() error {
	if _, err := time.LoadLocation(p.Zone); err != nil {
		return fmt.Errorf("zone: %q: %w", p.Zone, err)
	}
	if len(p.TimesSec) == 0 {
		return fmt.Errorf("times_sec: want at least one time of day")
	}
	for _, t := range p.TimesSec {
		if t < 0 || t >= 86400 {
			return fmt.Errorf("times_sec: %d: want 0 to 86399 seconds after midnight", t)
		}
	}
	for _, d := range p.Weekdays {
		if d < 0 || d > 6 {
			return fmt.Errorf("weekdays: %d: want 0 (Sunday) to 6 (Saturday)", d)
		}
	}
	if p.From < 0 || p.To < 0 || p.From > 0 && p.To > 0 && p.To <= p.From {
		return fmt.Errorf("to: %d: want 0 (open) or after from (%d)", p.To, p.From)
	}
	return nil
}

// MaxGapSec returns the longest time between two consecutive points of
// a week, ignoring daylight saving time and From/To: a job with a
// longer limit is exempt from the points.
func (p *SyncPoints) MaxGapSec() int64 {
	var week []int64
	for d := range 7 {
		if len(p.Weekdays) > 0 && !slices.Contains(p.Weekdays, d) {
			continue
		}
		for _, t := range p.TimesSec {
			week = append(week, int64(d)*86400+t)
		}
	}
	if len(week) == 0 {
		return math.MaxInt64
	}
	slices.Sort(week)
	gap := week[0] + 7*86400 - week[len(week)-1]
	for i := 1; i < len(week); i++ {
		gap = max(gap, week[i]-week[i-1])
	}
	return gap
}

// syncCal is a simulation's view of Config.SyncPoints: the next point
// after a time, cached while the clock stays before it.
type syncCal struct {
	on     bool
	loc    *time.Location
	times  []int64 // sorted seconds after midnight
	days   [7]bool
	from   int64
	to     int64 // math.MaxInt64 when open
	maxGap int64
	// the cache: next is the first point after after (noPoint: none).
	after, next int64
	cached      bool
	// seen is the time of the last step (drain): a point in (seen, t]
	// is something that happened at step t.
	seen int64
	// misses counts the wake-ups at points since a job last started
	// (Sim.nextTime stops waking at points when nothing else is left
	// and a week of them started nothing).
	misses int
	week   int // points in a week
}

// noPoint is syncCal.nextAfter's "no point".
const noPoint = math.MaxInt64

func newSyncCal(p *SyncPoints) (syncCal, error) {
	if p == nil {
		return syncCal{}, nil
	}
	if err := p.Validate(); err != nil {
		return syncCal{}, fmt.Errorf("%w: sync points: %w", ErrConfig, err)
	}
	loc, _ := time.LoadLocation(p.Zone)
	c := syncCal{on: true, loc: loc, times: slices.Sorted(slices.Values(p.TimesSec)), from: p.From, to: p.To, maxGap: p.MaxGapSec()}
	c.times = slices.Compact(c.times)
	if c.to == 0 {
		c.to = noPoint
	}
	for d := range c.days {
		c.days[d] = len(p.Weekdays) == 0 || slices.Contains(p.Weekdays, d)
		if c.days[d] {
			c.week += len(c.times)
		}
	}
	return c, nil
}

// nextAfter returns the first point strictly after t (Unix seconds), or
// noPoint when there is none.
func (c *syncCal) nextAfter(t int64) int64 {
	if !c.on {
		return noPoint
	}
	if c.cached && t >= c.after && t < c.next {
		return c.next
	}
	c.after, c.next, c.cached = t, c.find(t), true
	return c.next
}

// find is nextAfter without the cache: it looks at t's day and the
// eight after it.
func (c *syncCal) find(t int64) int64 {
	t = max(t, c.from-1)
	if t >= c.to {
		return noPoint
	}
	day := time.Unix(t, 0).In(c.loc)
	y, m, d := day.Date()
	for k := range 9 {
		if !c.days[time.Date(y, m, d+k, 12, 0, 0, 0, c.loc).Weekday()] {
			continue
		}
		for _, s := range c.times {
			p := time.Date(y, m, d+k, 0, 0, int(s), 0, c.loc).Unix()
			switch {
			case p >= c.to:
				return noPoint
			case p > t:
				return p
			}
		}
	}
	return noPoint
}

// crosses reports whether a job of limit seconds started at now would
// run across a point: one strictly inside (now, now+limit). A job with
// a limit over the week's longest gap is exempt.
func (c *syncCal) crosses(now, limit int64) bool {
	if !c.on || limit > c.maxGap {
		return false
	}
	return c.nextAfter(now) < now+limit
}

// blockPlan makes every point within the plan's window unusable by the
// jobs that would run across it: all nodes are taken for the second
// before it, so a span that contains it does not fit, and a job may
// still start at the point itself.
func (s *Sim) blockPlan(p planner, window int64) {
	if !s.sync.on {
		return
	}
	all := s.cfg.Nodes + s.busy + 1
	for at := s.sync.nextAfter(s.now); at < s.now+window; at = s.sync.find(at) {
		p.reserve(all, at-1, 1)
	}
}
