package evaluate

import (
	"cmp"
	"slices"

	"github.com/mirage-hpc/mirage/sim"
)

// account fills row's links and totals from f, a simulation of the
// lifetime run to row.To.
func account(row *LifetimeRow, f *sim.Sim, links []lifeLink, nodes int64) {
	type span struct{ start, end int64 }
	var spans []span
	for _, l := range links {
		st, ok := f.Started(l.id)
		if !ok || st >= row.To {
			continue
		}
		end, ended := f.Ended(l.id)
		if !ended {
			end = st + f.Job(l.id).RunSec // still running at To: to its run time or granted limit
			if lim, ok := f.Limit(l.id); ok {
				end = min(end, st+lim)
			}
		}
		row.Links = append(row.Links, LifetimeLink{Submit: l.submit, Start: st, End: end})
		spans = append(spans, span{st, end})
	}
	slices.SortStableFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	cover := row.From // the service is up until cover
	for i, sp := range spans {
		a, b := max(sp.start, row.From), min(sp.end, row.To)
		if b > a {
			row.NodeSec += nodes * (b - a)
		}
		if i > 0 && sp.start > cover {
			row.Interruptions++
		}
		if b > max(a, cover) {
			row.UpSec += b - max(a, cover)
		}
		cover = max(cover, b)
	}
}
