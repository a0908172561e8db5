package analyze

// The rows of the output tables. Each table is one Parquet file whose
// columns are the parquet tags below (README.md, "Tables", documents
// every column). Times are UTC instants (TIMESTAMP(MILLIS)), durations
// carry their unit in the column name.

// MonthRow is one row of volume_month.parquet: the jobs submitted in one
// month of the cluster's zone.
type MonthRow struct {
	Month     string  `parquet:"month" json:"month"` // "YYYY-MM"
	Jobs      int64   `parquet:"jobs" json:"jobs"`
	Users     int64   `parquet:"users" json:"users"`
	Accounts  int64   `parquet:"accounts" json:"accounts"`
	NodeHours float64 `parquet:"node_hours" json:"node_hours"` // nodes × run time of the jobs that ran
	GPUHours  float64 `parquet:"gpu_hours" json:"gpu_hours"`
}

// PartitionRow is one row of volume_partition.parquet.
type PartitionRow struct {
	Partition string  `parquet:"partition" json:"partition"`
	Jobs      int64   `parquet:"jobs" json:"jobs"`
	Users     int64   `parquet:"users" json:"users"`
	Accounts  int64   `parquet:"accounts" json:"accounts"`
	NodeHours float64 `parquet:"node_hours" json:"node_hours"`
	GPUHours  float64 `parquet:"gpu_hours" json:"gpu_hours"`
}

// SizeRow is one row of job_sizes.parquet: the jobs of one node count.
type SizeRow struct {
	Nodes     int32   `parquet:"nnodes" json:"nnodes"`
	Jobs      int64   `parquet:"jobs" json:"jobs"`
	NodeHours float64 `parquet:"node_hours" json:"node_hours"`
}

// LimitRow is one row of limits.parquet: the jobs of one time-limit class.
type LimitRow struct {
	Class     string  `parquet:"limit_class" json:"limit_class"`
	Jobs      int64   `parquet:"jobs" json:"jobs"`
	NodeHours float64 `parquet:"node_hours" json:"node_hours"`
}

// UtilRow is one row of utilisation.parquet: one hour.
type UtilRow struct {
	HourMs        int64   `parquet:"hour,timestamp(millisecond)" json:"hour_ms"`
	BusyNodesMean float64 `parquet:"busy_nodes_mean" json:"busy_nodes_mean"` // mean over the hour's minutes
	BusyNodesMax  int64   `parquet:"busy_nodes_max" json:"busy_nodes_max"`
	CapacityNodes int64   `parquet:"capacity_nodes" json:"capacity_nodes"`
	Utilisation   float64 `parquet:"utilisation" json:"utilisation"` // busy_nodes_mean / capacity_nodes
}

// QueueRow is one row of queue.parquet: one hour.
type QueueRow struct {
	HourMs                int64   `parquet:"hour,timestamp(millisecond)" json:"hour_ms"`
	PendingJobsMean       float64 `parquet:"pending_jobs_mean" json:"pending_jobs_mean"`
	PendingNodesMean      float64 `parquet:"pending_nodes_mean" json:"pending_nodes_mean"`
	PendingNodeHoursMean  float64 `parquet:"pending_node_hours_mean" json:"pending_node_hours_mean"` // nodes × time limit
	BacklogFullMachineHrs float64 `parquet:"backlog_hours" json:"backlog_hours"`                     // pending node-hours / capacity
}

// ProfileRow is one row of profiles.parquet: the mean over every hour
// of one hour of the day or one day of the week (0 = Sunday), in the
// cluster's zone.
type ProfileRow struct {
	Profile         string  `parquet:"profile" json:"profile"` // "hour_of_day" or "day_of_week"
	Index           int32   `parquet:"index" json:"index"`
	BusyNodesMean   float64 `parquet:"busy_nodes_mean" json:"busy_nodes_mean"`
	UtilisationMean float64 `parquet:"utilisation_mean" json:"utilisation_mean"`
	PendingJobsMean float64 `parquet:"pending_jobs_mean" json:"pending_jobs_mean"`
}

