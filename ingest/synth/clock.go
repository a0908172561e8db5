package synth

import (
	"math"
	"time"
)

// clock formats Unix seconds as local YYYY-MM-DDTHH:MM:SS, as sacct prints
// times, without time.Time on the hot path: it caches the zone spans
// (time.Time.ZoneBounds) and the date text of recent days.
type clock struct {
	loc   *time.Location
	spans [4]zoneSpan
	n     int // spans in use
	next  int // span to replace on a miss when all are in use
	hours [16]hourText
}

// zoneSpan is an interval [lo, hi) of Unix seconds with one UTC offset.
type zoneSpan struct {
	lo, hi, off int64
}

// hourText is the text "YYYY-MM-DDTHH:" of one local civil hour.
type hourText struct {
	hour int64 // civil hours since 1970-01-01 + 1; 0 = empty
	txt  [14]byte
}

func newClock(loc *time.Location) *clock { return &clock{loc: loc} }

// offset returns the UTC offset in seconds at Unix time u.
func (c *clock) offset(u int64) int64 {
	for i := 0; i < c.n; i++ {
		if s := &c.spans[i]; u >= s.lo && u < s.hi {
			return s.off
		}
	}
	t := time.Unix(u, 0).In(c.loc)
	_, off := t.Zone()
	s := zoneSpan{lo: math.MinInt64, hi: math.MaxInt64, off: int64(off)}
	if lo, hi := t.ZoneBounds(); !lo.IsZero() || !hi.IsZero() {
		if !lo.IsZero() {
			s.lo = lo.Unix()
		}
		if !hi.IsZero() {
			s.hi = hi.Unix()
		}
	}
	if c.n < len(c.spans) {
		c.spans[c.n] = s
		c.n++
	} else {
		c.spans[c.next] = s
		c.next = (c.next + 1) % len(c.spans)
	}
	return s.off
}

// civil returns the local civil seconds of u: the wall clock read as if it
// were UTC.
func (c *clock) civil(u int64) int64 { return u + c.offset(u) }

// appendLocal appends u as local YYYY-MM-DDTHH:MM:SS. Years must be in
// 0..9999.
func (c *clock) appendLocal(b []byte, u int64) []byte {
	civ := c.civil(u)
	hour := floorDiv(civ, 3600)
	sec := civ - hour*3600
	e := &c.hours[hour&int64(len(c.hours)-1)]
	if e.hour != hour+1 {
		e.hour = hour + 1
		day := floorDiv(hour, 24)
		h := hour - day*24
		y, m, d := civilFromDays(day)
		e.txt = [14]byte{
			byte('0' + y/1000%10), byte('0' + y/100%10), byte('0' + y/10%10), byte('0' + y%10), '-',
			byte('0' + m/10), byte('0' + m%10), '-', byte('0' + d/10), byte('0' + d%10), 'T',
			byte('0' + h/10), byte('0' + h%10), ':',
		}
	}
	mi, s := sec/60, sec%60
	return append(append(b, e.txt[:]...), byte('0'+mi/10), byte('0'+mi%10), ':', byte('0'+s/10), byte('0'+s%10))
}

func floorDiv(a, b int64) int64 {
	if a >= 0 {
		return a / b
	}
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// civilFromDays returns the proleptic Gregorian date of a day number
// (days since 1970-01-01; Howard Hinnant's algorithm).
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}
