package ingest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"
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
	// first is the first record written, for ErrNoJobs's message.
	first *QuarantineRecord
}

func newQuarantineWriter(path string) (*quarantineWriter, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*.tmp")
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
	}
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
	return (&ParseError{Path: q.first.File, Line: q.first.Line, Field: q.first.Field, Err: errors.New(q.first.Reason)}).Error()
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
