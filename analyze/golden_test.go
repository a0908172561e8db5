package analyze_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/analyze"
	"github.com/mirage-hpc/mirage/internal/golden"
	"github.com/mirage-hpc/mirage/trace"
)

// t0 is the hand-made trace's origin, 2024-01-01 00:00 UTC (a Monday).
var t0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// at returns t0 plus minutes.
func at(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }

// handJob is one row of the hand-made trace; times in minutes from t0,
// start < 0 for a job that never started (then start = end = cancel).
type handJob struct {
	id, user, name, part, qos string
	nodes                     int32
	limitMin                  int
	submit, start, end        int
	state                     trace.State
}

// handTrace is the golden trace (4 nodes):
//
//	alice svc   1-3: a chain of three 2 h jobs, each to its limit, each
//	                 successor starting 10 min after its predecessor's end
//	                 (the second submitted before the end, the third after):
//	                 two interrupted links, 20 min of interruption;
//	bob train   4-5: the successor starts 10 min before the predecessor
//	                 (TIMEOUT) ends: one overlapping link;
//	carol job   6-7: the first job ran 1 h of its 4 h limit: not a chain;
//	dave x      8-9: the second was submitted 4 h after the first ended
//	                 (more than the 1 h allowed): not a chain; it waited
//	                 30 min and ran 10: a wait longer than the run;
//	eve        10:   cancelled while pending (10 to 40 min).
var handTrace = []handJob{
	{"1", "alice", "svc", "gpu", "long", 1, 120, 0, 0, 120, trace.StateTimeout},
	{"2", "alice", "svc", "gpu", "long", 1, 120, 110, 130, 250, trace.StateTimeout},
	{"3", "alice", "svc", "gpu", "long", 1, 120, 255, 260, 380, trace.StateCompleted},
	{"4", "bob", "train", "gpu", "normal", 1, 60, 0, 30, 90, trace.StateTimeout},
	{"5", "bob", "train", "gpu", "normal", 1, 60, 60, 80, 140, trace.StateCompleted},
	{"6", "carol", "job", "cpu", "normal", 1, 240, 0, 0, 60, trace.StateCompleted},
	{"7", "carol", "job", "cpu", "normal", 1, 240, 60, 60, 120, trace.StateCompleted},
	{"8", "dave", "x", "cpu", "normal", 1, 60, 0, 0, 60, trace.StateTimeout},
	{"9", "dave", "x", "cpu", "normal", 1, 60, 300, 330, 340, trace.StateCompleted},
	{"10", "eve", "y", "cpu", "normal", 2, 60, 10, -1, 40, trace.StateCancelled},
}

