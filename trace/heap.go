package trace

// selectHeap is the replacement-selection heap: a typed min-heap of jobs
// ordered by (run, compareJobs, seq). Jobs live in a slab that never
// moves; the heap orders indices into it.
type selectHeap struct {
	slab []selectItem
	idx  []int32
}

type selectItem struct {
	job Job
	run int
	seq uint64
}

func (h *selectHeap) len() int { return len(h.idx) }

func (h *selectHeap) less(a, b int32) bool {
	x, y := &h.slab[a], &h.slab[b]
	if x.run != y.run {
		return x.run < y.run
	}
	if c := compareJobs(&x.job, &y.job); c != 0 {
		return c < 0
	}
	return x.seq < y.seq
}

func (h *selectHeap) push(j *Job, run int, seq uint64) {
	h.slab = append(h.slab, selectItem{job: *j, run: run, seq: seq})
	h.idx = append(h.idx, int32(len(h.slab)-1))
	h.up(len(h.idx) - 1)
}

// top returns the smallest job and its run.
func (h *selectHeap) top() (*Job, int) {
	it := &h.slab[h.idx[0]]
	return &it.job, it.run
}

// replaceTop overwrites the smallest entry with j and restores the heap.
func (h *selectHeap) replaceTop(j *Job, run int, seq uint64) {
	it := &h.slab[h.idx[0]]
	it.job, it.run, it.seq = *j, run, seq
	h.down(0)
}

func (h *selectHeap) pop() {
	n := len(h.idx) - 1
	h.idx[0] = h.idx[n]
	h.idx = h.idx[:n]
	if n > 0 {
		h.down(0)
	}
}

func (h *selectHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.idx[i], h.idx[p]) {
			return
		}
		h.idx[i], h.idx[p] = h.idx[p], h.idx[i]
		i = p
	}
}

func (h *selectHeap) down(i int) {
	n := len(h.idx)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(h.idx[r], h.idx[l]) {
			m = r
		}
		if !h.less(h.idx[m], h.idx[i]) {
			return
		}
		h.idx[i], h.idx[m] = h.idx[m], h.idx[i]
		i = m
	}
}

// mergeHeap orders the heads of sorted runs by (compareJobs, run index).
type mergeHeap struct{ items []mergeItem }

type mergeItem struct {
	job *Job
	src *runReader
}

func (h *mergeHeap) len() int { return len(h.items) }

func (h *mergeHeap) less(i, j int) bool {
	if c := compareJobs(h.items[i].job, h.items[j].job); c != 0 {
		return c < 0
	}
	return h.items[i].src.idx < h.items[j].src.idx
}

func (h *mergeHeap) push(it mergeItem) {
	h.items = append(h.items, it)
	i := len(h.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *mergeHeap) pop() {
	n := len(h.items) - 1
	h.items[0] = h.items[n]
	h.items = h.items[:n]
	if n > 0 {
		h.fix0()
	}
}

func (h *mergeHeap) fix0() {
	n := len(h.items)
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
}
