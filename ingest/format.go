package ingest

import (
	"bytes"
	"fmt"
	"strings"
)

// Format is an input format.
type Format uint8

// The input formats. FormatAuto asks Detect to choose.
const (
	FormatAuto Format = iota
	FormatSacct
	FormatSacctJSON
	FormatMirage
	FormatSWF
	// FormatCSV is comma-separated values with a header line (quotes as
	// in RFC 4180), columns by name: sacct's names, or others renamed by
	// Options.Columns. Detect chooses it only for a comma-separated
	// header when Options.Columns is set (see detectWith).
	FormatCSV
)

var formatNames = [...]string{
	FormatAuto:      "auto",
	FormatSacct:     "sacct",
	FormatSacctJSON: "sacct-json",
	FormatMirage:    "mirage",
	FormatSWF:       "swf",
	FormatCSV:       "csv",
}

// String returns the name ParseFormat accepts.
func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", f)
}

// ParseFormat parses a format name: auto, sacct (also parsable, parsable2),
// sacct-json (also json), mirage, swf, csv.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return FormatAuto, nil
	case "sacct", "parsable", "parsable2":
		return FormatSacct, nil
	case "sacct-json", "json":
		return FormatSacctJSON, nil
	case "mirage":
		return FormatMirage, nil
	case "swf":
		return FormatSWF, nil
	case "csv":
		return FormatCSV, nil
	}
	return FormatAuto, fmt.Errorf("%w: %q (want auto, sacct, sacct-json, mirage, swf or csv)", ErrUnknownFormat, s)
}

// Detect chooses the format of an input from its first bytes (after
// decompression). It returns ErrEmptyInput for blank input, ErrFixedWidth
// for sacct's default fixed-width output, and otherwise an error wrapping
// ErrUnknownFormat that says, for each format tried, what in the first
// lines ruled it out.
func Detect(head []byte) (Format, error) {
	if bytes.HasPrefix(head, []byte("PAR1")) {
		return FormatAuto, fmt.Errorf("%w: it is already a Parquet file (it starts with PAR1), not a scheduler log: if mirage ingest wrote it, it is a trace already; pass it as is (mirage trace stats FILE, --trace FILE)", ErrUnknownFormat)
	}
	lines := firstLines(head, 4)
	if len(lines) == 0 {
		return FormatAuto, ErrEmptyInput
	}
	first := lines[0]
	switch {
	case first[0] == '{' || first[0] == '[':
		return FormatSacctJSON, nil
	case first[0] == ';':
		return FormatSWF, nil
	case isDigits(first) && len(lines) > 1 && hasColumn(lines[1], "JobID"):
		return FormatMirage, nil
	case hasColumn(first, "JobID") || hasColumn(first, "JobIDRaw"):
		if bytes.IndexByte(first, '|') >= 0 || bytes.IndexByte(first, '\t') >= 0 {
			return FormatSacct, nil
		}
		if len(lines) > 2 && isDashes(lines[1]) && bytes.IndexByte(lines[2], '\t') >= 0 {
			return FormatMirage, nil
		}
		if len(lines) > 1 && isDashes(lines[1]) {
			return FormatAuto, ErrFixedWidth
		}
		if len(lines) == 1 || len(bytes.Fields(first)) == 1 {
			// A header of one name and no delimiter: a one-column
			// parsable dump (sacct -P --format=JobID).
			return FormatSacct, nil
		}
	case looksLikeSWF(first):
		return FormatSWF, nil
	}
	return FormatAuto, fmt.Errorf("%w: %s", ErrUnknownFormat, whyNot(lines))
}

// detectWith is Detect, except that with opts.Columns set a
// comma-separated first line is FormatCSV.
func detectWith(head []byte, opts *Options) (Format, error) {
	f, err := Detect(head)
	if err == nil || opts.Columns.IsZero() {
		return f, err
	}
	if lines := firstLines(head, 1); len(lines) == 1 && bytes.IndexByte(lines[0], ',') >= 0 {
		return FormatCSV, nil
	}
	return f, err
}

