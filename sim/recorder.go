package sim

// Recorder receives what happens to jobs, so callers can collect waits and
// run times without the simulator knowing them. Calls come in event order;
// at is Unix seconds. A nil Recorder records nothing.
type Recorder interface {
	// Started is called when a job starts.
	Started(id JobID, at int64)
	// Finished is called when a started job ends.
	Finished(id JobID, at int64)
	// Left is called when a job leaves the queue without running
	// (cancelled while pending).
	Left(id JobID, at int64)
}

type nopRecorder struct{}

func (nopRecorder) Started(JobID, int64)  {}
func (nopRecorder) Finished(JobID, int64) {}
func (nopRecorder) Left(JobID, int64)     {}
