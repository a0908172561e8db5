package analyze

import "github.com/mirage-hpc/mirage/trace"

// ChainRows returns the service chains of tjobs (in Submit order, as
// a trace file holds them) found by the chain detector with o's
// thresholds (see README.md, "Service chains"): each chain as the indices
// into tjobs of its jobs, head first, the chains in the order the
// detector found them (their second job's submission). The same chains
// Run's tables and ReplayChains count.
func ChainRows(tjobs []trace.Job, o ChainOptions) [][]int {
	det := newDetector(o)
	for i := range tjobs {
		det.add(&tjobs[i], int64(i), userKey(&tjobs[i]))
	}
	out := make([][]int, len(det.chains))
	for ci, c := range det.chains {
		rows := make([]int, len(c.jobs))
		for k, j := range c.jobs {
			rows[k] = int(j.row)
		}
		out[ci] = rows
	}
	return out
}
