package ingest

import (
	"errors"
	"testing"
	"time"
	_ "time/tzdata" // the DST tests need America/Chicago even without system zoneinfo

	"github.com/google/go-cmp/cmp"
	"github.com/mirage-hpc/mirage/trace"
)

func mustZone(tb testing.TB, name string) *zone {
	tb.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		tb.Fatal(err)
	}
	return newZone(loc)
}

// utc returns the Unix seconds of an RFC3339 instant.
func utc(tb testing.TB, s string) int64 {
	tb.Helper()
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		tb.Fatal(err)
	}
	return t.Unix()
}

func TestZone_ParseTime(t *testing.T) {
	chicago := mustZone(t, "America/Chicago")
	tests := []struct {
		Name  string
		Input string
		Want  string // first instant, RFC3339; "" for unknown
		Alt   string // second instant when ambiguous
		Err   error
	}{
		{Name: "Summer", Input: "2022-07-01T12:00:00", Want: "2022-07-01T17:00:00Z"},
		{Name: "Winter", Input: "2022-12-01T12:00:00", Want: "2022-12-01T18:00:00Z"},
		{Name: "SpaceSeparator", Input: "2022-12-01 12:00:00", Want: "2022-12-01T18:00:00Z"},
		{Name: "BeforeFallBack", Input: "2022-11-06T00:59:59", Want: "2022-11-06T05:59:59Z"},
		{Name: "FallBackAmbiguous", Input: "2022-11-06T01:30:00", Want: "2022-11-06T06:30:00Z", Alt: "2022-11-06T07:30:00Z"},
		{Name: "FallBackAmbiguousStart", Input: "2022-11-06T01:00:00", Want: "2022-11-06T06:00:00Z", Alt: "2022-11-06T07:00:00Z"},
		{Name: "AfterFallBack", Input: "2022-11-06T02:00:00", Want: "2022-11-06T08:00:00Z"},
		{Name: "BeforeSpringForward", Input: "2023-03-12T01:59:59", Want: "2023-03-12T07:59:59Z"},
		{Name: "AfterSpringForward", Input: "2023-03-12T03:00:00", Want: "2023-03-12T08:00:00Z"},
		{Name: "ErrSpringForwardGap", Input: "2023-03-12T02:30:00", Err: ErrBadTime},
		{Name: "ErrSpringForwardGapStart", Input: "2023-03-12T02:00:00", Err: ErrBadTime},
		{Name: "LeapDay", Input: "2024-02-29T00:00:00", Want: "2024-02-29T06:00:00Z"},
		{Name: "BeforeEpoch", Input: "1969-12-31T23:30:00", Want: "1970-01-01T05:30:00Z"},
		{Name: "ErrYear0001", Input: "0001-01-01T00:00:00", Err: ErrBadTime},
		{Name: "ErrYear1969UTC", Input: "1969-12-31T17:59:59", Err: ErrBadTime},
		{Name: "ErrYear2101", Input: "2101-01-01T06:00:00", Err: ErrBadTime},
		{Name: "ErrYear9999", Input: "9999-12-31T23:59:59", Err: ErrBadTime},
		{Name: "ErrEpochYear5138", Input: "99999999999", Err: ErrBadTime},
		{Name: "LastYear", Input: "2100-12-31T17:59:59", Want: "2100-12-31T23:59:59Z"},
		{Name: "Epoch", Input: "1796042332", Want: "2026-11-30T12:38:52Z"},
		{Name: "EpochZero", Input: "0", Want: "1970-01-01T00:00:00Z"},
		{Name: "Unknown", Input: "Unknown"},
		{Name: "None", Input: "None"},
		{Name: "Empty", Input: ""},
		{Name: "NA", Input: "N/A"},
		{Name: "ErrNotLeapYear", Input: "2023-02-29T00:00:00", Err: ErrBadTime},
		{Name: "ErrMonth", Input: "2022-13-01T00:00:00", Err: ErrBadTime},
		{Name: "ErrHour", Input: "2022-01-01T24:00:00", Err: ErrBadTime},
		{Name: "ErrDay", Input: "2022-04-31T00:00:00", Err: ErrBadTime},
		{Name: "ErrDigits", Input: "2022-0a-01T00:00:00", Err: ErrBadTime},
		{Name: "ErrZoneSuffix", Input: "2022-01-01T00:00:00Z", Err: ErrBadTime},
		{Name: "ErrDateOnly", Input: "2022-01-01", Err: ErrBadTime},
		{Name: "ErrGarbage", Input: "yesterday", Err: ErrBadTime},
		{Name: "ErrLongEpoch", Input: "1234567890123", Err: ErrBadTime},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			got, err := chicago.parseTime([]byte(tt.Input))
			if tt.Err != nil {
				if !errors.Is(err, tt.Err) {
					t.Fatalf("parseTime(%q) error:\ngot  %v\nwant %v", tt.Input, err, tt.Err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseTime(%q): %v", tt.Input, err)
			}
			want := localTime{}
			if tt.Want != "" {
				want = localTime{sec: utc(t, tt.Want), alt: utc(t, tt.Want), known: true}
				if tt.Alt != "" {
					want.alt = utc(t, tt.Alt)
				}
			}
			if got != want {
				t.Errorf("parseTime(%q):\ngot  %+v (%s)\nwant %+v (%s)", tt.Input, got, got.time(), want, want.time())
			}
		})
	}
}

