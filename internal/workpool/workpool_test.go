package workpool

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// TestRun: every unit runs once on any number of workers, progress counts
// to the end; an error stops the units not yet started and is returned
// at its unit.
func TestRun(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 100} {
		var calls [50]atomic.Int32
		last := 0
		errs := Run(context.Background(), workers, 50, func(_ context.Context, u int) error {
			calls[u].Add(1)
			return nil
		}, func(done, total int) {
			if done != last+1 || total != 50 {
				t.Errorf("progress %d/%d after %d", done, total, last)
			}
			last = done
		})
		for u := range calls {
			if n := calls[u].Load(); n != 1 || errs[u] != nil {
				t.Fatalf("%d workers: unit %d ran %d times, error %v", workers, u, n, errs[u])
			}
		}
		if last != 50 {
			t.Errorf("%d workers: progress ended at %d", workers, last)
		}
	}
	bad := errors.New("bad")
	var ran atomic.Int32
	errs := Run(context.Background(), 1, 10, func(_ context.Context, u int) error {
		ran.Add(1)
		if u == 3 {
			return bad
		}
		return nil
	}, nil)
	if !errors.Is(errs[3], bad) || ran.Load() != 4 {
		t.Fatalf("one worker, unit 3 fails: errors %v after %d units, want unit 3's after 4", errs, ran.Load())
	}
}
