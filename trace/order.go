package trace

import "strings"

// Less reports whether a sorts before b in a trace file: by Submit, then
// Cluster, JobID (shorter first, so numeric IDs sort numerically) and
// Attempt. Jobs with an unknown Submit sort first.
func Less(a, b *Job) bool { return compareJobs(a, b) < 0 }

func compareJobs(a, b *Job) int {
	if c := a.Submit.Compare(b.Submit); c != 0 {
		return c
	}
	if c := strings.Compare(a.Cluster, b.Cluster); c != 0 {
		return c
	}
	if len(a.JobID) != len(b.JobID) {
		if len(a.JobID) < len(b.JobID) {
			return -1
		}
		return 1
	}
	if c := strings.Compare(a.JobID, b.JobID); c != 0 {
		return c
	}
	switch {
	case a.Attempt < b.Attempt:
		return -1
	case a.Attempt > b.Attempt:
		return 1
	}
	return 0
}

// SameJob reports whether a and b are the same attempt of the same job:
// equal Cluster, JobID, Attempt and Submit. Writer keeps only the last of
// such rows (see WriterOptions.OnDuplicate).
func SameJob(a, b *Job) bool { return compareJobs(a, b) == 0 }