func TestZone_ParseTime_UTC(t *testing.T) {
	z := newZone(time.UTC)
	got, err := z.parseTime([]byte("2026-11-30T12:38:52"))
	if err != nil {
		t.Fatal(err)
	}
	if want := utc(t, "2026-11-30T12:38:52Z"); got.sec != want || got.alt != want || !got.known {
		t.Errorf("got %+v, want sec %d", got, want)
	}
}

// TestZone_Resolve checks resolve against the time package: for instants
// every 15 minutes over several years (with each zone's transitions and
// the 1970 epoch), the civil time of the instant must resolve to it, as
// the only answer or one of the two. Zones: US DST, half-hour DST
// (Lord_Howe), a skipped day (Apia, December 2011), quarter-hour offsets.
func TestZone_Resolve(t *testing.T) {
	spans := []struct{ from, to string }{
		{"1969-12-25T00:00:00Z", "1970-01-05T00:00:00Z"},
		{"2011-01-01T00:00:00Z", "2013-01-01T00:00:00Z"},
		{"2022-01-01T00:00:00Z", "2024-01-01T00:00:00Z"},
	}
	for _, name := range []string{"America/Chicago", "Europe/London", "Australia/Lord_Howe", "Pacific/Apia", "Asia/Kathmandu", "America/St_Johns"} {
		t.Run(name, func(t *testing.T) {
			z := mustZone(t, name)
			for _, sp := range spans {
				for u := utc(t, sp.from); u < utc(t, sp.to); u += 15 * 60 {
					_, off := time.Unix(u, 0).In(z.loc).Zone()
					c := u + int64(off)
					first, second, ok := z.resolve(c)
					if !ok || (first != u && second != u) {
						t.Fatalf("resolve(civil %s) = %s, %s, %v; want %s among them",
							time.Unix(c, 0).UTC().Format("2006-01-02T15:04:05"),
							time.Unix(first, 0).UTC(), time.Unix(second, 0).UTC(), ok, time.Unix(u, 0).UTC())
					}
					if first != second && second-first > 2*3600 {
						t.Fatalf("resolve(civil %d): instants %d apart", c, second-first)
					}
				}
			}
		})
	}
}

func TestZone_Resolve_Gap(t *testing.T) {
	z := mustZone(t, "Pacific/Apia")
	// Samoa skipped 2011-12-30 entirely.
	if _, err := z.parseTime([]byte("2011-12-30T12:00:00")); !errors.Is(err, ErrBadTime) {
		t.Errorf("parseTime in the skipped day: got %v, want %v", err, ErrBadTime)
	}
}

