package jobruntime

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/mirage-hpc/mirage/trace"
)

// EncodedKeys are the job attributes that are target-encoded, in the
// order of their feature columns.
var EncodedKeys = []string{"name", "account", "user", "partition", "qos"}

// keyOf returns attribute k (an element of EncodedKeys) of job j.
func keyOf(j *trace.Job, k int) string {
	switch k {
	case 0:
		return j.JobName
	case 1:
		return j.Account
	case 2:
		return userKey(j)
	case 3:
		return j.Partition
	}
	return j.QOS
}

// Encoding is the target encoding of EncodedKeys fitted on training rows:
// for a value seen in n training rows with mean ratio r, the encoding is
// (n*r + Smoothing*PriorRatio) / (n + Smoothing); an unseen value gets
// PriorRatio and 0 rows.
type Encoding struct {
	// PriorRatio is the mean ratio of every training row.
	PriorRatio float64 `json:"prior_ratio"`
	// Smoothing is the weight of the prior, in rows.
	Smoothing float64 `json:"smoothing_rows"`
	// Tables holds one table per EncodedKeys element, in order.
	Tables []EncodingTable `json:"tables"`
	index  []map[string]int
}

// EncodingTable is the encoding of one attribute; Entries are sorted by
// Value.
type EncodingTable struct {
	Key     string          `json:"key"`
	Entries []EncodingEntry `json:"entries"`
}

// EncodingEntry is one value's training rows and mean ratio.
type EncodingEntry struct {
	Value     string  `json:"value"`
	Rows      int     `json:"rows"`
	MeanRatio float64 `json:"mean_ratio"`
}

// DefaultSmoothing is Encoding.Smoothing unless set (rows).
const DefaultSmoothing = 10

// FitEncoding fits the encoding on jobs[rows[i]] with ratios y[i]. It
// panics if len(y) != len(rows).
func FitEncoding(jobs []trace.Job, rows []int, y []float64, smoothing float64) *Encoding {
	if len(y) != len(rows) {
		panic("jobruntime: FitEncoding: len(y) != len(rows)")
	}
	e := &Encoding{Smoothing: smoothing, PriorRatio: mean(y)}
	if len(y) == 0 {
		e.PriorRatio = 0.5
	}
	for k, key := range EncodedKeys {
		sum := map[string]float64{}
		cnt := map[string]int{}
		for i, r := range rows {
			v := keyOf(&jobs[r], k)
			sum[v] += y[i]
			cnt[v]++
		}
		t := EncodingTable{Key: key, Entries: make([]EncodingEntry, 0, len(cnt))}
		for v, n := range cnt {
			t.Entries = append(t.Entries, EncodingEntry{Value: v, Rows: n, MeanRatio: sum[v] / float64(n)})
		}
		slices.SortFunc(t.Entries, func(a, b EncodingEntry) int { return cmp.Compare(a.Value, b.Value) })
		e.Tables = append(e.Tables, t)
	}
	return e
}

func (e *Encoding) buildIndex() {
	e.index = make([]map[string]int, len(e.Tables))
	for k, t := range e.Tables {
		e.index[k] = make(map[string]int, len(t.Entries))
		for i, en := range t.Entries {
			e.index[k][en.Value] = i
		}
	}
}

// Apply writes, for each job jobs[rows[i]], the encoded ratio and the
// training row count of attribute k into ratio[k][i] and count[k][i].
func (e *Encoding) Apply(ratio, count [][]float64, jobs []trace.Job, rows []int) {
	if e.index == nil {
		e.buildIndex()
	}
	for k := range e.Tables {
		for i, r := range rows {
			v := keyOf(&jobs[r], k)
			ratio[k][i], count[k][i] = e.PriorRatio, 0
			if p, ok := e.index[k][v]; ok {
				en := e.Tables[k].Entries[p]
				n := float64(en.Rows)
				ratio[k][i] = (n*en.MeanRatio + e.Smoothing*e.PriorRatio) / (n + e.Smoothing)
				count[k][i] = n
			}
		}
	}
}

func formatInt(v int64) string { return strconv.FormatInt(v, 10) }

// check refuses an encoding that gives NaN or infinite ratios: a prior
// or mean ratio that is not finite, a negative smoothing, or a value of
// fewer than 1 row.
func (e *Encoding) check() error {
	if math.IsNaN(e.PriorRatio) || math.IsInf(e.PriorRatio, 0) || !(e.Smoothing >= 0) || math.IsInf(e.Smoothing, 0) {
		return fmt.Errorf("prior ratio %v, smoothing %v: want finite numbers, smoothing >= 0", e.PriorRatio, e.Smoothing)
	}
	for _, t := range e.Tables {
		for _, en := range t.Entries {
			if en.Rows < 1 || math.IsNaN(en.MeanRatio) || math.IsInf(en.MeanRatio, 0) {
				return fmt.Errorf("%s %q: %d rows, mean ratio %v", t.Key, en.Value, en.Rows, en.MeanRatio)
			}
		}
	}
	return nil
}
