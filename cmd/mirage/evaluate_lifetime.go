package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mirage-hpc/mirage/evaluate"
)

// parseLongDuration reads a duration that may be given in days ("30d",
// "1.5d") or as Go's ("720h"), in whole seconds > 0.
func parseLongDuration(flag, s string) (int64, error) {
	var sec float64
	if d, ok := strings.CutSuffix(s, "d"); ok {
		v, err := strconv.ParseFloat(d, 64)
		if err != nil {
			return 0, usagef("--%s %q: want a duration such as 30d or 720h", flag, s)
		}
		sec = v * 86400
	} else {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, usagef("--%s %q: want a duration such as 30d or 720h", flag, s)
		}
		sec = d.Seconds()
	}
	if !(sec >= 1) || sec != float64(int64(sec)) {
		return 0, usagef("--%s %q: want a positive whole number of seconds", flag, s)
	}
	return int64(sec), nil
}

// lifetimeOptions reads --lifetime, --handover and --lifetime-every (nil
// without --lifetime).
func lifetimeOptions(c EvaluateConfig) (*evaluate.LifetimeOptions, error) {
	if c.Lifetime == "" {
		return nil, nil
	}
	length, err := parseLongDuration("lifetime", c.Lifetime)
	if err != nil {
		return nil, err
	}
	lo := &evaluate.LifetimeOptions{LengthSec: length, HandoverSec: evaluate.HandoverOff, Every: c.LifetimeEvery}
	if c.LifetimeEvery < 0 {
		return nil, usagef("--lifetime-every %d: want N >= 1", c.LifetimeEvery)
	}
	if h := c.Handover; h != "off" {
		d, err := time.ParseDuration(h)
		if err != nil || d < 0 || d%time.Second != 0 {
			return nil, usagef("--handover %q: want off or a duration >= 0 in whole seconds", h)
		}
		lo.HandoverSec = int64(d / time.Second)
	}
	return lo, nil
}

// printLifetimes prints the lifetime table: per chain size and policy,
// the metrics with their bootstrap intervals.
func printLifetimes(w io.Writer, policies []string, s *evaluate.LifetimeSummary) {
	ho := "off (each link runs to its end)"
	if s.HandoverMin != nil {
		ho = fmt.Sprintf("%g min", *s.HandoverMin)
	}
	fmt.Fprintf(w, "\nlifetimes of %g d, handover %s, every %d window(s); means per 30 d with %g%% bootstrap intervals\n",
		s.LengthH/24, ho, s.Every, 100*s.Level)
	var sizes []string
	for _, p := range policies {
		for n := range s.Policies[p] {
			if !slices.Contains(sizes, n) {
				sizes = append(sizes, n)
			}
		}
	}
	slices.SortFunc(sizes, func(a, b string) int {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return cmp.Compare(x, y)
	})
	iv := func(v evaluate.Interval, f string) string {
		return fmt.Sprintf(f+" ("+f+"–"+f+")", v.Point, v.Lo, v.Hi)
	}
	for _, n := range sizes {
		fmt.Fprintf(w, "chain of %s node(s)\n", n)
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "policy\tlifetimes\tavailability %\tdowntime h\tp95 downtime h\tinterruptions\tlinks\tnode-h per service h\tbeyond trace")
		for _, p := range policies {
			m, ok := s.Policies[p][n]
			if !ok {
				continue
			}
			a := m.Availability
			a.Point, a.Lo, a.Hi = 100*a.Point, 100*a.Lo, 100*a.Hi
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f%%\n", p, m.Lifetimes, iv(a, "%.2f"), iv(m.DowntimeH, "%.2f"),
				iv(m.P95DowntimeH, "%.2f"), iv(m.Interruptions, "%.2f"), iv(m.Links, "%.2f"), iv(m.NodeHPerServiceH, "%.3f"), 100*m.BeyondTraceShare)
		}
		tw.Flush()
	}
}