// WaitRow is one row of waits.parquet: the waits (Start - Submit) of the
// jobs of one group that have both.
type WaitRow struct {
	GroupBy string  `parquet:"group_by" json:"group_by"` // all, nodes, limit, partition, qos, month
	Group   string  `parquet:"group" json:"group"`
	Jobs    int64   `parquet:"jobs" json:"jobs"`
	MeanSec float64 `parquet:"mean_sec" json:"mean_sec"`
	P50Sec  float64 `parquet:"p50_sec" json:"p50_sec"`
	P90Sec  float64 `parquet:"p90_sec" json:"p90_sec"`
	P99Sec  float64 `parquet:"p99_sec" json:"p99_sec"`
	// ShareLongerThanRun is the share of the group's jobs with a run time
	// whose wait exceeded it.
	ShareLongerThanRun float64 `parquet:"share_wait_longer_than_run" json:"share_wait_longer_than_run"`
}

// CDFRow is one row of wait_cdf.parquet.
type CDFRow struct {
	GroupBy string  `parquet:"group_by" json:"group_by"`
	Group   string  `parquet:"group" json:"group"`
	WaitSec float64 `parquet:"wait_sec" json:"wait_sec"`
	Share   float64 `parquet:"share" json:"share"` // of the group's waits <= wait_sec
}

// RunLimitRow is one row of runtime_limit.parquet: run time / time limit
// of the jobs with both, per user class.
type RunLimitRow struct {
	UserClass string  `parquet:"user_class" json:"user_class"`
	Users     int64   `parquet:"users" json:"users"`
	Jobs      int64   `parquet:"jobs" json:"jobs"`
	P10       float64 `parquet:"ratio_p10" json:"ratio_p10"`
	P25       float64 `parquet:"ratio_p25" json:"ratio_p25"`
	P50       float64 `parquet:"ratio_p50" json:"ratio_p50"`
	P75       float64 `parquet:"ratio_p75" json:"ratio_p75"`
	P90       float64 `parquet:"ratio_p90" json:"ratio_p90"`
	// ShareAtLimit: ratio >= 1 (ran to the limit); ShareUnderTenth: < 0.1.
	ShareAtLimit    float64 `parquet:"share_at_limit" json:"share_at_limit"`
	ShareUnderTenth float64 `parquet:"share_under_0_1" json:"share_under_0_1"`
}

// ChainRow is one row of chains.parquet: one service chain.
type ChainRow struct {
	Chain        int64   `parquet:"chain_id" json:"chain_id"`
	User         string  `parquet:"user" json:"user"`
	Account      string  `parquet:"account" json:"account"`
	JobName      string  `parquet:"job_name" json:"job_name"`
	Nodes        int32   `parquet:"nnodes" json:"nnodes"` // of the head
	TimelimitSec int64   `parquet:"timelimit_sec" json:"timelimit_sec"`
	Jobs         int64   `parquet:"jobs" json:"jobs"` // chain length
	FirstSubmit  int64   `parquet:"first_submit,timestamp(millisecond)" json:"first_submit_ms"`
	FirstStart   int64   `parquet:"first_start,timestamp(millisecond)" json:"first_start_ms"`
	LastEnd      int64   `parquet:"last_end,timestamp(millisecond)" json:"last_end_ms"`
	ChainMonths  float64 `parquet:"chain_months" json:"chain_months"` // (last_end - first_start) / 30.44 days
	Links        int64   `parquet:"links" json:"links"`
	Interrupted  int64   `parquet:"interrupted_links" json:"interrupted_links"` // r > 0
	Overlapping  int64   `parquet:"overlapping_links" json:"overlapping_links"` // r < 0
	Before       int64   `parquet:"submitted_before_end" json:"submitted_before_end"`
	After        int64   `parquet:"submitted_after_end" json:"submitted_after_end"`
	InterruptH   float64 `parquet:"interruption_hours" json:"interruption_hours"` // sum of max(r, 0)
	OverlapH     float64 `parquet:"overlap_hours" json:"overlap_hours"`           // sum of max(-r, 0)
	InterruptPCM float64 `parquet:"interruption_hours_per_chain_month" json:"interruption_hours_per_chain_month"`
	Replayed     int64   `parquet:"replayed_links" json:"replayed_links"`
	// The replay's figures over the replayed links (0 when none).
	ReactiveInterruptH float64 `parquet:"reactive_interruption_hours" json:"reactive_interruption_hours"`
	ReactiveOverlapH   float64 `parquet:"reactive_overlap_hours" json:"reactive_overlap_hours"`
	OracleInterruptH   float64 `parquet:"oracle_interruption_hours" json:"oracle_interruption_hours"`
	OracleOverlapH     float64 `parquet:"oracle_overlap_hours" json:"oracle_overlap_hours"`
	RealReplayedH      float64 `parquet:"real_interruption_hours_replayed" json:"real_interruption_hours_replayed"` // real, same links
}

