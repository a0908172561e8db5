package sim_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/sim"
)

// TestProfileOverrides_Apply: KeepProfile keeps every setting; each
// override changes its setting only; a bad one is an error wrapping
// sim.ErrOverride that names its flag, with its message alone.
func TestProfileOverrides_Apply(t *testing.T) {
	ls6, err := sim.LoadProfile("ls6")
	if err != nil {
		t.Fatal(err)
	}
	if ls6.InferDependencies == nil || ls6.InferCapacity == nil {
		t.Fatal("ls6 infers dependencies and capacity")
	}
	yes, no := true, false
	for _, tt := range []struct {
		Name string
		Set  func(*sim.ProfileOverrides)
		Want func(*sim.Profile)
	}{
		{"Keep", func(*sim.ProfileOverrides) {}, func(*sim.Profile) {}},
		{"Scheduler", func(o *sim.ProfileOverrides) { o.PartitionNodes, o.Backfill, o.Cancelled = 12, "easy", "run-zero" },
			func(p *sim.Profile) {
				p.Config.Nodes, p.Config.Backfill.Flavour, p.Config.Cancelled = 12, sim.BackfillEASY, sim.CancelRunZero
			}},
		{"Limits", func(o *sim.ProfileOverrides) { o.MaxJobsPerUser, o.BfMaxJobTest = 3, 0 },
			func(p *sim.Profile) { p.Config.Limits.MaxJobsPerUser, p.Config.Backfill.MaxJobTest = 3, 0 }},
		{"InferenceOff", func(o *sim.ProfileOverrides) { o.InferDeps, o.InferCapacity = &no, &no },
			func(p *sim.Profile) { p.InferDependencies, p.InferCapacity = nil, nil }},
		{"InferenceOn", func(o *sim.ProfileOverrides) { o.InferDeps, o.InferCapacity = &yes, &yes }, func(*sim.Profile) {}},
		{"Capacity", func(o *sim.ProfileOverrides) {
			o.CapacityBucket, o.CapacitySmooth, o.CapacityHeadroom, o.CapacityMinPending, o.CapacityLookahead = time.Hour, 2, 1, 10*time.Minute, true
		}, func(p *sim.Profile) {
			c := *p.InferCapacity
			c.BucketSec, c.Smooth, c.Headroom, c.MinPendingSec, c.Causal = 3600, 2, 1, 600, false
			p.InferCapacity = &c
		}},
	} {
		t.Run(tt.Name, func(t *testing.T) {
			o := sim.KeepProfile()
			tt.Set(&o)
			got, err := o.Apply(ls6)
			if err != nil {
				t.Fatal(err)
			}
			want := ls6
			tt.Want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got\n%+v\nwant\n%+v", got, want)
			}
		})
	}
	t.Run("InferenceOnDefaults", func(t *testing.T) {
		def, err := sim.LoadProfile("default")
		if err != nil {
			t.Fatal(err)
		}
		o := sim.KeepProfile()
		o.InferDeps, o.InferCapacity = &yes, &yes
		got, err := o.Apply(def)
		want := sim.CapacityOptions{BucketSec: sim.DefaultCapacityBucketSec, Causal: true}
		if err != nil || got.InferDependencies == nil || *got.InferDependencies != (sim.InferOptions{}) || *got.InferCapacity != want {
			t.Errorf("%v: %+v, %+v", err, got.InferDependencies, got.InferCapacity)
		}
	})
	for _, tt := range []struct {
		Name, Want string
		Set        func(*sim.ProfileOverrides)
	}{
		{"MaxJobsPerUser", "--max-jobs-per-user -2: want", func(o *sim.ProfileOverrides) { o.MaxJobsPerUser = -2 }},
		{"BfMaxJobUser", "--bf-max-job-user -3: want", func(o *sim.ProfileOverrides) { o.BfMaxJobUser = -3 }},
		{"Backfill", "fifo", func(o *sim.ProfileOverrides) { o.Backfill = "fifo" }},
		{"Cancelled", "drop", func(o *sim.ProfileOverrides) { o.Cancelled = "drop" }},
		{"CapacityBucket", "--capacity-bucket 1ms,", func(o *sim.ProfileOverrides) { o.CapacityBucket = time.Millisecond }},
		{"CapacityMinPending", "--capacity-min-pending -2s:", func(o *sim.ProfileOverrides) { o.CapacityMinPending = -2 * time.Second }},
	} {
		t.Run("Err"+tt.Name, func(t *testing.T) {
			o := sim.KeepProfile()
			tt.Set(&o)
			_, err := o.Apply(ls6)
			if !errors.Is(err, sim.ErrOverride) || !strings.Contains(err.Error(), tt.Want) || strings.Contains(err.Error(), sim.ErrOverride.Error()) {
				t.Errorf("got %v, want an error wrapping sim.ErrOverride saying %q alone", err, tt.Want)
			}
		})
	}
	t.Run("CapacityCheckedOnlyWhenOn", func(t *testing.T) {
		o := sim.KeepProfile()
		o.InferCapacity, o.CapacityBucket = &no, time.Millisecond
		if _, err := o.Apply(ls6); err != nil {
			t.Errorf("capacity inference off: %v", err)
		}
	})
}

// TestProfile_FromTraceOptions: the conversion infers dependencies with
// a copy of the profile's settings, the partition size added (Nodes, for
// RequireIdle), and only when the profile does.
func TestProfile_FromTraceOptions(t *testing.T) {
	for _, name := range []string{"default", "ls6"} {
		p, err := sim.LoadProfile(name)
		if err != nil {
			t.Fatal(err)
		}
		o := p.FromTraceOptions(7)
		if o.MaxNodes != 7 || o.From != 0 || o.To != 0 || (o.Infer == nil) != (p.InferDependencies == nil) {
			t.Errorf("%s: %+v", name, o)
		}
		want := p.InferDependencies
		if want != nil {
			w := *want
			w.Nodes = 7
			want = &w
		}
		if o.Infer != nil && (o.Infer == p.InferDependencies || *o.Infer != *want) {
			t.Errorf("%s: Infer %p %+v, want a copy of %p %+v", name, o.Infer, *o.Infer, p.InferDependencies, *p.InferDependencies)
		}
	}
}
