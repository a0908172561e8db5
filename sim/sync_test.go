package sim_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/sim"
)

// day is 1997-01-06 00:00 UTC, a Monday.
const day = 852508800

// TestSyncPoints: no job runs across a sync point. A job whose limit
// would straddle one waits for it, both in the main pass (FCFS: it
// blocks the jobs behind it) and in backfill, which starts only the jobs
// that end by the point; a job whose limit is longer than every gap is
// exempt; points outside From/To or on other weekdays do not exist.
func TestSyncPoints(t *testing.T) {
	const h = 3600
	sync := &sim.SyncPoints{TimesSec: []int64{7 * h, 16 * h}, Weekdays: []int{1, 2, 3, 4, 5}}
	at := func(hours float64) int64 { return day + int64(hours*h) }
	job := func(name string, user int32, nodes int32, submit, limit int64) sim.Job {
		return sim.Job{Name: name, User: user, Nodes: nodes, Submit: submit, LimitSec: limit, RunSec: limit / 2, After: sim.NoJob}
	}
	for _, c := range []struct {
		name    string
		flavour sim.Flavour
		sync    *sim.SyncPoints
		jobs    []sim.Job
		want    []int64
	}{
		{"NoPoints", sim.BackfillNone, nil,
			[]sim.Job{job("a", 0, 2, at(14), 4*h)}, []int64{at(14)}},
		{"WaitsForPoint", sim.BackfillNone, sync,
			[]sim.Job{job("a", 0, 2, at(14), 4*h), job("b", 1, 1, at(14)+10, h)}, // b queues behind a (FCFS)
			[]int64{at(16), at(16)}},
		{"EndsAtPoint", sim.BackfillNone, sync,
			[]sim.Job{job("a", 0, 2, at(12), 4*h)}, []int64{at(12)}},
		{"Backfill", sim.BackfillEASY, sync,
			[]sim.Job{job("a", 0, 2, at(14), 4*h), job("b", 1, 1, at(14)+10, h), job("c", 2, 1, at(14)+20, 3*h)},
			[]int64{at(16), at(14.5), at(16)}}, // b backfills by 16:00 at the next pass; c would cross
		{"Exempt", sim.BackfillNone, sync,
			[]sim.Job{job("a", 0, 2, at(14), 70*h)}, []int64{at(14)}}, // longer than Friday 16:00 to Monday 07:00
		{"Weekend", sim.BackfillNone, sync,
			[]sim.Job{job("a", 0, 2, at(24*5+14), 4*h)}, []int64{at(24*5 + 14)}}, // Saturday
		{"AfterTo", sim.BackfillNone, &sim.SyncPoints{TimesSec: sync.TimesSec, To: at(15)},
			[]sim.Job{job("a", 0, 2, at(14), 4*h)}, []int64{at(14)}},
		{"Zone", sim.BackfillNone, &sim.SyncPoints{Zone: "Europe/Stockholm", TimesSec: []int64{16 * h}},
			[]sim.Job{job("a", 0, 2, at(14), 2*h)}, []int64{at(15)}}, // 16:00 CET is 15:00 UTC
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := sim.DefaultConfig()
			cfg.Nodes, cfg.Backfill.Flavour, cfg.SyncPoints = 3, c.flavour, c.sync
			cfg.Backfill.IntervalSec, cfg.Backfill.ResolutionSec = 1800, 60
			cfg.Priority = sim.Priority{AgeWeight: 1000, MaxAgeSec: 86400, AgeUncapped: true}
			starts, _, err := sim.Replay(context.Background(), cfg, c.jobs)
			if err != nil {
				t.Fatal(err)
			}
			for i := range c.jobs {
				if starts[i] != c.want[i] {
					t.Errorf("job %s starts at %+.2f h, want %+.2f h", c.jobs[i].Name, float64(starts[i]-day)/h, float64(c.want[i]-day)/h)
				}
			}
		})
	}
}

// TestSyncPoints_Validate: bad points are refused by Config.Validate and,
// naming the field, by Profile.Validate.
func TestSyncPoints_Validate(t *testing.T) {
	for _, c := range []struct {
		sp    sim.SyncPoints
		field string
	}{
		{sim.SyncPoints{}, "times_sec"},
		{sim.SyncPoints{TimesSec: []int64{86400}}, "times_sec"},
		{sim.SyncPoints{TimesSec: []int64{0}, Weekdays: []int{7}}, "weekdays"},
		{sim.SyncPoints{TimesSec: []int64{0}, Zone: "Mars/Olympus"}, "zone"},
		{sim.SyncPoints{TimesSec: []int64{0}, From: 10, To: 5}, "to"},
	} {
		cfg := sim.DefaultConfig()
		cfg.SyncPoints = &c.sp
		if err := cfg.Validate(); err == nil {
			t.Errorf("%+v: Config.Validate accepts it", c.sp)
		}
		p := sim.Profile{Name: "p", Config: cfg}
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "config.sync_points."+c.field) {
			t.Errorf("%+v: Profile.Validate = %v, want config.sync_points.%s", c.sp, err, c.field)
		}
	}
	ok := sim.SyncPoints{TimesSec: []int64{7 * 3600, 16 * 3600}, Weekdays: []int{1, 2, 3, 4, 5}}
	if g := ok.MaxGapSec(); g != 63*3600 {
		t.Errorf("MaxGapSec = %d, want 63 h (Friday 16:00 to Monday 07:00)", g)
	}
}
