package sim_test

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/ingest/ls6test"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
	"pgregory.net/rapid"
)

// TestReadTrace_EqualsFromTrace: streaming the LS6 trace gives the jobs
// and conversion report of FromTrace over the whole trace in memory, with
// and without dependency inference and a window, and visits every job.
func TestReadTrace_EqualsFromTrace(t *testing.T) {
	path := ls6test.Parquet(t, t.TempDir())
	all, err := trace.ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	mid := all[len(all)/2].Submit.Unix()
	for _, opts := range []sim.FromTraceOptions{
		{MaxNodes: 88},
		{MaxNodes: 16, Infer: &sim.InferOptions{}},
		{From: mid, To: mid + 30*86400},
	} {
		want, wantConv, err := sim.FromTrace(all, opts)
		if err != nil {
			t.Fatal(err)
		}
		visited := 0
		got, conv, err := sim.ReadTrace(context.Background(), path, opts, func(*trace.Job) { visited++ })
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) || !reflect.DeepEqual(conv, wantConv) {
			t.Errorf("%+v: ReadTrace differs from FromTrace (%d vs %d jobs; %+v vs %+v)", opts, len(got), len(want), conv, wantConv)
		}
		if visited != len(all) {
			t.Errorf("visited %d jobs of %d", visited, len(all))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := sim.ReadTrace(ctx, path, sim.FromTraceOptions{}, nil); err == nil {
		t.Error("ReadTrace with a cancelled context: no error")
	}
}

// TestProperty_FromTraceOrder: on traces in any order, FromTrace keeps the
// jobs with a Submit, sorted by it (stable: ties keep trace order), and
// numbers users by first appearance in that order, as a plain stable sort
// of the trace followed by conversion does.
func TestProperty_FromTraceOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 60).Draw(t, "jobs")
		base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		jobs := make([]trace.Job, n)
		for i := range jobs {
			j := &jobs[i]
			j.JobID = string(rune('a'+i%26)) + string(rune('a'+i/26))
			if rapid.IntRange(0, 9).Draw(t, "nosubmit") > 0 {
				j.Submit = base.Add(time.Duration(rapid.IntRange(0, 20).Draw(t, "submit")) * time.Second)
			}
			j.User = []string{"", "ann", "bob", "cy"}[rapid.IntRange(0, 3).Draw(t, "user")]
			j.UID = trace.NoID
			j.NNodes = int32(rapid.IntRange(1, 4).Draw(t, "nodes"))
			j.TimelimitSec = 3600
			j.State = trace.StatePending
		}
		got, _, err := sim.FromTrace(jobs, sim.FromTraceOptions{MaxNodes: 3})
		if err != nil {
			t.Fatal(err)
		}
		order := make([]int, 0, n)
		for i := range jobs {
			if !jobs[i].Submit.IsZero() && jobs[i].NNodes <= 3 {
				order = append(order, i)
			}
		}
		slices.SortStableFunc(order, func(a, b int) int { return jobs[a].Submit.Compare(jobs[b].Submit) })
		users := map[string]int32{}
		if len(got) != len(order) {
			t.Fatalf("%d jobs converted, want %d", len(got), len(order))
		}
		for k, i := range order {
			wantUser := int32(-1)
			if u := jobs[i].User; u != "" {
				if _, ok := users[u]; !ok {
					users[u] = int32(len(users))
				}
				wantUser = users[u]
			}
			if got[k].Name != jobs[i].JobID || got[k].User != wantUser {
				t.Fatalf("job %d: %s user %d, want %s user %d", k, got[k].Name, got[k].User, jobs[i].JobID, wantUser)
			}
		}
	})
}
