// Package workpool runs independent units of work (the windows of a
// features build, an evaluation or a forecast training) on a bounded
// number of goroutines, stopping at the first error.
package workpool

import (
	"context"
	"sync"
	"sync/atomic"
)

// Run calls do for every unit in [0, units) on min(workers, units)
// goroutines (at least one), each unit once, in no particular order, and
// returns each unit's error (nil where it succeeded or never started).
// The first error cancels the context the units get, so the units not
// yet started are skipped; ctx's own cancellation does too. After each
// unit that succeeds, progress (nil: none) gets the number done so far
// and units, one call at a time.
func Run(ctx context.Context, workers, units int, do func(ctx context.Context, u int) error, progress func(done, total int)) []error {
	errs := make([]error, units)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for range min(max(workers, 1), max(units, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				u := int(next.Add(1) - 1)
				if u >= units || ctx.Err() != nil {
					return
				}
				if errs[u] = do(ctx, u); errs[u] != nil {
					cancel()
					return
				}
				if progress != nil {
					mu.Lock()
					done++
					progress(done, units)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return errs
}