// sacctRow builds a layout and fields from column=value pairs.
func sacctRow(tb testing.TB, z *zone, kv ...string) (rowParser, [][]byte) {
	tb.Helper()
	var header, fields [][]byte
	for i := 0; i < len(kv); i += 2 {
		header = append(header, []byte(kv[i]))
		fields = append(fields, []byte(kv[i+1]))
	}
	lay, err := newLayout(header, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return rowParser{lay: lay, zone: z, path: "test.txt", source: "test.txt", strs: interner{}}, fields
}

func TestRowParser_DST(t *testing.T) {
	chicago := mustZone(t, "America/Chicago")
	tests := []struct {
		Name      string
		Row       []string
		WantStart string
		WantEnd   string
	}{
		{
			// End 01:30 occurs twice; 100 minutes of ElapsedRaw after the
			// 00:50 CDT start picks the second (CST) occurrence.
			Name:      "EndByElapsedRaw",
			Row:       []string{"Start", "2022-11-06T00:50:00", "End", "2022-11-06T01:30:00", "ElapsedRaw", "6000"},
			WantStart: "2022-11-06T05:50:00Z", WantEnd: "2022-11-06T07:30:00Z",
		},
		{
			Name:      "EndByElapsedRawFirst",
			Row:       []string{"Start", "2022-11-06T00:50:00", "End", "2022-11-06T01:30:00", "ElapsedRaw", "2400"},
			WantStart: "2022-11-06T05:50:00Z", WantEnd: "2022-11-06T06:30:00Z",
		},
		{
			Name:      "EndByElapsed",
			Row:       []string{"Start", "2022-11-06T00:50:00", "End", "2022-11-06T01:30:00", "Elapsed", "01:40:00"},
			WantStart: "2022-11-06T05:50:00Z", WantEnd: "2022-11-06T07:30:00Z",
		},
		{
			// Nothing to choose by: the first occurrence.
			Name:      "EndUnconstrained",
			Row:       []string{"Start", "2022-11-06T00:50:00", "End", "2022-11-06T01:30:00"},
			WantStart: "2022-11-06T05:50:00Z", WantEnd: "2022-11-06T06:30:00Z",
		},
		{
			// Start 01:40 occurs twice; with a 30-minute limit and an End
			// of 02:00 CST, only the second (CST) start fits.
			Name:      "StartByTimelimit",
			Row:       []string{"Start", "2022-11-06T01:40:00", "End", "2022-11-06T02:00:00", "Timelimit", "00:30:00"},
			WantStart: "2022-11-06T07:40:00Z", WantEnd: "2022-11-06T08:00:00Z",
		},
		{
			Name:      "StartByTimelimitRaw",
			Row:       []string{"Start", "2022-11-06T01:40:00", "End", "2022-11-06T02:00:00", "TimelimitRaw", "30"},
			WantStart: "2022-11-06T07:40:00Z", WantEnd: "2022-11-06T08:00:00Z",
		},
		{
			Name:      "StartUnlimited",
			Row:       []string{"Start", "2022-11-06T01:40:00", "End", "2022-11-06T02:00:00", "Timelimit", "UNLIMITED"},
			WantStart: "2022-11-06T06:40:00Z", WantEnd: "2022-11-06T08:00:00Z",
		},
		{
			// Both ambiguous, 10 minutes apart by ElapsedRaw: the same
			// occurrence for both, the first.
			Name:      "BothAmbiguous",
			Row:       []string{"Start", "2022-11-06T01:10:00", "End", "2022-11-06T01:20:00", "ElapsedRaw", "600"},
			WantStart: "2022-11-06T06:10:00Z", WantEnd: "2022-11-06T06:20:00Z",
		},
		{
			// ElapsedRaw of 70 minutes: Start in CDT, End in CST.
			Name:      "BothAmbiguousAcross",
			Row:       []string{"Start", "2022-11-06T01:10:00", "End", "2022-11-06T01:20:00", "ElapsedRaw", "4200"},
			WantStart: "2022-11-06T06:10:00Z", WantEnd: "2022-11-06T07:20:00Z",
		},
		{
			// Submit <= Start: Submit 01:50 can precede Start 01:10 only
			// with Submit in the first occurrence (CDT) and Start in the
			// second (CST).
			Name:      "SubmitOrder",
			Row:       []string{"Submit", "2022-11-06T01:50:00", "Start", "2022-11-06T01:10:00", "End", "2022-11-06T03:00:00"},
			WantStart: "2022-11-06T07:10:00Z", WantEnd: "2022-11-06T09:00:00Z",
		},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			p, fields := sacctRow(t, chicago, append([]string{"JobID", "1"}, tt.Row...)...)
			id, raw, perr := p.jobID(fields, 2)
			if perr != nil {
				t.Fatal(perr)
			}
			var j trace.Job
			if perr := p.parse(fields, 2, id, raw, &j); perr != nil {
				t.Fatalf("parse: %v", perr)
			}
			got := [2]string{j.Start.Format(time.RFC3339), j.End.Format(time.RFC3339)}
			if diff := cmp.Diff([2]string{tt.WantStart, tt.WantEnd}, got); diff != "" {
				t.Errorf("Start, End mismatch (-want +got):\n%s", diff)
			}
			if p.ambiguous != 1 {
				t.Errorf("ambiguous rows = %d, want 1", p.ambiguous)
			}
		})
	}
}

