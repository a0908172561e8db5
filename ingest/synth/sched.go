package synth

// nodes is the scheduler: a min-heap of the times (Unix seconds) at which
// each node becomes free for good, given the jobs placed so far.
//
// Jobs are placed one at a time in submit order. A job of n nodes takes
// the n nodes that free up first and starts when the last of them is free
// (and not before it is eligible); those nodes are then busy until the
// job ends. Earlier jobs are never moved, so a job's start is known when
// it is submitted and the output can be streamed. This is first-come
// first-served with a limited, clairvoyant backfill: a small job may
// start before an earlier large job that is still waiting for nodes, on
// nodes the large job did not take, but never in the idle gap a waiting
// large job leaves on its own nodes. Each placement costs O(n log Nodes).
type nodes struct {
	free    []int64
	scratch []int64
}

func newNodes(n int, t0 int64) *nodes {
	s := &nodes{free: make([]int64, n), scratch: make([]int64, 0, n)}
	for i := range s.free {
		s.free[i] = t0
	}
	return s
}

// place allocates n nodes (1 <= n <= len(free)) to a job that may start at
// eligible and runs for run seconds, and returns its start.
func (s *nodes) place(n int, eligible, run int64) int64 {
	popped := s.scratch[:0]
	for range n - 1 {
		popped = append(popped, s.pop())
	}
	start := max(eligible, s.free[0])
	end := start + run
	s.free[0] = end
	s.down(0)
	for range popped {
		s.push(end)
	}
	return start
}

// earliest returns when a job of n nodes eligible at eligible would start,
// without placing it.
func (s *nodes) earliest(n int, eligible int64) int64 {
	popped := s.scratch[:0]
	for range n - 1 {
		popped = append(popped, s.pop())
	}
	start := max(eligible, s.free[0])
	for _, t := range popped {
		s.push(t)
	}
	return start
}

func (s *nodes) pop() int64 {
	h := s.free
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	s.free = h[:last]
	s.down(0)
	return top
}

func (s *nodes) push(t int64) {
	s.free = append(s.free, t)
	s.up(len(s.free) - 1)
}

func (s *nodes) up(i int) {
	h := s.free
	x := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if h[p] <= x {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
}

func (s *nodes) down(i int) {
	h := s.free
	n := len(h)
	x := h[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h[r] < h[c] {
			c = r
		}
		if x <= h[c] {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = x
}