// writeHandTrace writes handTrace as a trace file and returns its path.
func writeHandTrace(tb testing.TB) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "hand.parquet")
	w, err := trace.Create(path, trace.WriterOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	for i, h := range handTrace {
		j := trace.NewJob()
		j.JobID, j.JobIDRaw, j.Cluster = h.id, int64(i+1), "hand"
		j.User, j.Account, j.JobName, j.Partition, j.QOS = h.user, h.user+"-acct", h.name, h.part, h.qos
		j.NNodes, j.NCPUs, j.TimelimitSec, j.State = h.nodes, h.nodes*8, int64(h.limitMin)*60, h.state
		j.Submit, j.Eligible, j.End = at(h.submit), at(h.submit), at(h.end)
		j.Start = at(h.start)
		if h.start < 0 {
			j.Start = at(h.end)
		}
		j.SourceFile, j.SourceLine = "hand", int64(i+1)
		if err := w.Write(&j); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

func handOptions() analyze.Options {
	o := analyze.DefaultOptions()
	o.Nodes = 4
	o.Replay.OracleStepSec = 600
	return o
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestAnalyze_HandTrace(t *testing.T) {
	path := writeHandTrace(t)
	dir := t.TempDir()
	o := handOptions()
	o.Figures = false
	a, err := analyze.Run(context.Background(), path, dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("Waits", func(t *testing.T) {
		// Waits of the 9 jobs that ran, seconds: 0 0 0 0 300 1200 1200 1800 1800.
		w := a.Waits[0]
		if w.GroupBy != "all" || w.Jobs != 9 || w.P50Sec != 300 || w.P90Sec != 1800 || w.P99Sec != 1800 ||
			!near(w.MeanSec, 700) || !near(w.ShareLongerThanRun, 1.0/9) {
			t.Errorf("all waits:\ngot  %+v\nwant 9 jobs, p50 300, p90 1800, p99 1800, mean 700, 1/9 longer than run", w)
		}
	})
	t.Run("Utilisation", func(t *testing.T) {
		// Hour 0: alice 1, carol 6, dave 8 busy all hour; bob 4 from 30 min.
		u := a.Util[0]
		if u.HourMs != t0.UnixMilli() || !near(u.BusyNodesMean, 3.5) || u.BusyNodesMax != 4 || u.CapacityNodes != 4 || !near(u.Utilisation, 0.875) {
			t.Errorf("hour 0: got %+v, want busy mean 3.5, max 4, capacity 4, utilisation 0.875", u)
		}
		// Pending: bob 4 for 0-30 min, eve (2 nodes) 10-40 min.
		q := a.Queue[0]
		if !near(q.PendingJobsMean, 1) || !near(q.PendingNodesMean, 1.5) {
			t.Errorf("hour 0 queue: got %+v, want 1 job and 1.5 nodes pending on average", q)
		}
	})
	t.Run("Chains", func(t *testing.T) {
		s := a.ChainSummary
		if s.Chains != 2 || s.Links != 3 || s.Interrupted != 2 || s.Overlapping != 1 || s.Before != 2 || s.After != 1 ||
			!near(s.InterruptH, 1200.0/3600) || !near(s.OverlapH, 600.0/3600) {
			t.Errorf("chain summary: got %+v\nwant 2 chains, 3 links, 2 interrupted, 1 overlapping, 2 before, 1 after, 1/3 h, 1/6 h", s)
		}
		want := []struct {
			pred, succ, prov string
			r                int64
		}{{"1", "2", "before_end", 600}, {"2", "3", "after_end", 600}, {"4", "5", "before_end", -600}}
		_, links := a.ChainRows()
		if len(links) != len(want) {
			t.Fatalf("got %d links, want %d", len(links), len(want))
		}
		for i, w := range want {
			l := links[i]
			if l.PredJobID != w.pred || l.SuccJobID != w.succ || l.Provisioned != w.prov || l.RSec != w.r || !l.Replayed {
				t.Errorf("link %d: got %+v, want %s->%s r %d %s, replayed", i, l, w.pred, w.succ, w.r, w.prov)
			}
		}
		if len(a.Lengths) != 2 || a.Lengths[0] != (analyze.LengthRow{Length: 2, Chains: 1}) || a.Lengths[1] != (analyze.LengthRow{Length: 3, Chains: 1}) {
			t.Errorf("lengths: got %+v, want one chain of 2 and one of 3", a.Lengths)
		}
	})
	t.Run("Golden", func(t *testing.T) {
		golden.Check(t, "testdata/hand.golden.jsonl", tablesJSONL(t, dir))
	})
}

// tablesJSONL reads every table back from dir (as a user would) and
// returns them as JSON lines, one per row, prefixed by the table name.
func tablesJSONL(t *testing.T, dir string) []byte {
	t.Helper()
	var b bytes.Buffer
	add := func(name string, rows any, err error) {
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(rows)
		var list []json.RawMessage
		_ = json.Unmarshal(raw, &list)
		for _, r := range list {
			b.WriteString(`{"table":"` + name + `","row":`)
			b.Write(r)
			b.WriteString("}\n")
		}
	}
	p := func(n string) string { return filepath.Join(dir, n) }
	{
		r, err := analyze.ReadTable[analyze.MonthRow](p(analyze.TableMonths))
		add(analyze.TableMonths, r, err)
	}
	{
		r, err := analyze.ReadTable[analyze.PartitionRow](p(analyze.TablePartitions))
		add(analyze.TablePartitions, r, err)
	}
	{
		r, err := analyze.ReadTable[analyze.SizeRow](p(analyze.TableSizes))
		add(analyze.TableSizes, r, err)
	}
	{
		r, err := analyze.ReadTable[analyze.LimitRow](p(analyze.TableLimits))
		add(analyze.TableLimits, r, err)
	}
	{
		r, err := analyze.ReadTable[analyze.UtilRow](p(analyze.TableUtil))
		add(analyze.TableUtil, r, err)
	}
	{
		r, err := analyze.ReadTable[analyze.QueueRow](p(analyze.TableQueue))
		add(analyze.TableQueue, r, err)
	}
	{
		r, err := analyze.ReadTable[analyze.ProfileRow](p(analyze.TableProfiles))
		add(analyze.TableProfiles, r, err)
	}
	{
		r, err := analyze.ReadTable[analyze.WaitRow](p(analyze.TableWaits))
		add(analyze.TableWaits, r, err)
	}
	{
		r, err := analyze.ReadTable[analyze.CDFRow](p(analyze.TableWaitCDF))
		add(analyze.TableWaitCDF, r, err)
	}
	{
		r, err := analyze.ReadTable[analyze.RunLimitRow](p(analyze.TableRunLimit))
		add(analyze.TableRunLimit, r, err)
	}
	{
		r, err := analyze.ReadTable[analyze.ChainRow](p(analyze.TableChains))
		add(analyze.TableChains, r, err)
	}
	{
		r, err := analyze.ReadTable[analyze.LinkRow](p(analyze.TableLinks))
		add(analyze.TableLinks, r, err)
	}
	{
		r, err := analyze.ReadTable[analyze.LengthRow](p(analyze.TableLengths))
		add(analyze.TableLengths, r, err)
	}
	{
		r, err := analyze.ReadTable[analyze.FidelityRow](p(analyze.TableFidelity))
		add(analyze.TableFidelity, r, err)
	}
	return b.Bytes()
}

func TestAnalyze_Cancelled(t *testing.T) {
	path := writeHandTrace(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := analyze.Analyze(ctx, path, handOptions()); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestAnalyze_BadOptions(t *testing.T) {
	o := handOptions()
	o.Chains.MatchName, o.Chains.MatchShape = false, false
	if _, err := analyze.Analyze(context.Background(), writeHandTrace(t), o); !errors.Is(err, analyze.ErrOptions) {
		t.Errorf("no matching: got %v, want ErrOptions", err)
	}
}
