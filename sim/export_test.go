package sim

// Test hooks.

// ForceStepPlan makes s (and its clones) plan backfill with profile, the
// step list, instead of the slot grid.
func ForceStepPlan(s *Sim) { s.forceSteps = true }

// ForceReference makes s (and its clones) run every pass the plain way
// (Sim.reference): the schedule must not change.
func ForceReference(s *Sim) { s.reference = true }

// PassOrder returns the pending jobs (ghosts excluded) in the order a
// scheduling pass sees them (byPriority, the incremental index).
func PassOrder(s *Sim) []JobID {
	var out []JobID
	it := s.byPriority()
	for id, _, ok := it.next(); ok; id, _, ok = it.next() {
		out = append(out, id)
	}
	return out
}

// SortedOrder returns the pending jobs (ghosts excluded) by a full sort
// (order, which Snapshot uses).
func SortedOrder(s *Sim) []JobID {
	var out []JobID
	for _, id := range s.order() {
		if !s.ghost(id) {
			out = append(out, id)
		}
	}
	return out
}

// NoSkipRun makes s's backfill passes skip jobs one by one.
func NoSkipRun(s *Sim) { s.noSkipRun = true }

// BulkSkipped returns how many jobs s's backfill passes skipped in bulk.
func BulkSkipped(s *Sim) int64 { return s.bulkSkipped }
