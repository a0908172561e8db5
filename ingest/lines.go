package ingest

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
)

// maxLineBytes bounds one input line; a longer line is an error, not an
// unbounded allocation.
const maxLineBytes = 16 << 20

// lineReader yields the lines of an input without their line endings
// (\n or \r\n), counting 1-indexed line numbers. A line's bytes are valid
// until the next call to next.
type lineReader struct {
	br   *bufio.Reader
	line int64
	long []byte
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 256<<10)}
}

// next returns the next line, or io.EOF after the last.
func (lr *lineReader) next() ([]byte, error) {
	b, err := lr.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		lr.long = append(lr.long[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = lr.br.ReadSlice('\n')
			lr.long = append(lr.long, b...)
			if len(lr.long) > maxLineBytes {
				return nil, fmt.Errorf("line %d: longer than %d bytes", lr.line+1, maxLineBytes)
			}
		}
		b = lr.long
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	if len(b) == 0 && err == io.EOF {
		return nil, io.EOF
	}
	lr.line++
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b, nil
}

// splitInto splits line at sep into fields, reusing dst.
//
// It scans eight bytes at a time (SWAR): sacct fields are short, so one
// bytes.IndexByte call per field costs more in call overhead than it saves.
func splitInto(dst [][]byte, line []byte, sep byte) [][]byte {
	dst = dst[:0]
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	pat := uint64(sep) * lo
	start, i := 0, 0
	for ; i+8 <= len(line); i += 8 {
		x := binary.LittleEndian.Uint64(line[i:]) ^ pat
		// m has the high bit set in every byte of x that is zero (and
		// possibly in bytes above one, which the loop re-checks).
		m := (x - lo) &^ x & hi
		for m != 0 {
			k := i + bits.TrailingZeros64(m)>>3
			if line[k] == sep {
				dst = append(dst, line[start:k])
				start = k + 1
			}
			m &= m - 1
		}
	}
	for ; i < len(line); i++ {
		if line[i] == sep {
			dst = append(dst, line[start:i])
			start = i + 1
		}
	}
	return append(dst, line[start:])
}
