package evaluate

import (
	"encoding/csv"
	"io"
	"strconv"
)

// ChainsCSV is the file of the real chains' rows in an evaluation
// directory (RunOptions.RealChains).
const ChainsCSV = "chains.csv"

// ChainsCSVHeader is chains.csv's header: one row per replayed link and
// policy (ChainRow; times Unix seconds, r in seconds). real_interruption_h,
// real_overlap_h, interruption_h and overlap_h are derived from
// real_r_sec and r_sec.
var ChainsCSVHeader = []string{
	"chain", "link", "p_job", "q_job", "p_nodes", "q_nodes", "real_p_end", "real_q_start", "real_r_sec",
	"policy", "p_submit", "p_start", "p_end", "submit", "q_start", "r_sec", "reactive_r_sec",
	"real_interruption_h", "real_overlap_h", "interruption_h", "overlap_h",
}

// WriteChainsCSV writes rows as chains.csv.
func WriteChainsCSV(w io.Writer, rows []ChainRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(ChainsCSVHeader); err != nil {
		return err
	}
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	for _, r := range rows {
		rec := []string{strconv.Itoa(r.Chain), strconv.Itoa(r.Link), r.PJob, r.QJob,
			i64(int64(r.PNodes)), i64(int64(r.QNodes)), i64(r.RealPEnd), i64(r.RealQStart), i64(r.RealRSec),
			r.Policy, i64(r.PSubmit), i64(r.PStart), i64(r.PEnd), i64(r.Submit), i64(r.QStart), i64(r.RSec), i64(r.ReactiveRSec),
			f(InterruptionH(r.RealRSec)), f(OverlapH(r.RealRSec)), f(InterruptionH(r.RSec)), f(OverlapH(r.RSec))}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
