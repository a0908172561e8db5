package sim_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// ftBase is 2022-10-05T00:00:00Z in Unix seconds.
const ftBase = 1664928000

// ftAt returns ftBase+sec as a time, or the zero time for -1 (unknown).
func ftAt(sec int64) time.Time {
	if sec < 0 {
		return time.Time{}
	}
	return time.Unix(ftBase+sec, 0).UTC()
}

// ftJob builds a trace job; times are seconds after ftBase, -1 for unknown.
func ftJob(id, user string, uid int64, submit, start, end, limitSec int64, nodes int32) trace.Job {
	j := trace.NewJob()
	j.JobID, j.User, j.UID = id, user, uid
	j.Submit, j.Start, j.End = ftAt(submit), ftAt(start), ftAt(end)
	j.TimelimitSec, j.NNodes = limitSec, nodes
	return j
}

func TestFromTrace(t *testing.T) {
	eligible := ftJob("e", "ann", 1, 100, 900, 1000, 600, 1)
	eligible.Eligible = ftAt(500)
	early := ftJob("early-elig", "ann", 1, 100, 900, 1000, 600, 1)
	early.Eligible = ftAt(100) // == Submit: not a hold
	cancelled := ftJob("c", "", 7, 200, 300, 300, 600, 2)
	cancelled.State = trace.StateCancelled

	tests := []struct {
		Name     string
		Jobs     []trace.Job
		Opts     sim.FromTraceOptions
		Want     []sim.Job
		WantConv sim.Conversion
	}{
		{Name: "Empty", Want: []sim.Job{}, WantConv: sim.Conversion{}},
		{
			Name: "Ran",
			Jobs: []trace.Job{
				ftJob("1", "ann", 1, 0, 60, 660, 3600, 2),
				ftJob("2", "ann", 1, 10, 60, 4000, 3600, 0),                  // overran: capped, 0 nodes -> 1
				ftJob("3", "", trace.NoID, 20, 30, 200000, trace.NoLimit, 3), // no limit, ran 55 h
				ftJob("4", "bob", 1, 30, 40, 50, 0, 1),                       // limit 0 = none
			},
			Want: []sim.Job{
				{Name: "1", User: 0, Nodes: 2, Submit: ftBase, After: sim.NoJob, LimitSec: 3600, RunSec: 600, TraceStart: ftBase + 60},
				{Name: "2", User: 0, Nodes: 1, Submit: ftBase + 10, After: sim.NoJob, LimitSec: 3600, RunSec: 3600, TraceStart: ftBase + 60},
				{Name: "3", User: -1, Nodes: 3, Submit: ftBase + 20, After: sim.NoJob, LimitSec: 199970, RunSec: 199970, TraceStart: ftBase + 30},
				{Name: "4", User: 1, Nodes: 1, Submit: ftBase + 30, After: sim.NoJob, LimitSec: sim.DefaultLimitSec, RunSec: 10, TraceStart: ftBase + 40},
			},
			WantConv: sim.Conversion{Jobs: 4, Users: 2},
		},
		{
			Name: "Kinds",
			Jobs: []trace.Job{
				eligible,
				early,
				cancelled,
				ftJob("none", "", 8, 250, -1, 400, 600, 1),     // Start None: cancelled pending
				ftJob("run", "", 7, 260, 270, -1, 600, 1),      // still running
				ftJob("pend", "", 8, 280, -1, -1, 600, 1),      // still pending
				ftJob("back", "", 8, 290, -1, 280, 600, 1),     // End before Submit
				ftJob("zero", "", 9, 295, 296, 296, 600, 1),    // State unknown, Start == End
				ftJob("ranzero", "", 9, 296, 296, 296, 600, 1), // completed in 0 s
			},
			Opts: sim.FromTraceOptions{DefaultLimitSec: 100},
			Want: []sim.Job{
				{Name: "e", User: 0, Nodes: 1, Submit: ftBase + 100, Eligible: ftBase + 500, After: sim.NoJob, LimitSec: 600, RunSec: 100, TraceStart: ftBase + 900},
				{Name: "early-elig", User: 0, Nodes: 1, Submit: ftBase + 100, After: sim.NoJob, LimitSec: 600, RunSec: 100, TraceStart: ftBase + 900},
				{Name: "c", User: 1, Nodes: 2, Submit: ftBase + 200, After: sim.NoJob, LimitSec: 600, Cancel: ftBase + 300},
				{Name: "none", User: 2, Nodes: 1, Submit: ftBase + 250, After: sim.NoJob, LimitSec: 600, Cancel: ftBase + 400},
				{Name: "run", User: 1, Nodes: 1, Submit: ftBase + 260, After: sim.NoJob, LimitSec: 600, RunSec: 600, TraceStart: ftBase + 270},
				{Name: "pend", User: 2, Nodes: 1, Submit: ftBase + 280, After: sim.NoJob, LimitSec: 600, RunSec: 600},
				{Name: "back", User: 2, Nodes: 1, Submit: ftBase + 290, After: sim.NoJob, LimitSec: 600, Cancel: ftBase + 290},
				{Name: "zero", User: 3, Nodes: 1, Submit: ftBase + 295, After: sim.NoJob, LimitSec: 600, Cancel: ftBase + 296},
				{Name: "ranzero", User: 3, Nodes: 1, Submit: ftBase + 296, After: sim.NoJob, LimitSec: 600, Cancel: ftBase + 296},
			},
			WantConv: sim.Conversion{Jobs: 9, Users: 4, Cancelled: 5, Running: 1, Pending: 1},
		},
		{
			Name: "SortsStably",
			Jobs: []trace.Job{
				ftJob("b", "x", 1, 50, 60, 70, 600, 1),
				ftJob("a", "y", 2, 10, 60, 70, 600, 1),
				ftJob("c", "x", 1, 50, 60, 70, 600, 1),
			},
			Want: []sim.Job{
				{Name: "a", User: 0, Nodes: 1, Submit: ftBase + 10, After: sim.NoJob, LimitSec: 600, RunSec: 10, TraceStart: ftBase + 60},
				{Name: "b", User: 1, Nodes: 1, Submit: ftBase + 50, After: sim.NoJob, LimitSec: 600, RunSec: 10, TraceStart: ftBase + 60},
				{Name: "c", User: 1, Nodes: 1, Submit: ftBase + 50, After: sim.NoJob, LimitSec: 600, RunSec: 10, TraceStart: ftBase + 60},
			},
			WantConv: sim.Conversion{Jobs: 3, Users: 2},
		},
		{
			Name: "Skips",
			Jobs: []trace.Job{
				ftJob("nosub", "x", 1, -1, 60, 70, 600, 1),
				ftJob("before", "x", 1, 99, 100, 200, 600, 1),
				ftJob("from", "x", 1, 100, 100, 200, 600, 1),
				ftJob("wide", "x", 1, 150, 160, 200, 600, 5),
				ftJob("fits", "y", 2, 160, 160, 200, 600, 4),
				ftJob("to", "x", 1, 200, 200, 300, 600, 1),
			},
			Opts: sim.FromTraceOptions{MaxNodes: 4, From: ftBase + 100, To: ftBase + 200},
			Want: []sim.Job{
				{Name: "from", User: 0, Nodes: 1, Submit: ftBase + 100, After: sim.NoJob, LimitSec: 600, RunSec: 100, TraceStart: ftBase + 100},
				{Name: "fits", User: 1, Nodes: 4, Submit: ftBase + 160, After: sim.NoJob, LimitSec: 600, RunSec: 40, TraceStart: ftBase + 160},
			},
			WantConv: sim.Conversion{Jobs: 2, Users: 2, Skipped: []sim.SkipCount{
				{Reason: sim.SkipNoSubmit, Count: 1},
				{Reason: sim.SkipOutsideWindow, Count: 2},
				{Reason: sim.SkipTooManyNodes, Count: 1},
			}},
		},
		{
			// K ("k") overran its 600 s limit by 20 s, as Slurm's kill grace
			// allows; J started 110 s after K's real end, 130 s after its
			// capped one. Only the real end makes J a successor.
			Name: "InferWithRealEnds",
			Jobs: []trace.Job{
				ftJob("k", "x", 1, 0, 10, 630, 600, 1),
				ftJob("j", "x", 1, 0, 740, 800, 600, 1),
			},
			Opts: sim.FromTraceOptions{Infer: &sim.InferOptions{}},
			Want: []sim.Job{
				{Name: "k", User: 0, Nodes: 1, Submit: ftBase, After: sim.NoJob, LimitSec: 600, RunSec: 600, TraceStart: ftBase + 10},
				{Name: "j", User: 0, Nodes: 1, Submit: ftBase, After: 0, LimitSec: 600, RunSec: 60, TraceStart: ftBase + 740},
			},
			WantConv: sim.Conversion{Jobs: 2, Users: 1, Inference: sim.Inference{Jobs: 1, Waited: 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			got, conv, err := sim.FromTrace(tt.Jobs, tt.Opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.Want, got); diff != "" {
				t.Errorf("jobs mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.WantConv, conv); diff != "" {
				t.Errorf("conversion mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFromTrace_CappedEndsMissPredecessor(t *testing.T) {
	jobs, _, err := sim.FromTrace([]trace.Job{
		ftJob("k", "x", 1, 0, 10, 630, 600, 1),
		ftJob("j", "x", 1, 0, 740, 800, 600, 1),
	}, sim.FromTraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if inf := sim.InferDependencies(jobs, sim.InferOptions{}); inf.Jobs != 0 || jobs[1].After != sim.NoJob {
		t.Errorf("InferDependencies on capped ends = %+v, After = %d; want no predecessor", inf, jobs[1].After)
	}
}

func TestFromTrace_Errors(t *testing.T) {
	tests := []struct {
		Name string
		Opts sim.FromTraceOptions
	}{
		{Name: "ErrNegativeLimit", Opts: sim.FromTraceOptions{DefaultLimitSec: -1}},
		{Name: "ErrNegativeMaxNodes", Opts: sim.FromTraceOptions{MaxNodes: -1}},
		{Name: "ErrEmptyWindow", Opts: sim.FromTraceOptions{From: 100, To: 100}},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			_, _, err := sim.FromTrace(nil, tt.Opts)
			if !errors.Is(err, sim.ErrFromTrace) {
				t.Errorf("err = %v, want ErrFromTrace", err)
			}
		})
	}
}
