package replay

import (
	"fmt"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/sim"
)

// monthNames formats Unix times as "2006-01" months in loc, one string
// per month (a replay compares millions of jobs).
type monthNames struct {
	loc   *time.Location
	names map[int]string
}

func (m *monthNames) of(unix int64) string {
	t := time.Unix(unix, 0).In(m.loc)
	k := t.Year()*12 + int(t.Month())
	name, ok := m.names[k]
	if !ok {
		if m.names == nil {
			m.names = map[int]string{}
		}
		name = t.Format("2006-01")
		m.names[k] = name
	}
	return name
}

// countWaits adds job j, simulated to start at start (-1: never), to the
// summary's zero-wait and over-an-hour counts.
func countWaits(sum *Summary, j sim.Job, start int64) {
	if start >= 0 {
		if w := start - j.Submit; w < 60 {
			sum.ZeroWaitSim++
		} else if w > 3600 {
			sum.WaitedOverHourSim++
		}
	}
	if j.TraceStart > 0 {
		if w := j.TraceStart - j.Submit; w < 60 {
			sum.ZeroWaitReal++
		} else if w > 3600 {
			sum.WaitedOverHourReal++
		}
	}
}

// notCompared says why no job of a replay had a real wait to compare:
// how many jobs ran from a start the trace did not record, never started
// in the trace (cancelled while pending, or still pending), or did not
// start in the simulation.
func notCompared(conv sim.Conversion, tab *sim.Table, starts []int64) string {
	if tab.Len() == 0 {
		return "no job had a real wait to compare: the replay has no jobs (see conversion.skipped)"
	}
	neverSim := 0
	for i := range tab.Len() {
		if j := tab.Job(i); j.TraceStart > 0 && starts[i] < 0 {
			neverSim++
		}
	}
	var why []string
	if conv.StartUnknown > 0 {
		why = append(why, fmt.Sprintf("%d ran from a start the trace did not record (waits unknown, an SWF wait of -1)", conv.StartUnknown))
	}
	if n := conv.Cancelled + conv.Pending; n > 0 {
		why = append(why, fmt.Sprintf("%d never started in the trace (%d cancelled while pending, %d still pending)", n, conv.Cancelled, conv.Pending))
	}
	if neverSim > 0 {
		why = append(why, fmt.Sprintf("%d did not start in the simulation", neverSim))
	}
	if len(why) == 0 {
		why = append(why, "none has a recorded start")
	}
	return fmt.Sprintf("no job had a real wait to compare, so there are no fidelity figures: of the %d jobs replayed, %s", tab.Len(), strings.Join(why, ", "))
}
