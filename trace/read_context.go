package trace

import (
	"context"
	"io"
	"slices"
)

// ReadAllContext is ReadAll that checks ctx between batches of 4,096
// jobs and returns ctx's error as soon as it is done, so an interrupted
// command stops while reading a large trace.
func ReadAllContext(ctx context.Context, path string) ([]Job, error) {
	r, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	jobs := make([]Job, 0, r.RowsHint()) // grown with what is really read
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := len(jobs)
		// Batches no larger than the rows left by the hint: the Parquet
		// reader prepares every row of the buffer it is given, so a
		// 4,096-row buffer for a 2-row file cost 60 times the read.
		batch := min(4096, max(1, r.RowsHint()-n))
		jobs = slices.Grow(jobs, batch)[:n+batch]
		k, err := r.Read(jobs[n:])
		jobs = jobs[:n+k]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return slices.Clip(jobs), nil
}
