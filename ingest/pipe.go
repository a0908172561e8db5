package ingest

import (
	"sync"

	"github.com/mirage-hpc/mirage/trace"
)

// pipeBatch is the number of jobs handed from the reading goroutine to the
// writing goroutine at a time.
const pipeBatch = 1024

// pipe is a jobWriter that hands jobs, in order, to another goroutine that
// writes them to a trace.Writer, so parsing and Parquet encoding overlap.
type pipe struct {
	w     *trace.Writer
	batch []trace.Job
	full  chan []trace.Job
	free  chan []trace.Job
	done  chan struct{}
	mu    sync.Mutex
	err   error // first error of the writing goroutine
}

func newPipe(w *trace.Writer) *pipe {
	p := &pipe{
		w:    w,
		full: make(chan []trace.Job, 4),
		free: make(chan []trace.Job, 6),
		done: make(chan struct{}),
	}
	for range cap(p.free) {
		p.free <- make([]trace.Job, 0, pipeBatch)
	}
	p.batch = <-p.free
	go p.run()
	return p
}

func (p *pipe) run() {
	defer close(p.done)
	for batch := range p.full {
		if p.failed() == nil {
			for i := range batch {
				if err := p.w.Write(&batch[i]); err != nil {
					p.mu.Lock()
					p.err = err
					p.mu.Unlock()
					break
				}
			}
		}
		clear(batch)
		p.free <- batch[:0]
	}
}

func (p *pipe) failed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Write queues a copy of j.
func (p *pipe) Write(j *trace.Job) error {
	p.batch = append(p.batch, *j)
	if len(p.batch) < pipeBatch {
		return nil
	}
	p.full <- p.batch
	p.batch = <-p.free
	return p.failed()
}

// close flushes the queue and waits for the writing goroutine; after it
// the trace.Writer may be closed.
func (p *pipe) close() error {
	if len(p.batch) > 0 {
		p.full <- p.batch
		p.batch = nil
	}
	close(p.full)
	<-p.done
	return p.err
}
