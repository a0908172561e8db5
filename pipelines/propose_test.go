package pipelines_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/pipelines"
	"github.com/mirage-hpc/mirage/trace"
)

// jobsEvery returns n jobs of nodes nodes submitted every gap from t0,
// each running for run from its submission.
func jobsEvery(t0 time.Time, n int, gap, run time.Duration, nodes int32) []trace.Job {
	var out []trace.Job
	for i := range n {
		s := t0.Add(time.Duration(i) * gap)
		out = append(out, trace.Job{Submit: s, Start: s, End: s.Add(run), NNodes: nodes})
	}
	return out
}

// TestPropose: the partition is the most nodes held at once (a job ending
// when another starts is not counted twice), the periods split the span
// 70/30 with a window's gap, and the zone is kept.
func TestPropose(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	// 60 days, a 3-node job every hour for 3 hours: 3 at once, 9 nodes.
	jobs := jobsEvery(t0, 60*24, time.Hour, 3*time.Hour, 3)
	p, err := pipelines.Propose(jobs, pipelines.ProposeOptions{Name: "x", Zone: "Europe/Berlin"})
	if err != nil {
		t.Fatal(err)
	}
	s := p.Study
	if s.Cluster.Nodes != 9 || s.Trace.Zone != "Europe/Berlin" || len(s.Chains.Nodes) != 1 {
		t.Errorf("nodes %d, zone %s, chains %v; want 9, Europe/Berlin, [1]", s.Cluster.Nodes, s.Trace.Zone, s.Chains.Nodes)
	}
	train, val, err := s.Protocols()
	if err != nil {
		t.Fatal(err)
	}
	loc, _ := time.LoadLocation("Europe/Berlin")
	trainStart, _ := time.ParseInLocation("2006-01-02T15:04:05", train.Start, loc)
	valStart, _ := time.ParseInLocation("2006-01-02T15:04:05", val.Start, loc)
	window := train.Warmup + train.Workload
	lastTrainEnd := trainStart.Add(time.Duration(train.Windows-1)*train.Interval + window)
	last := jobs[len(jobs)-1].Submit
	if valStart.Before(lastTrainEnd) || valStart.Add(time.Duration(val.Windows-1)*val.Interval+window).After(last) {
		t.Errorf("training windows end %s, validation %s..: overlap or past the trace's end %s", lastTrainEnd, valStart, last)
	}
	if share := float64(lastTrainEnd.Sub(t0)) / float64(last.Sub(t0)); share < 0.6 || share > 0.75 {
		t.Errorf("training covers %.2f of the span, want about 0.7", share)
	}
	// Real waits: calibrated, and the trace's own chains checked and
	// replayed with the policies.
	if !s.Cluster.Calibrate || !s.Analyze || !s.RealChains {
		t.Errorf("calibrate %v, analyze %v, real_chains %v: want all for a trace with real waits", s.Cluster.Calibrate, s.Analyze, s.RealChains)
	}
	if len(p.Notes) == 0 || !strings.Contains(strings.Join(p.Notes, "\n"), "9 nodes") {
		t.Errorf("notes %q", p.Notes)
	}
	synth, _, err := pipelines.Builtin("synth")
	if err != nil {
		t.Fatal(err)
	}
	p, err = pipelines.Propose(jobs, pipelines.ProposeOptions{Name: "x", PartitionNodes: 40, ModelsFrom: synth})
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Study; s.Cluster.Nodes != 40 || len(s.Chains.Nodes) != 2 || !reflect.DeepEqual(s.Models, synth.Models) ||
		!slices.Equal(s.Policies, synth.Policies) || s.Budget != synth.Budget || !s.Sweep || !s.Predictions {
		t.Errorf("with partition nodes 40 and synth's models: %+v", s)
	}
	for _, tt := range []struct {
		name string
		jobs []trace.Job
		want string
	}{
		{"Relative1970", jobsEvery(time.Unix(0, 0), 2000, time.Hour, time.Hour, 1), "--start-time"},
		{"TooShort", jobsEvery(t0, 24*10, time.Hour, time.Hour, 1), "too short"},
		{"NoRuns", []trace.Job{{Submit: t0}}, "partition size"},
		{"Empty", nil, "no job"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := pipelines.Propose(tt.jobs, pipelines.ProposeOptions{})
			if !errors.Is(err, pipelines.ErrStudy) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want ErrStudy mentioning %q", err, tt.want)
			}
		})
	}
}
