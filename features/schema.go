package features

import "slices"

// FeatureSchemaVersion is the version of the feature schema (names, order,
// units and meaning). Models store it with Names and refuse a matrix of
// another version.
const FeatureSchemaVersion = 3

// Feature describes one feature column.
type Feature struct {
	// Name is the column name, snake_case with its unit as suffix.
	Name string `json:"name"`
	// Unit is "s", "nodes", "node-s", "jobs", "hour", "day" or "bool".
	Unit string `json:"unit"`
}

// Percentiles are the quantiles (in percent) of the per-snapshot
// distribution statistics, as in the Mirage artifact.
var Percentiles = [...]float64{0, 25, 50, 75, 100}

// Queue statistics of one snapshot (QueueStats), in order. The artifact's
// 42 per-snapshot numbers minus its five "pending run time" percentiles
// (always 0), its predecessor tuple (see the p_* features) and its
// successor tuple (constant; see q_nodes, q_limit_sec), plus the free and
// usable nodes.
const (
	qsPendingJobs    = 0
	qsPendingNodes   = 1
	qsPendingLimit   = 2  // 5 percentiles
	qsPendingAge     = 7  // 5 percentiles
	qsRunningJobs    = 12 // count
	qsRunningNodes   = 13
	qsRunningLimit   = 14 // 5 percentiles
	qsRunningWait    = 19 // 5 percentiles
	qsRunningElapsed = 24 // 5 percentiles
	qsFreeNodes      = 29
	qsCapacityNodes  = 30
	// NumQueueStats is the length of QueueStats' result.
	NumQueueStats = 31
)

// historySeries are the queue statistics summarised over the 24-hour
// history, plus the recent mean wait (index -1 below).
var historySeries = []struct {
	name string
	unit string
	qs   int // index into QueueStats, or -1 for the recent mean wait
}{
	{"pending_jobs", "jobs", qsPendingJobs},
	{"pending_nodes", "nodes", qsPendingNodes},
	{"running_nodes", "nodes", qsRunningNodes},
	{"pending_age_max_sec", "s", qsPendingAge + 4},
	{"recent_wait_mean_sec", "s", -1},
}

// historySpans are the spans of the history summaries, in seconds, with
// their name suffix.
var historySpans = []struct {
	name string
	sec  int64
}{{"1h", 3600}, {"6h", 6 * 3600}, {"24h", 24 * 3600}}

// Offsets of the feature groups in a feature vector.
var (
	offQueue   = 0
	offChain   = NumQueueStats
	offAhead   = offChain + numChain
	offTime    = offAhead + numAhead
	offRecent  = offTime + numTime
	offHistory = offRecent + numRecent
	numFeats   = offHistory + len(historySeries)*len(historySpans)*2
)

const (
	numChain  = 10 // p_started, p_nodes, p_wait_sec, p_elapsed_sec, p_remaining_sec, q_nodes, q_limit_sec, q_est_start_delay_sec, q_est_start_minus_p_end_sec, q_est_rt_start_minus_p_end_sec
	numAhead  = 6  // ahead_jobs, ahead_nodes, ahead_node_sec, q_est_start_found, running_nodes_ending_before_p_end, running_node_sec_ending_before_p_end
	numTime   = 2
	numRecent = 2
)

var schema = buildSchema()

func buildSchema() []Feature {
	var s []Feature
	add := func(name, unit string) { s = append(s, Feature{name, unit}) }
	pct := func(prefix string) {
		for _, p := range []string{"p0", "p25", "p50", "p75", "p100"} {
			add(prefix+"_"+p+"_sec", "s")
		}
	}
	// Queue statistics of the snapshot at the probe time.
	add("pending_jobs", "jobs")
	add("pending_nodes", "nodes")
	pct("pending_limit")
	pct("pending_age")
	add("running_jobs", "jobs")
	add("running_nodes", "nodes")
	pct("running_limit")
	pct("running_wait")
	pct("running_elapsed")
	add("free_nodes", "nodes")
	add("capacity_nodes", "nodes")
	// The chain.
	add("p_started", "bool")
	add("p_nodes", "nodes")
	add("p_wait_sec", "s")
	add("p_elapsed_sec", "s")
	add("p_remaining_sec", "s")
	add("q_nodes", "nodes")
	add("q_limit_sec", "s")
	add("q_est_start_delay_sec", "s")
	add("q_est_start_minus_p_end_sec", "s") // the estimate's r: EstimatedStart(Q) − P's expected end
	// The same with predicted run times (sim.EstimatedStartPredicted).
	add("q_est_rt_start_minus_p_end_sec", "s")
	// What the queue implies for Q.
	add("ahead_jobs", "jobs")
	add("ahead_nodes", "nodes")
	add("ahead_node_sec", "node-s")
	add("q_est_start_found", "bool")
	add("running_nodes_ending_before_p_end", "nodes")
	add("running_node_sec_ending_before_p_end", "node-s")
	// Calendar, in the trace's zone.
	add("hour_of_day", "hour")
	add("day_of_week", "day")
	// Recent starts.
	add("recent_wait_mean_sec", "s")
	add("recent_starts", "jobs")
	// History summaries.
	for _, h := range historySeries {
		unit := h.unit
		for _, sp := range historySpans {
			add("hist_"+h.name+"_mean_"+sp.name, unit)
		}
		for _, sp := range historySpans {
			add("hist_"+h.name+"_change_"+sp.name, unit)
		}
	}
	if len(s) != numFeats {
		panic("features: schema length mismatch")
	}
	return s
}

// Schema returns the ordered feature columns with their units. The slice
// is a copy.
func Schema() []Feature { return slices.Clone(schema) }

// Names returns the ordered feature names (Schema's names).
func Names() []string {
	n := make([]string, len(schema))
	for i, f := range schema {
		n[i] = f.Name
	}
	return n
}

// NumFeatures returns the length of a feature vector.
func NumFeatures() int { return numFeats }
