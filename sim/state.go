package sim

import "slices"

// chunkBits sets the copy-on-write granularity of job states.
const (
	chunkBits = 9
	chunkSize = 1 << chunkBits
)

// states holds the jobState of every job in fixed-size chunks shared
// copy-on-write between clones: Clone copies only the chunk pointers, and
// the first write to a shared chunk copies that chunk. Most jobs of a
// long trace are either in the future or done, so forks touch few chunks.
type states struct {
	chunks []*[chunkSize]jobState
	owned  []bool // chunk may be written in place
	n      int
}

func newStates(n int) states {
	var t states
	for range n {
		t.append(jobState{})
	}
	return t
}

// get returns a read-only view of id's state.
func (t *states) get(id JobID) *jobState {
	return &t.chunks[id>>chunkBits][id&(chunkSize-1)]
}

// mut returns id's state for writing, copying its chunk if shared.
func (t *states) mut(id JobID) *jobState {
	c := id >> chunkBits
	if !t.owned[c] {
		cp := *t.chunks[c]
		t.chunks[c] = &cp
		t.owned[c] = true
	}
	return &t.chunks[c][id&(chunkSize-1)]
}

func (t *states) append(st jobState) {
	if t.n&(chunkSize-1) == 0 {
		t.chunks = append(t.chunks, new([chunkSize]jobState))
		t.owned = append(t.owned, true)
	}
	id := JobID(t.n)
	t.n++
	*t.mut(id) = st
}

// fork returns a copy sharing every chunk; both sides copy on write.
func (t *states) fork() states {
	for i := range t.owned {
		t.owned[i] = false
	}
	return states{chunks: slices.Clone(t.chunks), owned: make([]bool, len(t.owned)), n: t.n}
}
