package trace

import (
	"context"
	"io"
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
	jobs := make([]Job, r.NumRows())
	n := 0
	for n < len(jobs) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		k, err := r.Read(jobs[n:min(len(jobs), n+4096)])
		n += k
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return jobs[:n], nil
}
