package sim

import (
	"testing"

	"pgregory.net/rapid"
)

// TestProperty_CrossQueueEqualsHeap: interleaved pushes (mostly in time
// order, some late, many equal times) and pops give the events in
// exactly an eventHeap's order.
func TestProperty_CrossQueueEqualsHeap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q crossQueue
		var h eventHeap
		at := int64(0)
		for i := range rapid.IntRange(0, 3000).Draw(t, "ops") {
			if rapid.IntRange(0, 2).Draw(t, "pop?") == 0 {
				e, ok := q.peek()
				if ok != (len(h) > 0) {
					t.Fatalf("op %d: peek found %v, heap holds %d", i, ok, len(h))
				}
				if !ok {
					continue
				}
				if want := h[0]; e != want {
					t.Fatalf("op %d: peek %+v, heap %+v", i, e, want)
				}
				if got, want := q.pop(), h.pop(); got != want {
					t.Fatalf("op %d: pop %+v, heap %+v", i, got, want)
				}
				continue
			}
			e := event{at: at, seq: uint64(rapid.IntRange(0, 50).Draw(t, "seq"))}
			if rapid.IntRange(0, 4).Draw(t, "late?") == 0 {
				e.at -= rapid.Int64Range(0, 100).Draw(t, "lateness")
			} else {
				at += rapid.Int64Range(0, 3).Draw(t, "gap")
				e.at = at
			}
			e.job = JobID(e.seq)
			q.push(e)
			h.push(e)
		}
		for len(h) > 0 {
			if got, want := q.pop(), h.pop(); got != want {
				t.Fatalf("drain: pop %+v, heap %+v", got, want)
			}
		}
		if _, ok := q.peek(); ok {
			t.Fatalf("queue not empty after the heap")
		}
	})
}
