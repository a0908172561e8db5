package sim

// eventKind orders events at the same time: nodes are freed and capacity
// changes before new jobs arrive, and jobs become eligible last; the
// scheduling passes run after all events of a timestamp.
type eventKind uint8

const (
	eventJobEnd eventKind = iota
	eventJobLeave
	eventCapacity
	eventJobSubmit
	eventJobEligible
)

// event is a small value; the heap orders (at, kind, seq) totally.
type event struct {
	at   int64 // Unix seconds
	seq  uint64
	job  JobID // or capacity step index
	kind eventKind
}

func (a *event) less(b *event) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.seq < b.seq
}

// eventHeap is a typed binary min-heap (no interface boxing).
type eventHeap []event

func (h *eventHeap) push(e event) {
	*h = append(*h, e)
	q := *h
	i := len(q) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !q[i].less(&q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (h *eventHeap) pop() event {
	q := *h
	top := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q = q[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && q[r].less(&q[l]) {
			m = r
		}
		if !q[m].less(&q[i]) {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	*h = q
	return top
}
