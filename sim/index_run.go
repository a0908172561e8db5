package sim

import (
	"slices"
)

// endOfRun is endOfKeyRun for list k, remembered across passes (a
// user's capped jobs of one size form one long run, searched for again by
// every pass that evaluates the user otherwise).
func (u *userLists) endOfRun(k uint8, l []entry, m int) int {
	if u.runFrom[k] <= m && m < u.runEnd[k] {
		return u.runEnd[k]
	}
	e := endOfKeyRun(l, m, l[m].key)
	u.runFrom[k], u.runEnd[k] = m, e
	return e
}

// endOfKeyRun returns the end of the run of key from m on in l (sorted by
// key descending): the first index whose key is below it.
func endOfKeyRun(l []entry, m int, key float64) int {
	n, _ := slices.BinarySearchFunc(l[m:], key, func(e entry, k float64) int {
		if e.key >= k {
			return -1
		}
		return 1
	})
	return m + n
}

// trimRun shifts the remembered run of list k after h entries were
// dropped from the list's head.
func (u *userLists) trimRun(k uint8, h int) {
	u.runFrom[k], u.runEnd[k] = max(u.runFrom[k]-h, 0), max(u.runEnd[k]-h, 0)
}

// insertRun keeps the remembered run of list k right after an entry was
// inserted at index i: shifted when i is before it, cleared when i is
// inside it or at its end (the entry may extend it).
func (u *userLists) insertRun(k uint8, i int) {
	switch {
	case i > u.runEnd[k]:
	case i < u.runFrom[k]:
		u.runFrom[k]++
		u.runEnd[k]++
	default:
		u.clearRun(k)
	}
}

// clearRun forgets the remembered run of list k (the list was rebuilt).
func (u *userLists) clearRun(k uint8) { u.runFrom[k], u.runEnd[k] = 0, 0 }
