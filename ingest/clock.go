package ingest

import (
	"fmt"
	"time"
)

// localTime is a parsed time field. When the text named a local wall-clock
// time that occurs twice (DST fall-back), alt holds the second instant;
// otherwise alt == sec. known is false for Unknown, None and empty fields.
type localTime struct {
	sec   int64 // UTC Unix seconds (first occurrence)
	alt   int64 // second occurrence, or sec
	known bool
}

func (t localTime) ambiguous() bool { return t.alt != t.sec }

func (t localTime) time() time.Time {
	if !t.known {
		return time.Time{}
	}
	return time.Unix(t.sec, 0).UTC()
}

// zone converts local civil times to UTC, caching the offset per local
// hour. The zero value converts nothing (UTC); it is not safe for
// concurrent use.
type zone struct {
	loc   *time.Location
	cache [512]zoneEntry

	hour isoHour // for parseTime
}

// isoHour caches the last "YYYY-MM-DDTHH" prefix parsed in one column, so
// that times in the same hour need only their minutes and seconds parsed,
// and no zone lookup. It holds only hours whose UTC offset is fixed.
type isoHour struct {
	text  [13]byte
	civil int64 // civil seconds of the hour's start
	off   int64 // UTC offset valid for the whole hour
	ok    bool
}

type zoneEntry struct {
	hour int64 // civil hour number (hours since 1970-01-01T00 local)
	off  int64 // UTC offset in seconds valid for the whole hour
	ok   bool  // the entry is filled
}

func newZone(loc *time.Location) *zone {
	if loc == time.UTC {
		loc = nil
	}
	return &zone{loc: loc}
}

func (z *zone) name() string {
	if z.loc == nil {
		return "UTC"
	}
	return z.loc.String()
}

func (z *zone) offsetAt(u int64) int64 {
	_, off := time.Unix(u, 0).In(z.loc).Zone()
	return int64(off)
}

// Offsets span at most UTC-12 .. UTC+14, so the instant a civil time c
// names lies in [c-14h, c+12h].
const (
	maxEast = 14 * 3600
	maxWest = 12 * 3600
)

// resolve converts civil seconds c (the local wall clock read as if it were
// UTC) to UTC. It returns the first and second instants when c occurs
// twice, and ok=false when c does not exist (a DST gap).
func (z *zone) resolve(c int64) (first, second int64, ok bool) {
	if z.loc == nil {
		return c, c, true
	}
	if off, ok := z.hourOffset(floorDiv(c, 3600)); ok {
		return c - off, c - off, true
	}
	// A transition is near: test both candidate offsets.
	offA, offB := z.offsetAt(c-maxEast), z.offsetAt(c+maxWest)
	uA, uB := c-offA, c-offB
	okA, okB := z.offsetAt(uA) == offA, z.offsetAt(uB) == offB
	switch {
	case okA && okB && uA != uB:
		return min(uA, uB), max(uA, uB), true
	case okA:
		return uA, uA, true
	case okB:
		return uB, uB, true
	}
	return 0, 0, false
}

