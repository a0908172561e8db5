package ingest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mirage-hpc/mirage/internal/atomicfile"
)

// QuarantineRecord is one line of the quarantine file.
type QuarantineRecord struct {
	File   string `json:"file"`
	Line   int64  `json:"line"`
	Field  string `json:"field"`
	Reason string `json:"reason"`
	Raw    string `json:"raw"`
}

// DefaultQuarantinePath returns the quarantine file that belongs to output:
// its extension replaced by ".quarantine.jsonl".
func DefaultQuarantinePath(output string) string {
	return strings.TrimSuffix(output, filepath.Ext(output)) + ".quarantine.jsonl"
}

// quarantineWriter writes JSON lines to a temp file renamed into place on
// commit. write is safe for concurrent use.
type quarantineWriter struct {
	mu   sync.Mutex
	path string
	f    *os.File
	w    *bufio.Writer
	enc  *json.Encoder
	n    int64
	// first is the first record written, and fields the records per
	// field, for ErrNoJobs's message.
	first  *QuarantineRecord
	fields map[string]int64
	// pathOf maps a record's file (an input's name) to the input as
	// named in messages; nil: the name itself.
	pathOf map[string]string
}

func newQuarantineWriter(path string) (*quarantineWriter, error) {
	f, err := atomicfile.CreateTemp(path)
	if err != nil {
		return nil, fmt.Errorf("create quarantine file: %w", err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &quarantineWriter{path: path, f: f, w: w, enc: enc}, nil
}

func (q *quarantineWriter) write(rec QuarantineRecord) error {
	if !utf8.ValidString(rec.Raw) {
		rec.Raw = strings.ToValidUTF8(rec.Raw, "\uFFFD")
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.n++
	if q.first == nil {
		q.first = &rec
		q.fields = map[string]int64{}
	}
	q.fields[rec.Field]++
	if err := q.enc.Encode(&rec); err != nil {
		return fmt.Errorf("write quarantine file: %w", err)
	}
	return nil
}

// firstReason formats the first record as "file:line: field: reason",
// "" when there is none.
func (q *quarantineWriter) firstReason() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.first == nil {
		return ""
	}
	file := q.first.File
	if p, ok := q.pathOf[file]; ok {
		file = p
	}
	return (&ParseError{Path: file, Line: q.first.Line, Field: q.first.Field, Err: errors.New(q.first.Reason)}).Error()
}

// topFields returns the fields of the most records, sorted ("" stands for
// a whole-row problem), and that count; nil and 0 when there is none.
func (q *quarantineWriter) topFields() ([]string, int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var top []string
	var n int64
	for f, c := range q.fields {
		switch {
		case c > n:
			top, n = []string{f}, c
		case c == n:
			top = append(top, f)
		}
	}
	slices.Sort(top)
	return top, n
}

// topFieldText is topFields for ErrNoJobs's message: ", most often for
// field F (N rows)", ", most often for fields F and G (N rows each)" ("(the
// whole row)" for a whole-row problem), or "" when there is no record.
func (q *quarantineWriter) topFieldText() string {
	top, n := q.topFields()
	if n == 0 {
		return ""
	}
	for i, f := range top {
		if f == "" {
			top[i] = "(the whole row)"
		}
	}
	rows := "rows"
	if n == 1 {
		rows = "row"
	}
	if len(top) == 1 {
		return fmt.Sprintf(", most often for field %s (%d %s)", top[0], n, rows)
	}
	list := strings.Join(top[:len(top)-1], ", ") + " and " + top[len(top)-1]
	return fmt.Sprintf(", most often for fields %s (%d %s each)", list, n, rows)
}

// finish flushes, syncs and closes the temporary file; publish then
// renames it into place. On error the temporary file is removed.
func (q *quarantineWriter) finish() error {
	err := q.w.Flush()
	if err == nil {
		err = q.f.Chmod(0o644)
	}
	if err == nil {
		err = q.f.Sync()
	}
	if cerr := q.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(q.f.Name())
		return fmt.Errorf("write quarantine file: %w", err)
	}
	return nil
}

// publish renames the file finished by finish into place.
func (q *quarantineWriter) publish() error {
	if err := os.Rename(q.f.Name(), q.path); err != nil {
		os.Remove(q.f.Name())
		return fmt.Errorf("write quarantine file %s: %w", q.path, err)
	}
	return nil
}

func (q *quarantineWriter) abort() {
	q.f.Close()
	os.Remove(q.f.Name())
}
