package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
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
	b = bytes.TrimSuffix(b, []byte{'\n'})
	b = bytes.TrimSuffix(b, []byte{'\r'})
	return b, nil
}

// splitInto splits line at sep into fields, reusing dst.
func splitInto(dst [][]byte, line []byte, sep byte) [][]byte {
	dst = dst[:0]
	for {
		i := bytes.IndexByte(line, sep)
		if i < 0 {
			return append(dst, line)
		}
		dst = append(dst, line[:i])
		line = line[i+1:]
	}
}
