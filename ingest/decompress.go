package ingest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

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
			return nil, "", nil, fmt.Errorf("gzip: %w", err)
		}
		return zr, "gzip", func() { zr.Close() }, nil
	case bytes.HasPrefix(head, zstdMagic):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, "", nil, fmt.Errorf("zstd: %w", err)
		}
		return zr, "zstd", zr.Close, nil
	}
	return br, "none", func() {}, nil
}
