package pipelines

import (
	"testing"
	"time"
)

func TestProposePeriod_Budget(t *testing.T) {
	day := 24 * time.Hour
	from := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	window := 7 * day
	for _, tc := range []struct {
		name       string
		span       time.Duration
		budget     int
		wantN      int
		wantStride time.Duration
	}{
		{"too short", 6 * day, 100, 0, proposeStride},
		{"one window", window, 100, 1, proposeStride},
		{"under the budget: every 4 h", window + 10*day, 100, 61, proposeStride},
		{"over the budget: a wider stride", window + 1000*day, 100, 100, 242 * time.Hour},
		{"budget 1", window + 10*day, 1, 61, proposeStride},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, stride := proposePeriod(from, from.Add(tc.span), window, tc.budget)
			if n != tc.wantN || stride != tc.wantStride {
				t.Fatalf("proposePeriod = %d windows every %s, want %d every %s", n, stride, tc.wantN, tc.wantStride)
			}
			if tc.budget > 1 && n > tc.budget {
				t.Fatalf("%d windows over the budget %d", n, tc.budget)
			}
			if n > 0 && from.Add(time.Duration(n-1)*stride+window).After(from.Add(tc.span)) {
				t.Fatalf("the last window ends past the period")
			}
		})
	}
	if got := windowBudget(400, 48*3600); got != 400 {
		t.Errorf("windowBudget(400, 48h) = %d", got)
	}
	if got := windowBudget(400, 96*3600); got != 200 {
		t.Errorf("windowBudget(400, 96h) = %d", got)
	}
	if got := windowBudget(400, 10*3600); got != 1920 {
		t.Errorf("windowBudget(400, 10h) = %d", got)
	}
}
