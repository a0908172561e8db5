package sim

import "strings"

// nameBlock is the most bytes of names one block holds.
const nameBlock = 1 << 16

// wholeBlock as nameRef.n marks a name that is a whole block of its own:
// one of wholeBlock bytes or more, or one added by Submit.
const wholeBlock = 1<<16 - 1

// nameRef locates a job's name in a nameTable without a pointer, so that
// the job table holds none and a garbage collection does not scan it.
// The zero value is the empty name.
type nameRef struct {
	block uint32 // index in nameTable.blocks
	off   uint16 // first byte in the block
	n     uint16 // length in bytes, or wholeBlock
}

// nameTable holds the names of a job table in blocks of up to 64 KiB: a
// million names are a few hundred strings, where a string per job was
// what the collections of a 1 M-job replay spent most of their time on
// Blocks are only appended, never changed, so clones share
// the slice (cap-limited, as the job table).
type nameTable struct {
	blocks []string
}

// get returns the name r locates.
func (t *nameTable) get(r nameRef) string {
	switch r.n {
	case 0:
		return ""
	case wholeBlock:
		return t.blocks[r.block]
	}
	return t.blocks[r.block][r.off : int(r.off)+int(r.n)]
}

// addWhole adds name as a block of its own and returns its reference.
// The table's slice is cap-limited afterwards, so that appending to a
// clone's never writes into another's array.
func (t *nameTable) addWhole(name string) nameRef {
	if name == "" {
		return nameRef{}
	}
	t.blocks = append(t.blocks, name)
	t.blocks = t.blocks[:len(t.blocks):len(t.blocks)]
	return nameRef{block: uint32(len(t.blocks) - 1), n: wholeBlock}
}

// nameBuilder fills a nameTable one name at a time.
type nameBuilder struct {
	t    nameTable
	buf  strings.Builder // the block being filled; its index is len(t.blocks)
	size int             // bytes to reserve for a new block
}

// newNameBuilder returns a builder that reserves total bytes (at most a
// block) for its first block: the sum of the names' lengths when known,
// so that a small table takes no more than its names.
func newNameBuilder(total int) *nameBuilder {
	return &nameBuilder{size: min(max(total, 1), nameBlock)}
}

// add copies name into the table and returns where it is.
func (b *nameBuilder) add(name string) nameRef {
	switch {
	case name == "":
		return nameRef{}
	case len(name) >= wholeBlock:
		b.seal()
		return b.t.addWhole(strings.Clone(name))
	case b.buf.Len()+len(name) > nameBlock:
		b.seal()
	}
	if b.buf.Cap() == 0 {
		b.buf.Grow(max(b.size, len(name)))
		b.size = nameBlock
	}
	r := nameRef{block: uint32(len(b.t.blocks)), off: uint16(b.buf.Len()), n: uint16(len(name))}
	b.buf.WriteString(name)
	return r
}

// seal closes the block being filled.
func (b *nameBuilder) seal() {
	if b.buf.Len() > 0 {
		b.t.blocks = append(b.t.blocks, b.buf.String())
		b.buf = strings.Builder{}
	}
}

// table seals the last block and returns the names.
func (b *nameBuilder) table() nameTable {
	b.seal()
	b.t.blocks = b.t.blocks[:len(b.t.blocks):len(b.t.blocks)]
	return b.t
}