func TestRowParser_Errors(t *testing.T) {
	chicago := mustZone(t, "America/Chicago")
	tests := []struct {
		Name string
		Row  []string
		Want *ParseError
	}{
		{
			Name: "NonexistentStart",
			Row:  []string{"Start", "2023-03-12T02:30:00"},
			Want: &ParseError{Path: "test.txt", Line: 2, Field: "Start", Err: ErrBadTime},
		},
		{
			Name: "EndBeforeStart",
			Row:  []string{"Start", "2022-01-01T10:00:00", "End", "2022-01-01T09:00:00"},
			Want: &ParseError{Path: "test.txt", Line: 2, Field: "End", Err: ErrTimeOrder},
		},
		{
			Name: "StartBeforeSubmit",
			Row:  []string{"Submit", "2022-01-01T10:00:00", "Start", "2022-01-01T09:00:00"},
			Want: &ParseError{Path: "test.txt", Line: 2, Field: "Start", Err: ErrTimeOrder},
		},
		{
			Name: "BadState",
			Row:  []string{"State", "CANCELLED+"},
			Want: &ParseError{Path: "test.txt", Line: 2, Field: "State", Err: trace.ErrBadState},
		},
		{
			Name: "BadJobIDRaw",
			Row:  []string{"JobIDRaw", "x"},
			Want: &ParseError{Path: "test.txt", Line: 2, Field: "JobIDRaw", Err: ErrBadJobID},
		},
		{
			Name: "BadReqMem",
			Row:  []string{"ReqMem", "lots"},
			Want: &ParseError{Path: "test.txt", Line: 2, Field: "ReqMem", Err: ErrBadMemory},
		},
		{
			Name: "HugeReqMem",
			Row:  []string{"ReqMem", "1e300M"},
			Want: &ParseError{Path: "test.txt", Line: 2, Field: "ReqMem", Err: ErrBadMemory},
		},
		{
			Name: "NegativeElapsedRaw",
			Row:  []string{"ElapsedRaw", "-5"},
			Want: &ParseError{Path: "test.txt", Line: 2, Field: "ElapsedRaw", Err: ErrBadNumber},
		},
		{
			Name: "TooManyNodes",
			Row:  []string{"NNodes", "4294967296"},
			Want: &ParseError{Path: "test.txt", Line: 2, Field: "NNodes", Err: ErrBadNumber},
		},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			p, fields := sacctRow(t, chicago, append([]string{"JobID", "1"}, tt.Row...)...)
			id, raw, perr := p.jobID(fields, 2)
			if perr != nil {
				t.Fatal(perr)
			}
			var j trace.Job
			perr = p.parse(fields, 2, id, raw, &j)
			if perr == nil {
				t.Fatalf("parse: no error, want %v", tt.Want)
			}
			if perr.Path != tt.Want.Path || perr.Line != tt.Want.Line || perr.Field != tt.Want.Field || !errors.Is(perr, tt.Want.Err) {
				t.Errorf("parse error:\ngot  %#v (%v)\nwant %#v", perr, perr, tt.Want)
			}
		})
	}
}
