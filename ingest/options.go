package ingest

import (
	"log/slog"
	"time"
)

// Options configures Run. The zero value reads UTC times, detects the
// format, and quarantines bad rows.
type Options struct {
	// Format forces an input format; FormatAuto detects it per input.
	Format Format
	// Location is the cluster's time zone, used for times printed without
	// one; nil means UTC. Epoch-second times are zone-free.
	Location *time.Location
	// Cluster names the cluster for inputs that do not (sacct without a
	// Cluster column, the Mirage format, SWF). "" leaves it empty.
	Cluster string
	// CoresPerNode maps SWF processor counts to nodes when the SWF header
	// has no MaxNodes/MaxProcs (or they do not divide evenly); 0 means
	// unknown: each processor is taken as a node (NNodes = NCPUs) and a
	// note says so. Other formats ignore it.
	CoresPerNode int
	// StartTime anchors SWF's relative times when the SWF header has no
	// UnixStartTime (or -1): Submit = StartTime + submit time, StartTime
	// truncated to whole seconds. The zero Time means none: times then
	// count from the Unix epoch (1970-01-01), and a note says so. A
	// header's UnixStartTime wins, with a note when the two differ. It
	// must lie within 1970-01-01 and about 317 years after (ErrBadTime).
	// Other formats ignore it.
	StartTime time.Time
	// Columns renames header columns of sacct and CSV inputs (see
	// ColumnMap); with it, a comma-separated header is read as FormatCSV
	// and rows that repeat an earlier row's job ID are kept as array tasks
	// (RepairArrayTaskNumbered). The zero map renames nothing.
	Columns ColumnMap
	// Strict stops at the first bad row with its *ParseError instead of
	// quarantining it.
	Strict bool
	// RowGroupRows bounds the Parquet row groups and the rows held in
	// memory; 0 means trace.DefaultRowGroupRows; a negative value is
	// ErrBadOption.
	RowGroupRows int
	// MaxLineBytes bounds one input line, and one sacct --json job object
	// (its steps included), in bytes; 0 means DefaultMaxLineBytes (16 MiB),
	// a negative value is ErrBadOption. A longer line is not held in
	// memory: it is quarantined (ErrLineTooLong, with its first 1 KiB) and
	// reading goes on. A header line beyond it stops the input.
	MaxLineBytes int
	// MaxFieldBytes bounds one field in bytes: a sacct column, or a string
	// of a sacct --json job; 0 means DefaultMaxFieldBytes (1 MiB), a
	// negative value is ErrBadOption. A row with a longer field is
	// quarantined (ErrFieldTooLong). A sacct row with more fields than its
	// header is quarantined (ErrFieldCount) after splitting only one more
	// field than the header has.
	MaxFieldBytes int
	// AllowEmpty accepts a run in which every row was quarantined (no
	// jobs): Run then writes the empty trace and the quarantine file.
	// Without it such a run fails with ErrNoJobs and replaces nothing.
	AllowEmpty bool
	// Quarantine is the quarantine file's path; "" means the output path
	// with its extension replaced by ".quarantine.jsonl".
	Quarantine string
	// Logger receives one line per input; nil discards.
	Logger *slog.Logger
	// Progress, if not nil, is called from the reading goroutine every
	// ProgressEvery rows and once at the end of each input.
	Progress func(Progress)
}

// ProgressEvery is the number of rows between Progress calls.
const ProgressEvery = 1 << 16

// Progress reports how far Run is.
type Progress struct {
	Input      string // path of the input being read
	InputIndex int    // 0-based index into Run's inputs
	Inputs     int    // number of inputs
	Bytes      int64  // compressed bytes of this input consumed so far
	Size       int64  // size of this input in bytes; 0 when unknown
	Rows       int64  // rows read so far over all inputs
	Done       bool   // this input is finished
}

// Summary counts what Run read and wrote. Its JSON form is the CLI's
// --json output.
type Summary struct {
	// Format is the format of the inputs (comma-separated when they differ).
	Format string `json:"format"`
	// RowsRead counts data rows (sacct and Mirage lines after the header,
	// SWF job lines, JSON job and step objects).
	RowsRead int64 `json:"rows_read"`
	// Jobs counts the rows of the output.
	Jobs int64 `json:"jobs"`
	// Quarantined counts rows written to the quarantine file, Duplicates
	// included.
	Quarantined int64 `json:"quarantined"`
	// Repaired counts output jobs that needed a repair (trace.Job.Repair
	// not empty): a Mirage-artifact row with shifted fields, or a string
	// field with invalid UTF-8 or a control character replaced by U+FFFD
	// (RepairInvalidText). A repaired job is a job, not a quarantined row;
	// a job with two repairs counts once.
	Repaired int64 `json:"repaired"`
	// StepsFolded counts step rows folded into their allocation.
	StepsFolded int64 `json:"steps_folded"`
	// Duplicates counts rows dropped because a later row was the same
	// attempt of the same job (also in Quarantined).
	Duplicates int64 `json:"duplicates"`
	// DSTAmbiguous counts rows with a local time that occurs twice.
	DSTAmbiguous int64 `json:"dst_ambiguous"`
	// Balanced is RowsRead == Jobs + StepsFolded + Quarantined.
	Balanced bool `json:"balanced"`
	// Output and QuarantineFile are the files written.
	Output         string `json:"output"`
	QuarantineFile string `json:"quarantine_file"`
	// TimeZone is the zone local times were read in.
	TimeZone string `json:"tz"`
	// Inputs lists per-input counts in input order.
	Inputs []InputSummary `json:"inputs"`
}

// InputSummary counts what Run read from one input.
type InputSummary struct {
	// Path is the input as the caller named it (for messages); Name is
	// what the output records of it (source_file, the quarantine file,
	// the trace's metadata): its base name, NAME#N when two inputs share
	// one (N its 1-based place among the inputs), so that the output does
	// not depend on how the path is spelled. SHA256 is the hex digest of
	// the input file's bytes as stored (compressed or not). Run sets Name
	// and SHA256; Read, which has no file, neither.
	Path        string `json:"path"`
	Name        string `json:"name,omitempty"`
	SHA256      string `json:"sha256,omitempty"`
	Format      string `json:"format"`
	Compression string `json:"compression"`
	RowsRead    int64  `json:"rows_read"`
	Quarantined int64  `json:"quarantined"`
	StepsFolded int64  `json:"steps_folded"`
	Repaired    int64  `json:"repaired"`
	// MaxNodes is the cluster's node count an SWF header gives (MaxNodes,
	// when MaxProcs/MaxNodes gave the cores per node); 0 when none. The
	// trace's metadata records it (max_nodes), the summary does not.
	MaxNodes int64 `json:"-"`
	// Notes are remarks about the input as a whole (e.g. a count line that
	// disagrees with the rows), sorted as found.
	Notes []string `json:"notes,omitempty"`
}
