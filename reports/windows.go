package reports

import (
	"slices"

	"github.com/mirage-hpc/mirage/evaluate"
)

// chainWindows is one chain size's validation windows, in window order,
// with each policy's outcome per window.
type chainWindows struct {
	Nodes int
	// Window and Start are the windows' indices and start times (Unix
	// seconds); Load is each window's load class.
	Window []int
	Start  []int64
	Load   []string
	// ReactiveRSec is the reactive policy's r per window (seconds).
	ReactiveRSec []int64
	// RSec maps a policy to its r per window (seconds); a policy missing
	// from a window is absent from the map (policies are replayed on
	// every window of a chain size).
	RSec map[string][]int64
}

// groupWindows splits rows by chain size (ascending) and aligns every
// policy's r on the windows. Policies that lack some window of their
// chain size are left out of that size.
func groupWindows(rows []evaluate.Row) []chainWindows {
	var out []chainWindows
	for _, n := range evaluate.ChainSizes(rows) {
		cw := chainWindows{Nodes: n, RSec: map[string][]int64{}}
		pos := map[int]int{}
		for _, r := range rows {
			if r.ChainNodes != n {
				continue
			}
			if _, ok := pos[r.Window]; !ok {
				pos[r.Window] = len(cw.Window)
				cw.Window = append(cw.Window, r.Window)
				cw.Start = append(cw.Start, r.WindowStart)
				cw.ReactiveRSec = append(cw.ReactiveRSec, r.ReactiveRSec)
			}
		}
		// Sort windows by index, keeping the parallel slices aligned.
		order := make([]int, len(cw.Window))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return cw.Window[a] - cw.Window[b] })
		w, s, rr := slices.Clone(cw.Window), slices.Clone(cw.Start), slices.Clone(cw.ReactiveRSec)
		for i, k := range order {
			cw.Window[i], cw.Start[i], cw.ReactiveRSec[i] = w[k], s[k], rr[k]
			pos[w[k]] = i
		}
		cw.Load = make([]string, len(cw.Window))
		for i, r := range cw.ReactiveRSec {
			cw.Load[i] = evaluate.LoadClass(r)
		}
		seen := map[string][]bool{}
		for _, r := range rows {
			if r.ChainNodes != n {
				continue
			}
			v, ok := cw.RSec[r.Policy]
			if !ok {
				v = make([]int64, len(cw.Window))
				cw.RSec[r.Policy] = v
				seen[r.Policy] = make([]bool, len(cw.Window))
			}
			v[pos[r.Window]] = r.RSec
			seen[r.Policy][pos[r.Window]] = true
		}
		for p, s := range seen {
			if slices.Contains(s, false) {
				delete(cw.RSec, p)
			}
		}
		out = append(out, cw)
	}
	return out
}

// subset returns the indices of the windows of load class c ("" = all).
func (cw *chainWindows) subset(c string) []int {
	var idx []int
	for i, l := range cw.Load {
		if c == "" || l == c {
			idx = append(idx, i)
		}
	}
	return idx
}

// hours maps r (seconds) through f for the windows idx.
func hours(r []int64, idx []int, f func(int64) float64) []float64 {
	out := make([]float64, len(idx))
	for k, i := range idx {
		out[k] = f(r[i])
	}
	return out
}

// signedH is r in hours.
func signedH(r int64) float64 { return float64(r) / 3600 }
