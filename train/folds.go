package train

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// ErrFolds is wrapped by the error of a cross-validation asking more
// folds than the samples have windows (mirage train --cv, a study's
// budget.cv_folds): a usage error, exit status 3.
var ErrFolds = errors.New("too few windows for the cross-validation folds")

// Fold is one cross-validation split; Train and Test are row indices in
// ascending order.
type Fold struct {
	Train, Test []int
	// TestWindows are the window ids of the test block.
	TestWindows []int32
}

// BlockedFolds splits rows into k blocks of consecutive windows by window
// start (all chain sizes of a window go together). Fold i tests block i
// and trains on the windows whose start is at least gapSec away from
// every window start of block i. Windows in a fold's test block are in no
// other fold's test block. It returns an error if k < 2, there are fewer
// windows than k, or a fold has no training rows.
func BlockedFolds(windowID []int32, windowStart []int64, k int, gapSec int64) ([]Fold, error) {
	if k < 2 {
		return nil, fmt.Errorf("folds: k = %d, want at least 2", k)
	}
	ws, start := sortedWindows(windowID, windowStart)
	if len(ws) < k {
		return nil, fmt.Errorf("%w: %d windows for %d folds", ErrFolds, len(ws), k)
	}
	folds := make([]Fold, k)
	block := map[int32]int{}
	for i, w := range ws {
		b := i * k / len(ws)
		block[w] = b
		folds[b].TestWindows = append(folds[b].TestWindows, w)
	}
	for b := range folds {
		lo, hi := start[folds[b].TestWindows[0]], start[folds[b].TestWindows[len(folds[b].TestWindows)-1]]
		for i, w := range windowID {
			switch s := start[w]; {
			case block[w] == b:
				folds[b].Test = append(folds[b].Test, i)
			case s <= lo-gapSec || s >= hi+gapSec:
				folds[b].Train = append(folds[b].Train, i)
			}
		}
		if len(folds[b].Train) == 0 {
			return nil, fmt.Errorf("%w: fold %d of %d has no training window %s or more from its test windows (%d windows over %s)",
				ErrFolds, b+1, k, time.Duration(gapSec)*time.Second, len(ws), time.Duration(start[ws[len(ws)-1]]-start[ws[0]])*time.Second)
		}
	}
	return folds, nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sortedWindows returns the distinct windows by start (then id) and each
// window's start.
func sortedWindows(windowID []int32, windowStart []int64) ([]int32, map[int32]int64) {
	start := map[int32]int64{}
	for i, w := range windowID {
		start[w] = windowStart[i]
	}
	ws := make([]int32, 0, len(start))
	for w := range start {
		ws = append(ws, w)
	}
	slices.SortFunc(ws, func(a, b int32) int {
		if start[a] != start[b] {
			return cmpInt(start[a], start[b])
		}
		return int(a - b)
	})
	return ws, start
}

// TimeBlocks returns each window's time block: the windows sorted by
// start cut into k blocks of consecutive windows, BlockedFolds' test
// blocks (k < 1 is taken as 1).
func TimeBlocks(windowID []int32, windowStart []int64, k int) map[int32]int {
	k = max(k, 1)
	ws, _ := sortedWindows(windowID, windowStart)
	block := make(map[int32]int, len(ws))
	for i, w := range ws {
		block[w] = i * k / len(ws)
	}
	return block
}
