package ingest

import (
	"errors"
	"io"
)

// readSacctJSON reads sacct --json output. (Being written.)
func readSacctJSON(c *collector, r io.Reader, z *zone, opts *Options) error {
	return errors.New("sacct json reader: not implemented yet")
}
