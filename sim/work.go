package sim

// Work counts what the scheduling passes of a simulation did, to bound
// and benchmark their cost. Clones start from their original's counts.
type Work struct {
	// MainPasses counts main scheduling passes that looked at the queue,
	// MainTested the jobs they looked at and MainStarted the jobs they
	// started: each pass stops at the first job that does not fit, so
	// MainTested ≤ MainPasses + MainStarted + the jobs skipped for a
	// per-user limit.
	MainPasses  int64 `json:"main_passes"`
	MainTested  int64 `json:"main_tested"`
	MainStarted int64 `json:"main_started"`
	// BackfillPasses counts backfill passes, BackfillTested the jobs they
	// planned (at most Backfill.MaxJobTest each, when set), and
	// BackfillMaxTested the most one pass planned.
	BackfillPasses    int64 `json:"backfill_passes"`
	BackfillTested    int64 `json:"backfill_tested"`
	BackfillMaxTested int   `json:"backfill_max_tested"`
	// MaxPending is the most jobs pending (eligible, queued) at once.
	MaxPending int `json:"max_pending"`
}

// Work returns the counts so far.
func (s *Sim) Work() Work { return s.work }
