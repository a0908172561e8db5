package ingest

import (
	"bytes"
	"errors"
	"fmt"
)

// ErrBadQuote is a CSV field whose double quotes are not balanced (an
// opening quote without its closing one, text after a closing quote, or
// a quote inside an unquoted field). A quoted field may not span lines.
var ErrBadQuote = errors.New("bad CSV quoting")

// splitCSV splits one line of comma-separated values (RFC 4180 quoting:
// a field in double quotes may hold commas, and "" is a quote) into at
// most limit fields, reusing dst; it also returns the number of fields
// the line has. Quoted fields are unescaped into *scratch, which the
// fields then share: they are valid until the next call.
func splitCSV(dst [][]byte, line []byte, scratch *[]byte, limit int) ([][]byte, int, error) {
	if bytes.IndexByte(line, '"') < 0 {
		f, n := splitLimit(dst, line, ',', limit)
		return f, n, nil
	}
	dst = dst[:0]
	// Unescaped text is never longer than the line: with this capacity
	// appends do not move the fields already cut from it.
	if cap(*scratch) < len(line) {
		*scratch = make([]byte, 0, len(line))
	}
	buf := (*scratch)[:0]
	n := 0
	for i := 0; ; {
		n++
		var field []byte
		switch {
		case i < len(line) && line[i] == '"':
			start := len(buf)
			i++
			for {
				k := bytes.IndexByte(line[i:], '"')
				if k < 0 {
					return dst, n, fmt.Errorf("%w: field %d has an opening quote without its closing one", ErrBadQuote, n)
				}
				buf = append(buf, line[i:i+k]...)
				i += k + 1
				if i < len(line) && line[i] == '"' {
					buf = append(buf, '"')
					i++
					continue
				}
				break
			}
			if i < len(line) && line[i] != ',' {
				return dst, n, fmt.Errorf("%w: field %d has text after its closing quote", ErrBadQuote, n)
			}
			field = buf[start:len(buf):len(buf)]
		default:
			k := bytes.IndexByte(line[i:], ',')
			end := len(line)
			if k >= 0 {
				end = i + k
			}
			field = line[i:end]
			if bytes.IndexByte(field, '"') >= 0 {
				return dst, n, fmt.Errorf("%w: field %d holds a quote but does not start with one", ErrBadQuote, n)
			}
			i = end
		}
		if n <= limit {
			dst = append(dst, field)
		}
		if i >= len(line) {
			*scratch = buf
			return dst, n, nil
		}
		i++ // the comma
	}
}
