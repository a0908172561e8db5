package synth

import "time"

// Stats counts what a writer generated. Times are UTC.
type Stats struct {
	// Jobs counts jobs (allocation rows); an array task is a job.
	Jobs int64
	// Rows counts data rows written: Jobs plus, in sacct output with
	// Options.Steps, the step rows.
	Rows int64
	// ArrayTasks counts jobs that are array tasks (JobID N_T).
	ArrayTasks int64
	// Started counts jobs that ran; the outcome counts below sum to Jobs.
	Started          int64
	Completed        int64
	Failed           int64
	OutOfMemory      int64
	NodeFail         int64
	Timeouts         int64 // ran into their time limit (TIMEOUT)
	CancelledRunning int64 // cancelled after they started
	CancelledPending int64 // cancelled before they started (Start None)
	// FirstSubmit and LastSubmit are the Submit times of the first and
	// last job; LastEnd is the latest End. All zero when Jobs is 0.
	FirstSubmit, LastSubmit, LastEnd time.Time
	// BusyNodeSec is the node-seconds of the started jobs (NNodes times
	// End - Start).
	BusyNodeSec int64
	// CapacityNodeSec is Options.Nodes times (the latest End of a started
	// job - FirstSubmit), in node-seconds.
	CapacityNodeSec int64
	// Utilisation is BusyNodeSec / CapacityNodeSec, the achieved share of
	// busy node-seconds; 0 when CapacityNodeSec is 0.
	Utilisation float64
	// WaitSec is the total Start - Submit of the started jobs, in seconds;
	// MeanWaitSec is WaitSec / Started.
	WaitSec     int64
	MeanWaitSec float64

	firstSubmit, lastSubmit, lastEnd, busyEnd int64 // Unix seconds
}

// finish derives the time and ratio fields.
func (s *Stats) finish(nodes int) {
	if s.Jobs == 0 {
		return
	}
	s.FirstSubmit = time.Unix(s.firstSubmit, 0).UTC()
	s.LastSubmit = time.Unix(s.lastSubmit, 0).UTC()
	s.LastEnd = time.Unix(s.lastEnd, 0).UTC()
	s.CapacityNodeSec = int64(nodes) * max(0, s.busyEnd-s.firstSubmit)
	if s.CapacityNodeSec > 0 {
		s.Utilisation = float64(s.BusyNodeSec) / float64(s.CapacityNodeSec)
	}
	if s.Started > 0 {
		s.MeanWaitSec = float64(s.WaitSec) / float64(s.Started)
	}
}
