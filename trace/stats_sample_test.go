package trace

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// sampleQuantiles adds ds to a durationSample that merges every flushMin
// values (0: the default) and returns its quantiles.
func sampleQuantiles(ds []time.Duration, flushMin int) (Quantiles, *durationSample) {
	s := &durationSample{flushMin: flushMin}
	for _, d := range ds {
		s.add(d)
	}
	return s.quantiles(), s
}

// secondsOf returns ds in seconds, as ComputeStats took them before it
// kept a durationSample.
func secondsOf(ds []time.Duration) []float64 {
	x := make([]float64, len(ds))
	for i, d := range ds {
		x[i] = d.Seconds()
	}
	return x
}

// checkSample checks that a durationSample of ds, at several flush sizes,
// has exactly (bit for bit) the Quantiles QuantilesOf gives on the same
// values in seconds, and a valid run-length list.
func checkSample(t *testing.T, ds []time.Duration) {
	t.Helper()
	want := QuantilesOf(secondsOf(ds))
	for _, flushMin := range []int{1, 2, 3, 7, 64, 0} {
		got, s := sampleQuantiles(ds, flushMin)
		if !sameQuantiles(got, want) {
			t.Fatalf("flushMin %d, %d values %v\n got: %+v\nwant: %+v", flushMin, len(ds), abbrev(ds), got, want)
		}
		if len(s.buf) != 0 || len(s.vals) != len(s.counts) || !slices.IsSorted(s.vals) {
			t.Fatalf("flushMin %d: buf %d, vals %d, counts %d, sorted %v", flushMin,
				len(s.buf), len(s.vals), len(s.counts), slices.IsSorted(s.vals))
		}
		distinct := slices.Compact(slices.Sorted(slices.Values(ds)))
		if !slices.Equal(s.vals, distinct) {
			t.Fatalf("flushMin %d: vals %v, want the distinct values %v", flushMin, abbrev(s.vals), abbrev(distinct))
		}
		for k, c := range s.counts {
			if c < 1 {
				t.Fatalf("flushMin %d: counts[%d] = %d", flushMin, k, c)
			}
		}
	}
}

// sameQuantiles compares bit for bit: == would take -0 for 0.
func sameQuantiles(a, b Quantiles) bool {
	same := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	return a.N == b.N && same(a.P50, b.P50) && same(a.P75, b.P75) && same(a.P90, b.P90) &&
		same(a.P99, b.P99) && same(a.Mean, b.Mean)
}

func abbrev(ds []time.Duration) []time.Duration {
	if len(ds) > 20 {
		return ds[:20]
	}
	return ds
}

func TestDurationSample_Quantiles(t *testing.T) {
	s, ms := time.Second, time.Millisecond
	tests := []struct {
		Name string
		Ds   []time.Duration
	}{
		{"Empty", nil},
		{"One", []time.Duration{7 * s}},
		{"Zero", []time.Duration{0}},
		{"Two", []time.Duration{2250 * ms, 1500 * ms}},
		{"Unsorted", []time.Duration{10 * s, s, 4 * s, 3 * s, 2 * s}},
		{"Negative", []time.Duration{3500 * ms, 0, -s, -5 * s, -1, -999_999_999, -1_000_000_001}},
		{"SubSecond", []time.Duration{1, 2, 999_999_999, 1_000_000_001, 333 * ms, 333*ms + 1, 7 * ms}},
		{"Ties", []time.Duration{5 * s, 5 * s, 5 * s, 5 * s}},
		{"Waits", []time.Duration{0, 0, 0, 0, 25 * s, 25 * s, 60 * s, 4758 * s, 42897 * s, 172776 * s}},
		{"Extremes", []time.Duration{math.MaxInt64, math.MinInt64, 0, math.MaxInt64, math.MinInt64 + 1, 1 << 62}},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) { checkSample(t, tt.Ds) })
	}
}

// TestDurationSample_Random is a property test: on random samples (sizes
// 0-5000; whole seconds, milliseconds or nanoseconds; few or many distinct
// values; negative waits; sorted, reversed or shuffled) a durationSample
// gives the Quantiles of QuantilesOf, bit for bit.
func TestDurationSample_Random(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 11))
	units := []time.Duration{time.Second, time.Millisecond, 1}
	for i := range 400 {
		n := r.IntN(50)
		if i%4 == 0 {
			n = r.IntN(5000)
		}
		unit := units[r.IntN(len(units))]
		span := []int64{1, 3, 100, 86400, 1 << 40}[r.IntN(5)]
		neg := r.IntN(3) == 0
		ds := make([]time.Duration, n)
		for k := range ds {
			v := r.Int64N(span)
			if r.IntN(10) == 0 {
				v = int64(math.Exp(r.Float64() * 20)) // heavy tail
			}
			if neg && r.IntN(4) == 0 {
				v = -v
			}
			ds[k] = time.Duration(v) * unit
		}
		switch r.IntN(3) {
		case 0:
			slices.Sort(ds)
		case 1:
			slices.Sort(ds)
			slices.Reverse(ds)
		}
		checkSample(t, ds)
	}
}

// TestDurationSample_Clone checks that a clone and its original grow
// apart: adding to one changes nothing in the other.
func TestDurationSample_Clone(t *testing.T) {
	a := &durationSample{flushMin: 2}
	for _, d := range []time.Duration{5, 3, 5, 1, 9} { // two merges, one buffered
		a.add(d * time.Second)
	}
	c := a.clone()
	for _, d := range []time.Duration{2, 2, 5, 7} {
		c.add(d * time.Second)
	}
	a.add(4 * time.Second)
	got, want := a.quantiles(), QuantilesOf([]float64{5, 3, 5, 1, 9, 4})
	if !sameQuantiles(got, want) {
		t.Errorf("original\n got: %+v\nwant: %+v", got, want)
	}
	got, want = c.quantiles(), QuantilesOf([]float64{5, 3, 5, 1, 9, 2, 2, 5, 7})
	if !sameQuantiles(got, want) {
		t.Errorf("clone\n got: %+v\nwant: %+v", got, want)
	}
}

// TestDurationSample_Memory checks that the sample holds the distinct
// values, not every value: a million values among 1,000 distinct ones
// keep a list of 1,000 and a buffer of at most sampleFlushMin.
func TestDurationSample_Memory(t *testing.T) {
	var s durationSample
	for i := range 1_000_000 {
		s.add(time.Duration(i*7919%1000) * time.Second)
		if len(s.vals) > 1000 || len(s.buf) > sampleFlushMin {
			t.Fatalf("after %d values: %d distinct kept, %d buffered", i+1, len(s.vals), len(s.buf))
		}
	}
	if q := s.quantiles(); q.N != 1_000_000 || q.P50 != 499.5 || len(s.vals) != 1000 {
		t.Errorf("quantiles %+v, %d distinct; want n 1e6, p50 499.5, 1000 distinct", q, len(s.vals))
	}
}

func BenchmarkDurationSample(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	ds := make([]time.Duration, 1_000_000)
	for i := range ds {
		ds[i] = time.Duration(int64(math.Exp(r.Float64()*12))) * time.Second // ~160 k distinct
	}
	b.ReportAllocs()
	for b.Loop() {
		s := durationSample{}
		for _, d := range ds {
			s.add(d)
		}
		s.quantiles()
	}
}