// hourOffset returns the UTC offset of every civil time in civil hour h
// (hours since 1970-01-01T00 local), and false when a transition is near
// enough that the offset may differ within it.
func (z *zone) hourOffset(h int64) (int64, bool) {
	if z.loc == nil {
		return 0, true
	}
	e := &z.cache[h&int64(len(z.cache)-1)]
	if e.ok && e.hour == h {
		return e.off, true
	}
	// An hour is cacheable when the offset is the same at both ends of the
	// range of instants any of its civil times can name.
	lo, hi := z.offsetAt(h*3600-maxEast), z.offsetAt(h*3600+3599+maxWest)
	if lo != hi {
		return 0, false
	}
	e.hour, e.off, e.ok = h, lo, true
	return lo, true
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// daysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian
// date (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

var daysIn = [13]int64{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// parseTime parses a sacct time field: YYYY-MM-DDTHH:MM:SS (or with a
// space for T) in the zone, or Unix epoch seconds (SLURM_TIME_FORMAT=%s).
// "Unknown", "None" and "" (and "N/A") give an unknown time. An instant
// (in UTC) outside the years MinYear..MaxYear is ErrBadTime: in particular
// 0001-01-01T00:00:00 is a bad time, not an unknown one (it would otherwise
// read as the zero time.Time, "never ran").
func (z *zone) parseTime(b []byte) (localTime, error) { return z.parseTimeIn(b, &z.hour) }

// parseTimeIn is parseTime with the hour cache of one column.
func (z *zone) parseTimeIn(b []byte, h *isoHour) (localTime, error) {
	switch len(b) {
	case 0:
		return localTime{}, nil
	case 19:
		if b[4] == '-' && b[7] == '-' && (b[10] == 'T' || b[10] == ' ') && b[13] == ':' && b[16] == ':' {
			return z.parseISO(b, h)
		}
	}
	if isDigits(b) && len(b) <= 12 {
		var u int64
		for _, c := range b {
			u = u*10 + int64(c-'0')
		}
		if err := checkUnix(u); err != nil {
			return localTime{}, fmt.Errorf("%w (epoch seconds %s)", err, b)
		}
		return localTime{sec: u, alt: u, known: true}, nil
	}
	switch string(b) {
	case "Unknown", "None", "N/A", "NONE", "UNKNOWN":
		return localTime{}, nil
	}
	return localTime{}, fmt.Errorf("%w: %q (want YYYY-MM-DDTHH:MM:SS, epoch seconds, Unknown or None)", ErrBadTime, b)
}

func (z *zone) parseISO(b []byte, hc *isoHour) (localTime, error) {
	if hc.ok && string(b[:13]) == string(hc.text[:]) {
		mi, ok1 := digits2(b[14], b[15])
		s, ok2 := digits2(b[17], b[18])
		if ok1 && ok2 && mi <= 59 && s <= 59 {
			u := hc.civil + mi*60 + s - hc.off
			if u < minUnix || u > maxUnix {
				return localTime{}, fmt.Errorf("%w: %q: %w", ErrBadTime, b, yearError(u))
			}
			return localTime{sec: u, alt: u, known: true}, nil
		}
	}
	var v [6]int64
	pos := [6][2]int{{0, 4}, {5, 7}, {8, 10}, {11, 13}, {14, 16}, {17, 19}}
	for i, p := range pos {
		n := int64(0)
		for _, c := range b[p[0]:p[1]] {
			if c < '0' || c > '9' {
				return localTime{}, fmt.Errorf("%w: %q", ErrBadTime, b)
			}
			n = n*10 + int64(c-'0')
		}
		v[i] = n
	}
	y, mo, d, h, mi, s := v[0], v[1], v[2], v[3], v[4], v[5]
	if mo < 1 || mo > 12 || d < 1 || d > daysIn[mo] || h > 23 || mi > 59 || s > 60 {
		return localTime{}, fmt.Errorf("%w: %q is out of range", ErrBadTime, b)
	}
	if mo == 2 && d == 29 && !(y%4 == 0 && (y%100 != 0 || y%400 == 0)) {
		return localTime{}, fmt.Errorf("%w: %q is out of range", ErrBadTime, b)
	}
	if y < MinYear-1 || y > MaxYear+1 {
		return localTime{}, fmt.Errorf("%w: %q: year %d is outside %d-%d", ErrBadTime, b, y, MinYear, MaxYear)
	}
	start := daysFromCivil(y, mo, d)*86400 + h*3600
	hc.ok = false
	if off, ok := z.hourOffset(start / 3600); ok {
		copy(hc.text[:], b[:13])
		hc.civil, hc.off, hc.ok = start, off, true
	}
	t, err := z.civil(start+mi*60+s, b)
	if err == nil && (t.sec < minUnix || t.sec > maxUnix) {
		return localTime{}, fmt.Errorf("%w: %q: %w", ErrBadTime, b, yearError(t.sec))
	}
	return t, err
}

// digits2 returns the value of two ASCII digits, and false if either is
// not a digit.
func digits2(a, b byte) (int64, bool) {
	a, b = a-'0', b-'0'
	return int64(a)*10 + int64(b), a <= 9 && b <= 9
}

// civil resolves civil seconds c, parsed from b, to a localTime.
func (z *zone) civil(c int64, b []byte) (localTime, error) {
	first, second, ok := z.resolve(c)
	if !ok {
		return localTime{}, fmt.Errorf("%w: %q does not exist in %s (skipped by a DST change; wrong --tz?)", ErrBadTime, b, z.name())
	}
	return localTime{sec: first, alt: second, known: true}, nil
}
