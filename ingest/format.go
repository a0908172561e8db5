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
)

var formatNames = [...]string{
	FormatAuto:      "auto",
	FormatSacct:     "sacct",
	FormatSacctJSON: "sacct-json",
	FormatMirage:    "mirage",
	FormatSWF:       "swf",
}

// String returns the name ParseFormat accepts.
func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", f)
}

// ParseFormat parses a format name: auto, sacct (also parsable, parsable2),
// sacct-json (also json), mirage, swf.
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
	}
	return FormatAuto, fmt.Errorf("%w: %q (want auto, sacct, sacct-json, mirage or swf)", ErrUnknownFormat, s)
}

// Detect chooses the format of an input from its first bytes (after
// decompression). It returns ErrEmptyInput for blank input, ErrFixedWidth
// for sacct's default fixed-width output, and ErrUnknownFormat otherwise.
func Detect(head []byte) (Format, error) {
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
	return FormatAuto, ErrUnknownFormat
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
