package ingest

import (
	"encoding/json"
	"time"
)

// Record is what Run records of how a trace was made, as JSON under the
// trace metadata key MetaIngest. The options that change what is read
// (StartTime, CoresPerNode, Columns) are recorded only when set, so a
// trace made without them has the same bytes as before they existed.
type Record struct {
	// Format is the inputs' format (comma-separated when they differ).
	Format string `json:"format"`
	// TZ is the zone local times were read in.
	TZ string `json:"tz"`
	// Cluster is Options.Cluster.
	Cluster string `json:"cluster"`
	// StartTime is Options.StartTime in RFC 3339, "" when not given.
	StartTime string `json:"start_time,omitempty"`
	// CoresPerNode is Options.CoresPerNode, 0 when not given.
	CoresPerNode int `json:"cores_per_node,omitempty"`
	// Columns is Options.Columns as ColumnMap.String, "" when none.
	Columns string `json:"columns,omitempty"`
	// Inputs are the input files, in input order.
	Inputs []RecordInput `json:"inputs"`
}

// RecordInput is one input of a Record: its name (InputSummary.Name, not
// the path as spelled), the sha256 of its bytes as stored, its format and
// compression, and the node count an SWF header gives (MaxNodes, when
// MaxProcs/MaxNodes gave the cores per node; 0 when none).
type RecordInput struct {
	Name        string `json:"name"`
	SHA256      string `json:"sha256"`
	Format      string `json:"format"`
	Compression string `json:"compression"`
	MaxNodes    int64  `json:"max_nodes,omitempty"`
}

// newRecord is the Record of a finished run.
func newRecord(sum *Summary, opts *Options) Record {
	m := Record{Format: sum.Format, TZ: sum.TimeZone, Cluster: opts.Cluster, CoresPerNode: opts.CoresPerNode,
		Columns: opts.Columns.String()}
	if !opts.StartTime.IsZero() {
		m.StartTime = opts.StartTime.UTC().Truncate(time.Second).Format(time.RFC3339)
	}
	for _, in := range sum.Inputs {
		m.Inputs = append(m.Inputs, RecordInput{in.Name, in.SHA256, in.Format, in.Compression, in.MaxNodes})
	}
	return m
}

// ingestMetadata is the JSON recorded under MetaIngest (see Record).
func ingestMetadata(sum *Summary, opts *Options) string {
	b, _ := json.Marshal(newRecord(sum, opts))
	return string(b)
}