// whyNot explains, for an input Detect recognises as no format, what in
// its first lines ruled out each format it tried, and how to force one.
func whyNot(lines [][]byte) string {
	first := lines[0]
	quoted := first
	if len(quoted) > 60 {
		quoted = append(quoted[:57:57], "..."...)
	}
	var sacct string
	comma := bytes.Count(first, []byte{','})
	switch {
	case comma > 0 && (hasColumn(bytes.ReplaceAll(first, []byte{','}, []byte{'|'}), "JobID") || hasColumn(bytes.ReplaceAll(first, []byte{','}, []byte{'|'}), "JobIDRaw")):
		sacct = "CSV with `,` separators is not sacct: sacct uses `|`; pass --format csv to read it as CSV with sacct's column names, or see `--format` and the column names it needs (sacct -P --format=JobID,User,Submit,Start,End,...)"
	case comma > 0:
		sacct = "the first line is comma-separated (CSV) and names no JobID column; " + csvHint(first)
	case hasColumn(first, "JobID") || hasColumn(first, "JobIDRaw"):
		sacct = "the header names JobID but has no `|` or tab separators: sacct -P (--parsable2) separates columns with `|`"
	default:
		sacct = "the first line names no JobID column: sacct -P writes a header of `|`-separated column names including JobID"
	}
	json := fmt.Sprintf("the first character is %q, not `{` or `[`", first[0])
	mirage := "the first line is not a job count followed by the artifact's JobID header"
	if isDigits(first) {
		mirage = "the job count on the first line is not followed by a header naming JobID"
	}
	swf := swfWhyNot(first)
	return fmt.Sprintf("the first line %q is none of the formats tried: sacct: %s; sacct-json: %s; mirage: %s; swf: %s; pass --format (sacct, sacct-json, mirage, swf or csv) to force one and see its error",
		quoted, sacct, json, mirage, swf)
}

// csvHint says how to read a CSV header whose columns have other names:
// the built-in column map it matches, or a map of one's own.
func csvHint(header []byte) string {
	if name := matchBuiltin(bytes.Split(header, []byte{','})); name != "" {
		return fmt.Sprintf("its columns are those of the %q release: pass --columns %s", name, name)
	}
	return fmt.Sprintf("pass --columns FROM=TO,... naming which of its columns is JobID, Submit, Start, End, ... (e.g. --columns job_id=JobID,submit_time=Submit), or a built-in map (%s); sacct -P writes `|`-separated sacct names instead", builtinNames())
}

// swfWhyNot says why line is not an SWF line: neither a `;` header
// comment nor 18 numeric fields.
func swfWhyNot(line []byte) string {
	f := bytes.Fields(line)
	if len(f) != 18 {
		return fmt.Sprintf("the first line is not a `;` header comment and has %d white-space-separated fields, not 18", len(f))
	}
	for k, x := range f {
		for i, c := range x {
			if !(c >= '0' && c <= '9' || c == '.' || c == '-' && i == 0) {
				return fmt.Sprintf("field %d, %q, is not a number", k+1, x)
			}
		}
	}
	return "the line is not an SWF job line"
}

// firstLines returns up to n non-blank lines of head, trimmed of
// surrounding white space; a final line cut off by the end of head counts.
func firstLines(head []byte, n int) [][]byte {
	var out [][]byte
	for len(head) > 0 && len(out) < n {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			out = append(out, line)
		}
	}
	return out
}

func isDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func isDashes(b []byte) bool {
	if len(b) == 0 || b[0] != '-' {
		return false
	}
	for _, c := range b {
		if c != '-' && c != ' ' {
			return false
		}
	}
	return true
}

// hasColumn reports whether a header line names col as a whole token.
func hasColumn(line []byte, col string) bool {
	for _, f := range bytes.FieldsFunc(line, func(r rune) bool { return r == '|' || r == '\t' || r == ' ' }) {
		if strings.EqualFold(string(f), col) {
			return true
		}
	}
	return false
}

// looksLikeSWF reports whether line is an SWF data line: 18 integer or
// decimal fields.
func looksLikeSWF(line []byte) bool {
	f := bytes.Fields(line)
	if len(f) != 18 {
		return false
	}
	for _, x := range f {
		for i, c := range x {
			if !(c >= '0' && c <= '9' || c == '.' || c == '-' && i == 0) {
				return false
			}
		}
	}
	return true
}

// compressionExts and formatExts are the file-name suffixes TraceName
// drops.
var (
	compressionExts = []string{".gz", ".zst", ".zstd", ".bz2", ".xz"}
	formatExts      = []string{".swf", ".log", ".txt", ".csv", ".json", ".sacct", ".out", ".parquet"}
)

// TraceName returns a name for the trace in the file at path, for output
// files, clusters and studies: its base name without a compression suffix
// (.gz, .zst, .zstd, .bz2, .xz) and then without one format suffix (.swf,
// .log, .txt, .csv, .json, .sacct, .out, .parquet), case-insensitively;
// white space becomes "_". Other dots are kept, so X-2.1-b1.swf.gz and
// X-2.1-b2.swf.gz are X-2.1-b1 and X-2.1-b2, not both X-2. It returns
// "trace" for a name that would be empty.
func TraceName(path string) string {
	name := path
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	for _, exts := range [][]string{compressionExts, formatExts} {
		for _, e := range exts {
			if len(name) > len(e) && strings.EqualFold(name[len(name)-len(e):], e) {
				name = name[:len(name)-len(e)]
				break
			}
		}
	}
	name = strings.Join(strings.Fields(name), "_")
	if name == "" {
		return "trace"
	}
	return name
}
