package pipelines

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/trace"
)

// shapeJobs makes jobs of the given (limit in hours, nodes, count).
func shapeJobs(specs ...[3]int) []trace.Job {
	var jobs []trace.Job
	for _, s := range specs {
		for range s[2] {
			j := trace.NewJob()
			j.TimelimitSec, j.NNodes = int64(s[0])*3600, int32(s[1])
			if s[0] < 0 {
				j.TimelimitSec = trace.NoLimit
			}
			jobs = append(jobs, j)
		}
	}
	return jobs
}

func TestProposeChainShape(t *testing.T) {
	for _, c := range []struct {
		name      string
		jobs      []trace.Job
		partition int
		limitH    int64
		nodes     []int
	}{
		// The most common long limit, not the longest: 24 h limits are
		// the cluster's long jobs, a few 72 h ones are special.
		{"CommonLongLimit", shapeJobs([3]int{1, 1, 500}, [3]int{24, 4, 300}, [3]int{24, 1, 100}, [3]int{72, 1, 2}), 64, 24, []int{1, 4}},
		// A limit used by at least 0.5 % of the jobs sets what "long" is.
		{"LongestCommonSetsLong", shapeJobs([3]int{2, 1, 500}, [3]int{48, 2, 10}, [3]int{30, 2, 20}), 64, 30, []int{1, 2}},
		{"MultiNodeWithinHalfThePartition", shapeJobs([3]int{24, 32, 50}, [3]int{24, 1, 10}), 40, 24, []int{1}},
		{"NoLimits", shapeJobs([3]int{-1, 2, 30}), 64, 48, []int{1, 8}},
		{"NoLimitsSmallPartition", shapeJobs([3]int{-1, 2, 30}), 8, 48, []int{1}},
		{"TiesToTheLongerLimitAndTheSmallerSize", shapeJobs([3]int{20, 2, 10}, [3]int{30, 4, 10}, [3]int{30, 2, 0}), 64, 30, []int{1, 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sh := proposeChainShape(c.jobs, c.partition)
			if sh.limit != c.limitH*3600 || !slices.Equal(sh.nodes, c.nodes) {
				t.Errorf("limit %ds, nodes %v; want %dh, %v (%s)", sh.limit, sh.nodes, c.limitH, c.nodes, sh.why)
			}
			if sh.why == "" {
				t.Error("no reason given")
			}
		})
	}
}

func TestCheckChainLimit(t *testing.T) {
	jobs := shapeJobs([3]int{24, 1, 10})
	for _, c := range []struct {
		limit time.Duration
		ok    bool
	}{{0, false}, {24 * time.Hour, true}, {12 * time.Hour, true}, {25 * time.Hour, false}} {
		s := &Study{Chains: ChainSpec{Limit: Duration(c.limit)}}
		err := s.checkChainLimit(jobs, 0)
		if (err == nil) != c.ok {
			t.Errorf("limit %v: %v, want ok %v", c.limit, err, c.ok)
		}
		if err != nil && (!errors.Is(err, ErrStudy) || !strings.Contains(err.Error(), "at most 24h")) {
			t.Errorf("limit %v: %v: want ErrStudy naming the longest limit", c.limit, err)
		}
	}
	// The partition's maximum time wins over the jobs' limits.
	if err := (&Study{Chains: ChainSpec{Limit: Duration(20 * time.Hour)}}).checkChainLimit(jobs, 12*3600); err == nil || !strings.Contains(err.Error(), "maximum time (12h)") {
		t.Errorf("above the partition's maximum time: %v", err)
	}
	if err := (&Study{}).checkChainLimit(shapeJobs([3]int{-1, 1, 3}), 0); err != nil {
		t.Errorf("a trace without limits: %v", err)
	}
}
