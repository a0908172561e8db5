package evaluate

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
)

// LifetimesCSV is the lifetimes' file in an evaluation directory.
const LifetimesCSV = "lifetimes.csv"

// LifetimesHeader is lifetimes.csv's header: one row per policy, chain
// size and window; times Unix seconds, durations seconds; link_starts
// are the links' starts, ';'-separated.
var LifetimesHeader = []string{"policy", "chain_nodes", "window", "window_start", "from", "to", "links",
	"interruptions", "up_sec", "downtime_sec", "node_sec", "beyond_trace_sec", "availability", "link_starts"}

// WriteLifetimesCSV writes rows as lifetimes.csv.
func WriteLifetimesCSV(w io.Writer, rows []LifetimeRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(LifetimesHeader); err != nil {
		return err
	}
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, r := range rows {
		starts := make([]string, len(r.Links))
		for i, l := range r.Links {
			starts[i] = i64(l.Start)
		}
		avail := 0.0
		if r.To > r.From {
			avail = float64(r.UpSec) / float64(r.To-r.From)
		}
		rec := []string{r.Policy, strconv.Itoa(r.ChainNodes), strconv.Itoa(r.Window), i64(r.WindowStart), i64(r.From), i64(r.To),
			strconv.Itoa(len(r.Links)), strconv.Itoa(r.Interruptions), i64(r.UpSec), i64(r.DowntimeSec()), i64(r.NodeSec),
			i64(r.BeyondTraceSec), strconv.FormatFloat(avail, 'f', 6, 64), strings.Join(starts, ";")}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
