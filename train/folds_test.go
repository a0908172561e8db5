package train

import "testing"

func TestBlockedFolds(t *testing.T) {
	const windows, chains = 60, 2
	var wid []int32
	var ws []int64
	for c := range chains {
		_ = c
		for w := range windows {
			for range 3 {
				wid = append(wid, int32(w))
				ws = append(ws, int64(w)*4*3600)
			}
		}
	}
	gap := int64(7 * 24 * 3600) // 42 windows: long enough to starve a fold
	if _, err := BlockedFolds(wid, ws, 5, gap); err == nil {
		t.Error("want an error when a fold has no training windows")
	}
	gap = 24 * 3600
	folds, err := BlockedFolds(wid, ws, 5, gap)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int32]int{}
	for k, f := range folds {
		for _, w := range f.TestWindows {
			if prev, ok := seen[w]; ok {
				t.Fatalf("window %d in folds %d and %d", w, prev, k)
			}
			seen[w] = k
		}
		for _, tr := range f.Train {
			for _, te := range f.Test {
				d := ws[tr] - ws[te]
				if d < 0 {
					d = -d
				}
				if d < gap {
					t.Fatalf("fold %d: train row %d and test row %d only %d s apart", k, tr, te, d)
				}
			}
		}
	}
	if len(seen) != windows {
		t.Errorf("%d windows tested, want %d", len(seen), windows)
	}
}
