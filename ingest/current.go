package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/mirage-hpc/mirage/trace"
)

// Given names the options a caller set explicitly, for Current: a zero
// field was not given and is not compared. Format FormatAuto, Location
// nil, Cluster nil, StartTime zero, CoresPerNode 0 and a zero Columns are
// "not given".
type Given struct {
	Format       Format
	Location     *time.Location
	Cluster      *string
	StartTime    time.Time
	CoresPerNode int
	Columns      ColumnMap
}

// Current reports whether output already holds what Run would write from
// inputs with the given options: a trace whose MetaIngest record names
// the same inputs, in order, by file name and sha256 of their bytes, and
// agrees with every option in given (the time zone only for formats with
// local times: sacct, mirage, csv). When it does not, why says what
// differs ("" when output does not exist). Reading the inputs costs one
// pass over their bytes; nothing is written.
func Current(inputs []string, output string, given Given) (ok bool, why string, err error) {
	if _, err := os.Stat(output); os.IsNotExist(err) {
		return false, "", nil
	}
	rec, err := ReadRecord(output)
	if err != nil {
		return false, fmt.Sprintf("%s is not a trace this build reads (%v)", output, err), nil
	}
	names := SourceNames(inputs)
	if len(rec.Inputs) != len(inputs) {
		return false, fmt.Sprintf("%s was ingested from %d inputs, not %d", output, len(rec.Inputs), len(inputs)), nil
	}
	for i, path := range inputs {
		sum, err := fileSHA256(path)
		if err != nil {
			return false, "", err
		}
		if in := rec.Inputs[i]; in.Name != names[i] || in.SHA256 != sum {
			return false, fmt.Sprintf("%s was ingested from another %s (name %s, sha256 %.12s…; the input is %s, sha256 %.12s…)",
				output, path, in.Name, in.SHA256, names[i], sum), nil
		}
	}
	if why := rec.differs(given); why != "" {
		return false, fmt.Sprintf("%s was ingested with %s", output, why), nil
	}
	return true, "", nil
}

// differs says which given option the record disagrees with, "" when
// none.
func (r *Record) differs(g Given) string {
	if g.Format != FormatAuto && r.Format != g.Format.String() {
		return fmt.Sprintf("format %s (given --format %s)", r.Format, g.Format)
	}
	if g.Location != nil && r.TZ != g.Location.String() && r.localTimes() {
		return fmt.Sprintf("--tz %s (given %s)", r.TZ, g.Location)
	}
	if g.Cluster != nil && r.Cluster != *g.Cluster {
		return fmt.Sprintf("--cluster %s (given %q)", orNone(strconv.Quote(r.Cluster), r.Cluster == ""), *g.Cluster)
	}
	if !g.StartTime.IsZero() {
		if s := g.StartTime.UTC().Truncate(time.Second).Format(time.RFC3339); s != r.StartTime {
			return fmt.Sprintf("--start-time %s (given %s)", orNone(r.StartTime, r.StartTime == ""), s)
		}
	}
	if g.CoresPerNode != 0 && r.CoresPerNode != g.CoresPerNode {
		return fmt.Sprintf("--cores-per-node %s (given %d)", orNone(strconv.Itoa(r.CoresPerNode), r.CoresPerNode == 0), g.CoresPerNode)
	}
	if !g.Columns.IsZero() && r.Columns != g.Columns.String() {
		return fmt.Sprintf("--columns %s (given %s)", orNone(r.Columns, r.Columns == ""), g.Columns.String())
	}
	return ""
}

// orNone is s, or "none" when none.
func orNone(s string, none bool) string {
	if none {
		return "none"
	}
	return s
}

// localTimes reports whether one of the record's formats reads local
// times, which --tz changes (SWF and sacct --json times are zone-free).
func (r *Record) localTimes() bool {
	for _, in := range r.Inputs {
		switch in.Format {
		case FormatSacct.String(), FormatMirage.String(), FormatCSV.String():
			return true
		}
	}
	return false
}

// ReadRecord returns the MetaIngest record of the trace at path.
func ReadRecord(path string) (Record, error) {
	r, err := trace.Open(path)
	if err != nil {
		return Record{}, err
	}
	defer r.Close()
	v, ok := r.Metadata(MetaIngest)
	if !ok {
		return Record{}, fmt.Errorf("%s has no %s metadata", path, MetaIngest)
	}
	var rec Record
	if err := json.Unmarshal([]byte(v), &rec); err != nil {
		return Record{}, fmt.Errorf("%s: %s metadata: %w", path, MetaIngest, err)
	}
	return rec, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("open input: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
