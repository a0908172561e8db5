package analyze

import (
	"strconv"
	"time"

	"github.com/mirage-hpc/mirage/trace"
)

// Node-count classes of the waits table, by upper bound (inclusive).
var nodeClasses = []struct {
	max   int32
	label string
}{{1, "1"}, {4, "2-4"}, {16, "5-16"}, {64, "17-64"}, {256, "65-256"}, {1 << 30, ">256"}}

// nodeClass returns the class label of a job of n nodes (0 counts as 1).
func nodeClass(n int32) string {
	for _, c := range nodeClasses {
		if n <= c.max {
			return c.label
		}
	}
	return nodeClasses[len(nodeClasses)-1].label
}

// Time-limit classes, as trace.Stats buckets them: a class includes its
// upper bound (a 6 h limit is in 1-6h).
var limitClasses = []string{"<=1h", "1-6h", "6-24h", "24-48h", ">48h", "unlimited"}

// limitClass returns the class label of a time limit in seconds
// (trace.NoLimit or 0: "unlimited").
func limitClass(sec int64) string {
	switch {
	case sec <= 0:
		return "unlimited"
	case sec <= 3600:
		return "<=1h"
	case sec <= 6*3600:
		return "1-6h"
	case sec <= 24*3600:
		return "6-24h"
	case sec <= 48*3600:
		return "24-48h"
	}
	return ">48h"
}

// User classes of the run-time-vs-limit table, by the user's number of
// jobs with a run time and a limit.
var userClasses = []struct {
	min   int64
	label string
}{{1000, "1000+ jobs"}, {100, "100-999 jobs"}, {10, "10-99 jobs"}, {1, "1-9 jobs"}}

func userClass(jobs int64) string {
	for _, c := range userClasses {
		if jobs >= c.min {
			return c.label
		}
	}
	return userClasses[len(userClasses)-1].label
}

// userKey identifies a job's user: the name, else "uid:N", else "".
func userKey(j *trace.Job) string {
	if j.User != "" {
		return j.User
	}
	if j.UID >= 0 {
		return "uid:" + strconv.FormatInt(j.UID, 10)
	}
	return ""
}

// monthCache labels Unix seconds with their month "YYYY-MM" in a zone,
// recomputing only when a time leaves the cached month.
type monthCache struct {
	loc    *time.Location
	lo, hi int64 // the cached month, [lo, hi) Unix seconds
	label  string
}

func (m *monthCache) month(sec int64) string {
	if m.label != "" && sec >= m.lo && sec < m.hi {
		return m.label
	}
	t := time.Unix(sec, 0).In(m.loc)
	first := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, m.loc)
	m.lo, m.hi = first.Unix(), first.AddDate(0, 1, 0).Unix()
	m.label = t.Format("2006-01")
	return m.label
}
