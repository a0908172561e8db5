package synth

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestClock_AppendLocal(t *testing.T) {
	for _, name := range []string{"UTC", "America/Chicago", "Asia/Kolkata", "Australia/Lord_Howe", "Europe/Dublin", "America/Sao_Paulo"} {
		t.Run(name, func(t *testing.T) {
			loc, err := time.LoadLocation(name)
			if err != nil {
				t.Fatal(err)
			}
			c := newClock(loc)
			r := rand.New(rand.NewPCG(1, 2))
			lo := time.Date(1971, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
			hi := time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
			check := func(u int64) {
				t.Helper()
				got := string(c.appendLocal(nil, u))
				if want := time.Unix(u, 0).In(loc).Format("2006-01-02T15:04:05"); got != want {
					t.Fatalf("appendLocal(%d) = %s, want %s", u, got, want)
				}
			}
			for range 5000 {
				check(lo + r.Int64N(hi-lo))
			}
			// Walk across several years in uneven steps, through every DST
			// change, as the generator does.
			for u := time.Date(2022, 10, 1, 0, 0, 0, 0, time.UTC).Unix(); u < time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix(); u += 1 + r.Int64N(7200) {
				check(u)
			}
		})
	}
}

func TestCivilFromDays(t *testing.T) {
	for d := int64(-800000); d < 3000000; d += 37 {
		y, m, dd := civilFromDays(d)
		want := time.Unix(d*86400, 0).UTC()
		if int(y) != want.Year() || time.Month(m) != want.Month() || int(dd) != want.Day() {
			t.Fatalf("civilFromDays(%d) = %d-%d-%d, want %s", d, y, m, dd, want.Format(time.DateOnly))
		}
	}
}

func TestAlias_Draw(t *testing.T) {
	weights := []float64{79.5, 7.2, 3.4, 7.2, 0.3, 0.75, 0.35, 1.1, 0.05, 0.016, 0}
	a := newAlias(weights)
	r := rand.New(rand.NewPCG(3, 4))
	const n = 2_000_000
	counts := make([]float64, len(weights))
	for range n {
		counts[a.draw(r)]++
	}
	var sum float64
	for _, w := range weights {
		sum += w
	}
	for i, w := range weights {
		p := w / sum
		sd := math.Sqrt(p*(1-p)/n) + 1e-9
		if got := counts[i] / n; math.Abs(got-p) > 5*sd {
			t.Errorf("index %d: frequency %.5f, want %.5f", i, got, p)
		}
	}
}

// TestNodes_Place checks the scheduler's invariants on random jobs: no
// start before eligibility, never more than the nodes busy at once, and a
// job that fits at once starts at once.
func TestNodes_Place(t *testing.T) {
	const size = 7
	r := rand.New(rand.NewPCG(5, 6))
	s := newNodes(size, 0)
	var jobs []placed
	var now int64
	for range 5000 {
		now += r.Int64N(50)
		n := 1 + r.IntN(size)
		if r.IntN(4) > 0 {
			n = 1
		}
		eligible := now + r.Int64N(3)*r.Int64N(100)
		run := 1 + r.Int64N(400)
		// Free nodes at eligible, counted from the jobs so far.
		busy := int64(0)
		for _, j := range jobs {
			if j.start <= eligible && eligible < j.end {
				busy += j.n
			}
		}
		want := s.earliest(n, eligible)
		start := s.place(n, eligible, run)
		if start != want {
			t.Fatalf("place = %d, earliest said %d", start, want)
		}
		if start < eligible {
			t.Fatalf("start %d before eligible %d", start, eligible)
		}
		if fitsNow := size-busy >= int64(n); fitsNow && start != eligible && allFreeAfter(jobs, eligible, n, size) {
			t.Fatalf("job of %d nodes eligible at %d with all nodes free for good started at %d", n, eligible, start)
		}
		jobs = append(jobs, placed{start, start + run, int64(n)})
	}
	type edge struct{ at, d int64 }
	var edges []edge
	for _, j := range jobs {
		edges = append(edges, edge{j.start, j.n}, edge{j.end, -j.n})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if a.at != b.at {
			return int(a.at - b.at)
		}
		return int(a.d - b.d)
	})
	var busy int64
	for _, e := range edges {
		if busy += e.d; busy > size {
			t.Fatalf("%d nodes busy at %d", busy, e.at)
		}
	}
}

// placed is a job placed by the scheduler.
type placed struct{ start, end, n int64 }

// allFreeAfter reports whether at least n nodes have no job ending after
// t, so the greedy scheduler must start a job of n nodes at t.
func allFreeAfter(jobs []placed, t int64, n, size int) bool {
	var later int64
	for _, j := range jobs {
		if j.end > t {
			later += j.n
		}
	}
	return int64(size)-later >= int64(n)
}