// LinkRow is one row of chain_links.parquet: predecessor P, successor Q.
type LinkRow struct {
	Chain      int64  `parquet:"chain_id" json:"chain_id"`
	Link       int32  `parquet:"link" json:"link"` // 1 = head -> second job
	PredJobID  string `parquet:"pred_job_id" json:"pred_job_id"`
	SuccJobID  string `parquet:"succ_job_id" json:"succ_job_id"`
	PredState  string `parquet:"pred_state" json:"pred_state"`
	MatchedBy  string `parquet:"matched_by" json:"matched_by"` // name or shape
	PredEnd    int64  `parquet:"pred_end,timestamp(millisecond)" json:"pred_end_ms"`
	SuccSubmit int64  `parquet:"succ_submit,timestamp(millisecond)" json:"succ_submit_ms"`
	SuccStart  int64  `parquet:"succ_start,timestamp(millisecond)" json:"succ_start_ms"`
	// RSec is the real interruption succ_start - pred_end: > 0
	// interruption, < 0 overlap.
	RSec        int64  `parquet:"r_sec" json:"r_sec"`
	Provisioned string `parquet:"provisioned" json:"provisioned"` // before_end or after_end
	Replayed    bool   `parquet:"replayed" json:"replayed"`
	// Simulated r of the reactive policy and of the oracle (0 unless
	// replayed), and the oracle's submission relative to P's simulated end.
	ReactiveRSec       int64 `parquet:"reactive_r_sec" json:"reactive_r_sec"`
	OracleRSec         int64 `parquet:"oracle_r_sec" json:"oracle_r_sec"`
	OracleSubmitOffset int64 `parquet:"oracle_submit_offset_sec" json:"oracle_submit_offset_sec"`
}

// LengthRow is one row of chain_lengths.parquet.
type LengthRow struct {
	Length int64 `parquet:"length" json:"length"` // jobs in the chain
	Chains int64 `parquet:"chains" json:"chains"`
}

// FidelityRow is one row of fidelity.parquet: simulated vs real waits of
// the jobs submitted in one month ("all" for the whole trace).
type FidelityRow struct {
	Month        string  `parquet:"month" json:"month"`
	Jobs         int64   `parquet:"jobs" json:"jobs"`
	Spearman     float64 `parquet:"spearman" json:"spearman"`
	Within2x     float64 `parquet:"within_2x" json:"within_2x"`
	Within2xJobs int64   `parquet:"within_2x_jobs" json:"within_2x_jobs"`
	MAEHours     float64 `parquet:"mae_hours" json:"mae_hours"`
	MedianAbsH   float64 `parquet:"median_abs_err_hours" json:"median_abs_err_hours"`
}
