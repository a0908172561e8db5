package ingest

import (
	"bufio"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mirage-hpc/mirage/trace"
)

// ErrBadText is wrapped by the *ParseError of a string field that Mirage
// keeps (job name, user, account, partition, QOS, cluster, group, reason)
// and that holds invalid UTF-8 or a control character. Without
// Options.Strict such a field is repaired, not quarantined (see cleanText);
// with it the row stops the run.
var ErrBadText = errors.New("invalid text")

// RepairInvalidText is the trace.Job.Repair value of a job one of whose
// string fields was repaired by cleanText.
const RepairInvalidText = "invalid-text"

// utf8BOM is the UTF-8 byte-order mark some editors and Windows tools put
// at the start of a text file.
const utf8BOM = "\xef\xbb\xbf"

// skipBOM drops a UTF-8 byte-order mark at the start of br, so that the
// first header column (or the first JSON token) is read as written. It
// reports whether there was one.
func skipBOM(br *bufio.Reader) bool {
	b, err := br.Peek(len(utf8BOM))
	if err != nil || string(b) != utf8BOM {
		return false
	}
	br.Discard(len(utf8BOM))
	return true
}

// cleanText returns b as a string with every invalid UTF-8 sequence and
// every control character (C0, DEL and C1: unicode.IsControl, TAB and NUL
// included) replaced by U+FFFD, and whether anything was replaced. This
// is ingest's one rule for text in every reader: the job is kept, flagged
// RepairInvalidText and counted in Summary.Repaired.
func cleanText(b []byte) (string, bool) {
	if isPlainText(b) {
		return string(b), false
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 || unicode.IsControl(r) {
			sb.WriteRune(utf8.RuneError)
		} else {
			sb.Write(b[:n])
		}
		b = b[n:]
	}
	return sb.String(), true
}

// isPlainASCII reports whether b is printable ASCII (0x20 to 0x7e), the
// fast path of cleanText.
func isPlainASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// isPlainText reports whether b is valid UTF-8 without control characters:
// text that cleanText leaves as it is.
func isPlainText(b []byte) bool {
	if isPlainASCII(b) {
		return true
	}
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// cleanString is cleanText for a string.
func cleanString(s string) (string, bool) {
	if isPlainText([]byte(s)) {
		return s, false
	}
	return cleanText([]byte(s))
}

// textError is the error wrapped in the *ParseError of a field that
// cleanText repaired: it quotes the field as read (Go-escaped, so that the
// message is itself valid UTF-8).
func textError(raw []byte) error {
	return fmt.Errorf("%w: %q holds invalid UTF-8 or a control character (replaced with U+FFFD unless --strict)", ErrBadText, raw)
}

// addRepair appends repair to a job's comma-separated Repair list.
func addRepair(list, repair string) string {
	if repair == "" {
		return list
	}
	if list == "" {
		return repair
	}
	if strings.Contains(","+list+",", ","+repair+",") {
		return list
	}
	return list + "," + repair
}

// The range of years a time field may hold: sacct, sacct --json and SWF
// times outside it are refused with ErrBadTime (a Start of 0001-01-01 or a
// Submit in 5138 is a corrupt row, not a date).
const (
	MinYear = 1970
	MaxYear = 2100
)

// minUnix and maxUnix are the first and last Unix seconds of MinYear and
// MaxYear (UTC).
var (
	minUnix = time.Date(MinYear, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	maxUnix = time.Date(MaxYear+1, 1, 1, 0, 0, 0, 0, time.UTC).Unix() - 1
)

// yearError is the error for Unix seconds u outside MinYear..MaxYear (UTC).
func yearError(u int64) error {
	return fmt.Errorf("year %d is outside %d-%d", time.Unix(u, 0).UTC().Year(), MinYear, MaxYear)
}

// checkUnix returns an error wrapping ErrBadTime when u lies outside
// MinYear..MaxYear (UTC).
func checkUnix(u int64) error {
	if u < minUnix || u > maxUnix {
		return fmt.Errorf("%w: %w", ErrBadTime, yearError(u))
	}
	return nil
}

// cleanJobText applies cleanText to the string fields of a job read from
// sacct --json, whose decoder has already replaced invalid UTF-8 (and
// lone surrogate escapes) with U+FFFD: when raw, the job object as read,
// is not valid UTF-8 or holds a surrogate escape, a U+FFFD in a field is
// taken as such a replacement. It returns the JSON name of the first
// repaired field ("" when none); the job is then flagged RepairInvalidText.
func cleanJobText(j *trace.Job, raw []byte) string {
	suspect := !utf8.Valid(raw) || hasSurrogateEscape(raw)
	first := ""
	for _, f := range [...]struct {
		name string
		s    *string
	}{
		{"name", &j.JobName}, {"user", &j.User}, {"group", &j.Group}, {"account", &j.Account},
		{"partition", &j.Partition}, {"qos", &j.QOS}, {"cluster", &j.Cluster}, {"state.reason", &j.Reason},
	} {
		s, fixed := cleanString(*f.s)
		if !fixed && !(suspect && strings.ContainsRune(s, utf8.RuneError)) {
			continue
		}
		*f.s = s
		if first == "" {
			first = f.name
		}
	}
	if first != "" {
		j.Repair = addRepair(j.Repair, RepairInvalidText)
	}
	return first
}

// hasSurrogateEscape reports whether raw holds a JSON escape of a UTF-16
// surrogate (\uD800 to \uDFFF), which encoding/json decodes to U+FFFD when
// it is not part of a valid pair.
func hasSurrogateEscape(raw []byte) bool {
	for i := 0; i+5 < len(raw); i++ {
		if raw[i] == '\\' && raw[i+1] == 'u' && (raw[i+2] == 'd' || raw[i+2] == 'D') {
			switch raw[i+3] {
			case '8', '9', 'a', 'b', 'c', 'd', 'e', 'f', 'A', 'B', 'C', 'D', 'E', 'F':
				return true
			}
		}
		if raw[i] == '\\' {
			i++ // skip the escaped character, e.g. the second \ of \\
		}
	}
	return false
}
