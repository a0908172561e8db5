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
	// tested (at most Backfill.MaxJobTest each, when set: Slurm's count,
	// planned or not, see BackfillSkipped), and BackfillMaxTested the
	// most one pass tested.
	BackfillPasses    int64 `json:"backfill_passes"`
	BackfillTested    int64 `json:"backfill_tested"`
	BackfillMaxTested int   `json:"backfill_max_tested"`
	// BackfillStopped counts passes that stopped early because no
	// node was left free now: none of the jobs after could start.
	BackfillStopped int64 `json:"backfill_stopped"`
	// BackfillSkipped counts tested jobs a pass did not plan: too long to
	// start before the first time no node is free, so that neither they
	// nor their reservations could change what starts now.
	BackfillSkipped int64 `json:"backfill_skipped"`
	// UsersEvaluated counts the users whose best job a pass (main or
	// backfill) evaluated at its exact priority: those whose bound reached
	// the jobs the pass looked at (bound.go).
	UsersEvaluated int64 `json:"users_evaluated"`
	// MaxPending is the most jobs pending (eligible, queued) at once.
	MaxPending int `json:"max_pending"`
}

// Work returns the counts so far.
func (s *Sim) Work() Work { return s.work }
