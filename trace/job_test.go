package trace_test

import (
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/trace"
)

// TestJob_StartUnknown checks the derived quantities of a job that ran
// from a start the input did not record, against a job that never ran.
func TestJob_StartUnknown(t *testing.T) {
	submit := time.Date(2006, 1, 1, 0, 0, 0, 0, time.UTC)
	job := func(startUnknown bool, elapsed, limit int64, st trace.State) trace.Job {
		j := trace.NewJob()
		j.JobID, j.Submit, j.State, j.TimelimitSec = "1", submit, st, limit
		j.StartUnknown, j.ElapsedSec = startUnknown, elapsed
		return j
	}
	tests := []struct {
		Name     string
		Job      trace.Job
		Started  bool
		Never    bool
		Run      time.Duration
		RunOK    bool
		HitLimit bool
	}{
		{"Completed", job(true, 600, 3600, trace.StateCompleted), true, false, 10 * time.Minute, true, false},
		{"AtLimit", job(true, 3600, 3600, trace.StateCompleted), true, false, time.Hour, true, true},
		{"ZeroRun", job(true, 0, 3600, trace.StateFailed), true, false, 0, true, false},
		{"CancelledWhileRunning", job(true, 90, 60, trace.StateCancelled), true, false, 90 * time.Second, true, true},
		{"NoLimit", job(true, 90, trace.NoLimit, trace.StateCompleted), true, false, 90 * time.Second, true, false},
		{"NeverRan", job(false, trace.Unknown, 3600, trace.StateCancelled), false, true, 0, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			j := tt.Job
			if _, ok := j.Wait(); ok {
				t.Error("Wait is known")
			}
			run, ok := j.RunTime()
			if j.Started() != tt.Started || j.NeverStarted() != tt.Never || run != tt.Run || ok != tt.RunOK || j.HitLimit() != tt.HitLimit {
				t.Errorf("Started %v NeverStarted %v RunTime %v, %v HitLimit %v\nwant    %v              %v         %v, %v         %v",
					j.Started(), j.NeverStarted(), run, ok, j.HitLimit(), tt.Started, tt.Never, tt.Run, tt.RunOK, tt.HitLimit)
			}
		})
	}
}
