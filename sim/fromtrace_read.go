package sim

import (
	"context"
	"errors"
	"io"

	"github.com/mirage-hpc/mirage/trace"
)

// readBatch is how many trace jobs ReadTrace holds at once.
const readBatch = 4096

// ReadTrace is FromTrace(trace.ReadAll(path), opts), the same jobs and
// conversion report, without holding the trace's jobs: it reads them in
// batches of 4,096 and keeps only the simulator's view (a Job, about 100
// bytes with its JobID, where a trace.Job takes over 400). visit, when
// not nil, sees every trace job in file order before it is converted,
// for figures over the whole trace; the job is only valid during the
// call. ctx is checked between batches.
func ReadTrace(ctx context.Context, path string, opts FromTraceOptions, visit func(*trace.Job)) ([]Job, Conversion, error) {
	t, conv, err := ReadTraceTable(ctx, path, opts, visit)
	if err != nil {
		return nil, Conversion{}, err
	}
	return t.Jobs(), conv, nil
}

// ReadTraceTable is ReadTrace into a Table (about 90 bytes a job with
// its JobID), for NewFromTable: a replay then never holds a []Job.
func ReadTraceTable(ctx context.Context, path string, opts FromTraceOptions, visit func(*trace.Job)) (*Table, Conversion, error) {
	r, err := trace.Open(path)
	if err != nil {
		return nil, Conversion{}, err
	}
	defer r.Close()
	c, err := newConverter(opts, r.RowsHint())
	if err != nil {
		return nil, Conversion{}, err
	}
	batch := make([]trace.Job, readBatch)
	for {
		if err := ctx.Err(); err != nil {
			return nil, Conversion{}, err
		}
		n, err := r.Read(batch)
		for i := range batch[:n] {
			if visit != nil {
				visit(&batch[i])
			}
			c.add(&batch[i])
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, Conversion{}, err
		}
	}
	return c.finish()
}
