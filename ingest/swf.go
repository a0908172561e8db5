package ingest

import (
	"errors"
	"io"
)

// readSWF reads the Standard Workload Format. (Being written.)
func readSWF(c *collector, r io.Reader, z *zone, opts *Options) error {
	return errors.New("swf reader: not implemented yet")
}
