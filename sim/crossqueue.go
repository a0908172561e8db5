package sim

// crossQueue holds the uncapped jobs by when they reach the age cap,
// ordered as an eventHeap orders them (time, then job). Crossing times
// are mostly queued in order (a job's age starts when it is queued), so
// events that come at or after the last in-order one go to a FIFO, O(1)
// each, and only the others to a heap; pop takes the smaller front.
type crossQueue struct {
	fifo []event // non-decreasing; fifo[head:] are queued
	head int
	late eventHeap // events that came before the FIFO's last
}

func (q *crossQueue) push(e event) {
	if n := len(q.fifo); n == q.head || !e.less(&q.fifo[n-1]) {
		if q.head > 0 && q.head == n { // empty: reuse the space
			q.fifo, q.head = q.fifo[:0], 0
		}
		q.fifo = append(q.fifo, e)
		return
	}
	q.late.push(e)
}

// peek returns the first event, and false when the queue is empty.
func (q *crossQueue) peek() (event, bool) {
	hasF, hasL := q.head < len(q.fifo), len(q.late) > 0
	switch {
	case hasF && (!hasL || !q.late[0].less(&q.fifo[q.head])):
		return q.fifo[q.head], true
	case hasL:
		return q.late[0], true
	}
	return event{}, false
}

// pop removes and returns the first event; the queue must not be empty.
func (q *crossQueue) pop() event {
	if q.head < len(q.fifo) && (len(q.late) == 0 || !q.late[0].less(&q.fifo[q.head])) {
		e := q.fifo[q.head]
		q.head++
		if q.head >= 1024 && 2*q.head >= len(q.fifo) { // drop the consumed half
			q.fifo = q.fifo[:copy(q.fifo, q.fifo[q.head:])]
			q.head = 0
		}
		return e
	}
	return q.late.pop()
}
