package sim

// The heaps behind the bounds (bound.go): each kind of bound key keeps
// the active users in a binary max-heap (boundHeap) that changes only
// between passes; a pass visits it in key order through a frontier, and
// keeps the users it deferred in a slotHeap.

// boundHeap is the active user slots as a binary max-heap of one kind of
// bound key, ties broken by the lower slot; userLists.bpos is each
// slot's index in it.
type boundHeap struct {
	nodes []boundNode
}

// recapKey is a lower key for user slot slot in heap k (evaluate).
type recapKey struct {
	key  float64
	slot int32
	k    int8
}

// boundNode is a user slot and its key in a boundHeap.
type boundNode struct {
	key  float64
	slot int32
}

// higher reports whether node a comes before node b in a boundHeap.
func higher(a, b *boundNode) bool {
	if a.key != b.key {
		return a.key > b.key
	}
	return a.slot < b.slot
}

func (x *prioIndex) heapPush(k int, i int32, key float64) {
	x.heaps[k].nodes = append(x.heaps[k].nodes, boundNode{key: key, slot: i})
	x.heapUp(k, len(x.heaps[k].nodes)-1)
}

// heapRemove removes the node at index m of heap k.
func (x *prioIndex) heapRemove(k, m int) {
	h := x.heaps[k].nodes
	x.users[h[m].slot].bpos[k] = -1
	last := len(h) - 1
	h[m] = h[last]
	x.heaps[k].nodes = h[:last]
	if m < last {
		x.heapFix(k, m)
	}
}

// heapSet sets the key of the node at index m of heap k.
func (x *prioIndex) heapSet(k, m int, key float64) {
	x.heaps[k].nodes[m].key = key
	x.heapFix(k, m)
}

// heapFix restores heap k after the key of the node at index m changed.
func (x *prioIndex) heapFix(k, m int) {
	h := x.heaps[k].nodes
	if m > 0 && higher(&h[m], &h[(m-1)/2]) {
		x.heapUp(k, m)
	} else {
		x.heapDown(k, m)
	}
}

func (x *prioIndex) heapUp(k, m int) {
	h := x.heaps[k].nodes
	v := h[m]
	for m > 0 {
		p := (m - 1) / 2
		if !higher(&v, &h[p]) {
			break
		}
		h[m] = h[p]
		x.users[h[m].slot].bpos[k] = int32(m)
		m = p
	}
	h[m] = v
	x.users[v.slot].bpos[k] = int32(m)
}

func (x *prioIndex) heapDown(k, m int) {
	h := x.heaps[k].nodes
	n := len(h)
	v := h[m]
	for {
		c := 2*m + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && higher(&h[r], &h[c]) {
			c = r
		}
		if !higher(&h[c], &v) {
			break
		}
		h[m] = h[c]
		x.users[h[m].slot].bpos[k] = int32(m)
		m = c
	}
	h[m] = v
	x.users[v.slot].bpos[k] = int32(m)
}

// frontier visits the nodes of a boundHeap in heap order without
// changing it: it holds the indices of the nodes whose parent was
// visited (the root first), as a max-heap by their nodes.
type frontier struct {
	h  *boundHeap
	at []int32
}

// reset starts a visit of h.
func (f *frontier) reset(h *boundHeap) {
	f.h, f.at = h, f.at[:0]
	if len(h.nodes) > 0 {
		f.at = append(f.at, 0)
	}
}

// top returns the first node not visited yet, and false when every node was.
func (f *frontier) top() (*boundNode, bool) {
	if len(f.at) == 0 {
		return nil, false
	}
	return &f.h.nodes[f.at[0]], true
}

// pop visits the first node not visited yet.
func (f *frontier) pop() {
	m := int(f.at[0])
	n := len(f.at) - 1
	f.at[0] = f.at[n]
	f.at = f.at[:n]
	f.down(0)
	for c := 2*m + 1; c <= 2*m+2 && c < len(f.h.nodes); c++ {
		f.at = append(f.at, int32(c))
		f.up(len(f.at) - 1)
	}
}

func (f *frontier) before(a, b int) bool {
	return higher(&f.h.nodes[f.at[a]], &f.h.nodes[f.at[b]])
}

func (f *frontier) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !f.before(i, p) {
			return
		}
		f.at[i], f.at[p] = f.at[p], f.at[i]
		i = p
	}
}

func (f *frontier) down(i int) {
	n := len(f.at)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if r := c + 1; r < n && f.before(r, c) {
			c = r
		}
		if !f.before(c, i) {
			return
		}
		f.at[i], f.at[c] = f.at[c], f.at[i]
		i = c
	}
}

// deferredK is what nextBound returns for the users a pass deferred.
const deferredK = 2

// slotHeap is a max-heap of user slots by bound (ties: lower slot).
type slotHeap struct {
	nodes []boundNode
}

func (h *slotHeap) len() int        { return len(h.nodes) }
func (h *slotHeap) top() *boundNode { return &h.nodes[0] }

func (h *slotHeap) push(key float64, slot int32) {
	h.nodes = append(h.nodes, boundNode{key: key, slot: slot})
	for m := len(h.nodes) - 1; m > 0; {
		p := (m - 1) / 2
		if !higher(&h.nodes[m], &h.nodes[p]) {
			break
		}
		h.nodes[m], h.nodes[p] = h.nodes[p], h.nodes[m]
		m = p
	}
}

func (h *slotHeap) pop() int32 {
	slot := h.nodes[0].slot
	n := len(h.nodes) - 1
	h.nodes[0] = h.nodes[n]
	h.nodes = h.nodes[:n]
	for m := 0; ; {
		c := 2*m + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && higher(&h.nodes[r], &h.nodes[c]) {
			c = r
		}
		if !higher(&h.nodes[c], &h.nodes[m]) {
			break
		}
		h.nodes[m], h.nodes[c] = h.nodes[c], h.nodes[m]
		m = c
	}
	return slot
}
