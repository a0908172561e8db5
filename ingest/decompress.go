package ingest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// ErrTruncated means a gzip or zstd input ends in the middle of its
// compressed stream (an interrupted copy or download): the rows before the
// cut may be fine, but the input is incomplete, so the run stops.
var ErrTruncated = errors.New("truncated compressed input")

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// decompress wraps r in a decompressor chosen by magic bytes and returns
// the reader, the compression's name ("none", "gzip", "zstd") and a close
// function.
func decompress(r io.Reader) (io.Reader, string, func(), error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, "", nil, truncated("gzip", fmt.Errorf("gzip: %w", err))
		}
		return &truncReader{zr, "gzip"}, "gzip", func() { zr.Close() }, nil
	case bytes.HasPrefix(head, zstdMagic):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, "", nil, fmt.Errorf("zstd: %w", err)
		}
		return &truncReader{zr, "zstd"}, "zstd", zr.Close, nil
	}
	return br, "none", func() {}, nil
}

// truncReader turns the io.ErrUnexpectedEOF of a decompressor into an
// error wrapping ErrTruncated.
type truncReader struct {
	r    io.Reader
	name string // "gzip", "zstd"
}

func (t *truncReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	return n, truncated(t.name, err)
}

// truncated wraps ErrTruncated around err when err is io.ErrUnexpectedEOF
// (or wraps it); other errors are returned as they are.
func truncated(name string, err error) error {
	if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	return fmt.Errorf("%w: the %s stream ends early (an interrupted copy or download?)", ErrTruncated, name)
}
