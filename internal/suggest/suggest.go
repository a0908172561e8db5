// Package suggest finds the names a mistyped one was probably meant to
// be, for "did you mean …?" hints in error messages.
package suggest

import "strings"

// Closest returns the options nearest to name: those within an edit
// distance of max(2, len(name)/3) (insertions, deletions, substitutions
// and adjacent transpositions, case-insensitive), or that name is a
// prefix of, nearest first and in the options' order among equals. It
// returns nil for an exact match or when none is near.
func Closest(name string, options []string) []string {
	n := strings.ToLower(name)
	limit := max(2, len(n)/3)
	best := limit + 1
	var out []string
	for _, o := range options {
		lo := strings.ToLower(o)
		if lo == n {
			return nil
		}
		d := Distance(n, lo)
		if d > limit && len(n) >= 3 && strings.HasPrefix(lo, n) {
			d = limit
		}
		switch {
		case d < best:
			best, out = d, []string{o}
		case d == best:
			out = append(out, o)
		}
	}
	return out
}

// Hint is "; did you mean A or B?" for Closest's answer, or "".
func Hint(name string, options []string) string {
	c := Closest(name, options)
	if len(c) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(c, " or ") + "?"
}

// Distance is the optimal-string-alignment edit distance between a and
// b, counted in bytes: insertions, deletions, substitutions and
// transpositions of adjacent bytes each cost 1.
func Distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
