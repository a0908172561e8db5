package evaluate

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"github.com/mirage-hpc/mirage/internal/atomicdir"
	"github.com/mirage-hpc/mirage/internal/atomicfile"
	"io"
	"os"
	"slices"
	"strconv"
)

// CSVHeader is windows.csv's header. interruption_h, overlap_h,
// wasted_node_h, load_class and cost_h (CostH with the λ given to
// WriteCSV, metrics.json's lambda) are derived from r_sec, chain_nodes
// and reactive_r_sec, for readers; ReadCSV ignores them.
var CSVHeader = []string{
	"policy", "chain_nodes", "window", "window_start", "p_submit", "p_start", "p_end",
	"submit", "q_start", "r_sec", "reactive_r_sec", "interruption_h", "overlap_h", "wasted_node_h", "load_class",
	"cost_h",
}

// csvColumns is the number of columns ReadCSV reads; the rest are
// derived. A file written before cost_h (15 columns) still reads.
const csvColumns = 11

// WriteCSV writes rows as windows.csv, with costs at lambda.
func WriteCSV(w io.Writer, rows []Row, lambda float64) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	for _, r := range rows {
		rec := []string{r.Policy, strconv.Itoa(r.ChainNodes), strconv.Itoa(r.Window), i64(r.WindowStart),
			i64(r.PSubmit), i64(r.PStart), i64(r.PEnd), i64(r.Submit), i64(r.QStart), i64(r.RSec), i64(r.ReactiveRSec),
			f(InterruptionH(r.RSec)), f(OverlapH(r.RSec)), f(r.WastedNodeH()), LoadClass(r.ReactiveRSec),
			f(CostH(r.RSec, lambda))}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadCSV reads windows.csv.
func ReadCSV(r io.Reader) ([]Row, error) {
	cr := csv.NewReader(r) // every record as long as the header
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read windows csv: %w", err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("read windows csv: no header")
	}
	if h := recs[0]; len(h) < csvColumns || !slices.Equal(h[:csvColumns], CSVHeader[:csvColumns]) {
		return nil, fmt.Errorf("read windows csv: header %q: want %q first", h, CSVHeader[:csvColumns])
	}
	rows := make([]Row, 0, len(recs)-1)
	for i, rec := range recs[1:] {
		var row Row
		var ints [10]int64
		for k := range ints {
			v, err := strconv.ParseInt(rec[k+1], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("read windows csv: line %d, %s: %w", i+2, CSVHeader[k+1], err)
			}
			ints[k] = v
		}
		row.Policy = rec[0]
		row.ChainNodes, row.Window = int(ints[0]), int(ints[1])
		row.WindowStart, row.PSubmit, row.PStart, row.PEnd = ints[2], ints[3], ints[4], ints[5]
		row.Submit, row.QStart, row.RSec, row.ReactiveRSec = ints[6], ints[7], ints[8], ints[9]
		rows = append(rows, row)
	}
	return rows, nil
}

// DirFiles are the names (filepath.Match patterns) an evaluation directory
// may hold: metrics.json and windows.csv, and a report drawn from them
// (report.html and its figures), which a new evaluation replaces with the
// directory since it describes the old metrics. WriteDir refuses a
// directory holding anything else (atomicdir.ErrForeign).
var DirFiles = []string{"metrics.json", "windows.csv", ChainsCSV, LifetimesCSV, "report.html", "*.svg", "*.png"}

// WriteDir writes dir/metrics.json (with ModelDirs: the model policies'
// directories relative to dir, unless m has them already: ModelDirsIn)
// and dir/windows.csv (costs at m.Lambda) as
// a unit: both go into a temporary directory beside dir that replaces dir
// only when complete (atomicdir), so metrics.json and windows.csv always
// come from one run; a concurrent writer of dir fails
// (atomicfile.ErrLocked).
func WriteDir(dir string, m Metrics, rows []Row) error { return writeDir(dir, m, rows, nil) }

// writeDir is WriteDir, with chains.csv (WriteChainsCSV) when chains is
// not nil.
func writeDir(dir string, m Metrics, rows []Row, chains *ChainsSummary) error {
	if m.ModelDirs == nil {
		m.ModelDirs = modelDirs(dir, m)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	d, err := atomicdir.Create(dir, DirFiles...)
	if err != nil {
		return err
	}
	defer d.Abort()
	if err := os.WriteFile(d.File("metrics.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	if err := atomicfile.Write(d.File("windows.csv"), func(w io.Writer) error { return WriteCSV(w, rows, m.Lambda) }); err != nil {
		return err
	}
	if chains != nil {
		if err := atomicfile.Write(d.File(ChainsCSV), func(w io.Writer) error { return WriteChainsCSV(w, chains.Rows) }); err != nil {
			return err
		}
	}
	if m.Lifetime != nil {
		if err := atomicfile.Write(d.File(LifetimesCSV), func(w io.Writer) error { return WriteLifetimesCSV(w, m.Lifetime.Rows) }); err != nil {
			return err
		}
	}
	return d.Commit()
}
