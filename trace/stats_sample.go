package trace

import (
	"slices"
	"time"
)

// sampleFlushMin is the fewest values a durationSample buffers before it
// merges them into its run-length list (128 KiB of buffer).
const sampleFlushMin = 1 << 14

// durationSample accumulates a sample of durations for Quantiles in memory
// proportional to the number of distinct values, not of values: new values
// go to an unsorted buffer, which is sorted and merged into a sorted
// run-length list (distinct value, count) whenever it holds max(flushMin,
// len(vals)/4) values. Values are kept exactly (nanoseconds), so the
// quantiles and the mean are those QuantilesOf gives on the same values in
// seconds, bit for bit. The zero value is an empty sample.
type durationSample struct {
	vals     []time.Duration // distinct merged values, ascending
	counts   []int64         // counts[k]: occurrences of vals[k], >= 1
	buf      []time.Duration // values not merged yet, unsorted
	n        int64           // values added, merged or not
	flushMin int             // 0 means sampleFlushMin; tests set small ones
}

// add adds d to the sample.
func (s *durationSample) add(d time.Duration) {
	s.buf = append(s.buf, d)
	s.n++
	limit := s.flushMin
	if limit == 0 {
		limit = sampleFlushMin
	}
	if len(s.buf) >= max(limit, len(s.vals)/4) {
		s.flush()
	}
}

// flush sorts the buffer and merges it into vals and counts, in place from
// the back, growing them by the number of new distinct values.
func (s *durationSample) flush() {
	if len(s.buf) == 0 {
		return
	}
	buf := s.buf
	slices.Sort(buf)
	// New distinct values: those of buf not in vals.
	added, i := 0, 0
	for j := 0; j < len(buf); j++ {
		if j > 0 && buf[j] == buf[j-1] {
			continue
		}
		for i < len(s.vals) && s.vals[i] < buf[j] {
			i++
		}
		if i == len(s.vals) || s.vals[i] != buf[j] {
			added++
		}
	}
	old := len(s.vals)
	s.vals = slices.Grow(s.vals, added)[:old+added]
	s.counts = slices.Grow(s.counts, added)[:old+added]
	i, k := old-1, old+added-1
	for j := len(buf) - 1; j >= 0; {
		v, c := buf[j], int64(0)
		for ; j >= 0 && buf[j] == v; j-- {
			c++
		}
		for ; i >= 0 && s.vals[i] > v; i, k = i-1, k-1 {
			s.vals[k], s.counts[k] = s.vals[i], s.counts[i]
		}
		if i >= 0 && s.vals[i] == v {
			c += s.counts[i]
			i--
		}
		s.vals[k], s.counts[k] = v, c
		k--
	}
	s.buf = buf[:0]
}

// clone returns a copy of s that shares no memory with it.
func (s *durationSample) clone() durationSample {
	c := *s
	c.vals = slices.Clone(s.vals)
	c.counts = slices.Clone(s.counts)
	c.buf = slices.Clone(s.buf)
	return c
}

// quantiles returns QuantilesOf the sample in seconds. The mean adds each
// value's seconds once per occurrence in ascending order, the order in
// which QuantilesOf sums its sorted values, so it is the same float64.
func (s *durationSample) quantiles() Quantiles {
	s.flush()
	if s.n == 0 {
		return Quantiles{}
	}
	cum := make([]int64, len(s.counts)) // cum[k]: values up to vals[k]
	n := int64(0)
	sum := 0.0
	for k, c := range s.counts {
		n += c
		cum[k] = n
		sec := s.vals[k].Seconds()
		for range c {
			sum += sec
		}
	}
	at := func(i int) float64 {
		k, _ := slices.BinarySearch(cum, int64(i)+1)
		return s.vals[k].Seconds()
	}
	return Quantiles{
		N:    n,
		P50:  quantile(0.50, int(n), at),
		P75:  quantile(0.75, int(n), at),
		P90:  quantile(0.90, int(n), at),
		P99:  quantile(0.99, int(n), at),
		Mean: sum / float64(n),
	}
}
