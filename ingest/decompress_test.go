package ingest_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/trace"
)

// TestRead_Truncated: gzip and zstd input cut mid-stream is ErrTruncated
// ("truncated compressed input", an input error: exit status 2), not an
// unexpected EOF.
func TestRead_Truncated(t *testing.T) {
	var plain strings.Builder
	plain.WriteString(hardHeader)
	for i := range 3000 {
		plain.WriteString(hardRow(strings.Repeat("1", 1+i%5)+string(rune('0'+i%10)), "job"))
	}
	var gz bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write([]byte(plain.String()))
	gw.Close()
	zw, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	zs := zw.EncodeAll([]byte(plain.String()), nil)
	for name, b := range map[string][]byte{"gzip": gz.Bytes(), "zstd": zs, "gzip-header": gz.Bytes()[:5]} {
		t.Run(name, func(t *testing.T) {
			cut := b[:max(len(b)/2, min(len(b), 5))]
			_, err := ingest.Read(context.Background(), bytes.NewReader(cut), "in", ingest.Options{}, func(*trace.Job) error { return nil }, nil)
			if !errors.Is(err, ingest.ErrTruncated) || !ingest.IsInputError(err) || !strings.Contains(err.Error(), "truncated compressed input") {
				t.Errorf("got %v, want ErrTruncated", err)
			}
		})
	}
}
