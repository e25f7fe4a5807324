package localtime

import (
	"errors"
	"math/rand"
	"slices"
	"testing"
	"time"
)

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := LoadZone(name)
	if err != nil {
		t.Fatalf("LoadZone(%q): %v", name, err)
	}
	return loc
}

func mustWall(t testing.TB, s string) Wall {
	t.Helper()
	w, err := ParseWall(s)
	if err != nil {
		t.Fatalf("ParseWall(%q): %v", s, err)
	}
	return w
}

// offsetAt is the UTC offset of loc at Unix second u.
func offsetAt(u int64, loc *time.Location) int64 {
	_, off := time.Unix(u, 0).In(loc).Zone()
	return int64(off)
}

var resolveCases = []struct {
	zone, wall, want string
	adj              Adjustment
}{
	{"UTC", "2026-03-29T02:30", "2026-03-29T02:30:00Z", Exact},
	{"Europe/Berlin", "2026-06-15T12:00", "2026-06-15T12:00:00+02:00", Exact},
	{"Europe/Berlin", "2026-03-29T01:59", "2026-03-29T01:59:00+01:00", Exact},
	{"Europe/Berlin", "2026-03-29T02:00", "2026-03-29T03:00:00+02:00", DSTGap},
	{"Europe/Berlin", "2026-03-29T02:30", "2026-03-29T03:30:00+02:00", DSTGap},
	{"Europe/Berlin", "2026-03-29T03:00", "2026-03-29T03:00:00+02:00", Exact},
	{"Europe/Berlin", "2026-10-25T01:59", "2026-10-25T01:59:00+02:00", Exact},
	{"Europe/Berlin", "2026-10-25T02:00", "2026-10-25T02:00:00+02:00", Overlap},
	{"Europe/Berlin", "2026-10-25T02:30", "2026-10-25T02:30:00+02:00", Overlap}, // 00:30Z
	{"Europe/Berlin", "2026-10-25T03:00", "2026-10-25T03:00:00+01:00", Exact},
	{"America/New_York", "2026-03-08T02:30", "2026-03-08T03:30:00-04:00", DSTGap},
	{"America/New_York", "2026-11-01T01:30", "2026-11-01T01:30:00-04:00", Overlap},
	{"America/New_York", "2026-11-01T02:00", "2026-11-01T02:00:00-05:00", Exact},
	// Southern hemisphere: gap in October, overlap in April.
	{"Australia/Sydney", "2026-10-04T02:30", "2026-10-04T03:30:00+11:00", DSTGap},
	{"Australia/Sydney", "2026-04-05T02:30", "2026-04-05T02:30:00+11:00", Overlap},
	{"Australia/Sydney", "2026-04-05T03:00", "2026-04-05T03:00:00+10:00", Exact},
	// Chile changes at 24:00 on Saturdays (found by TestMidnightTransitions).
	{"America/Santiago", "2026-09-06T00:30", "2026-09-06T01:30:00-03:00", DSTGap},
	{"America/Santiago", "2026-09-06T01:00", "2026-09-06T01:00:00-03:00", Exact},
	{"America/Santiago", "2026-04-04T23:30", "2026-04-04T23:30:00-03:00", Overlap},
	{"America/Santiago", "2026-04-05T00:00", "2026-04-05T00:00:00-04:00", Exact},
	{"America/Havana", "2026-03-08T00:30", "2026-03-08T01:30:00-04:00", DSTGap},
	{"America/Havana", "2026-11-01T00:30", "2026-11-01T00:30:00-04:00", Overlap},
	{"Asia/Beirut", "2026-03-29T00:30", "2026-03-29T01:30:00+03:00", DSTGap},
	{"Asia/Beirut", "2026-10-24T23:30", "2026-10-24T23:30:00+03:00", Overlap},
	// Thirty-minute DST.
	{"Australia/Lord_Howe", "2026-10-04T02:00", "2026-10-04T02:30:00+11:00", DSTGap},
	{"Australia/Lord_Howe", "2026-10-04T02:15", "2026-10-04T02:45:00+11:00", DSTGap},
	{"Australia/Lord_Howe", "2026-10-04T02:30", "2026-10-04T02:30:00+11:00", Exact},
	{"Australia/Lord_Howe", "2026-04-05T01:45", "2026-04-05T01:45:00+11:00", Overlap},
	{"Australia/Lord_Howe", "2026-04-05T02:00", "2026-04-05T02:00:00+10:30", Exact},
	// Samoa skipped 2011-12-30 entirely (UTC-10 to UTC+14): a 24 hour gap.
	{"Pacific/Apia", "2011-12-29T23:59", "2011-12-29T23:59:00-10:00", Exact},
	{"Pacific/Apia", "2011-12-30T00:00", "2011-12-31T00:00:00+14:00", DSTGap},
	{"Pacific/Apia", "2011-12-30T12:00", "2011-12-31T12:00:00+14:00", DSTGap},
	{"Pacific/Apia", "2011-12-31T00:00", "2011-12-31T00:00:00+14:00", Exact},
	// Istanbul: DST until 2016, fixed UTC+3 since 2016-09-07 (a zone
	// boundary with no offset change), so 2016-10-30 03:30 is plain.
	{"Europe/Istanbul", "2015-03-29T03:30", "2015-03-29T04:30:00+03:00", DSTGap},
	{"Europe/Istanbul", "2015-11-08T03:30", "2015-11-08T03:30:00+03:00", Overlap},
	{"Europe/Istanbul", "2016-09-07T00:00", "2016-09-07T00:00:00+03:00", Exact},
	{"Europe/Istanbul", "2016-10-30T03:30", "2016-10-30T03:30:00+03:00", Exact},
	{"Europe/Istanbul", "2026-03-29T03:30", "2026-03-29T03:30:00+03:00", Exact},
	{"Europe/Istanbul", "2026-10-25T03:30", "2026-10-25T03:30:00+03:00", Exact},
}

func TestResolveTable(t *testing.T) {
	for _, c := range resolveCases {
		loc := mustZone(t, c.zone)
		got, adj := Resolve(mustWall(t, c.wall), loc)
		if s := got.Format(time.RFC3339); s != c.want || adj != c.adj {
			t.Errorf("Resolve(%s, %s) = %s %q, want %s %q", c.wall, c.zone, s, adj, c.want, c.adj)
		}
		if got.Location() != loc {
			t.Errorf("Resolve(%s, %s) is in %v, want the zone", c.wall, c.zone, got.Location())
		}
	}
}

func TestResolveBerlinOverlapIsFirstInstant(t *testing.T) {
	got, _ := Resolve(mustWall(t, "2026-10-25T02:30"), mustZone(t, "Europe/Berlin"))
	if want := time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC); !got.Equal(want) {
		t.Fatalf("got %v, want %v", got.UTC(), want)
	}
}

// TestTimeDateDisagrees documents why Resolve does not use time.Date: Go
// looks up the offset at the wall time read as UTC, so east of UTC it picks
// the second instant of an overlap, and west of UTC it runs a gap time
// backwards (New York 02:30 becomes 01:30 EST, an hour before the gap).
func TestTimeDateDisagrees(t *testing.T) {
	differ := 0
	for _, c := range resolveCases {
		loc := mustZone(t, c.zone)
		w := mustWall(t, c.wall)
		ours, _ := Resolve(w, loc)
		std := time.Date(w.Year, w.Month, w.Day, w.Hour, w.Minute, 0, 0, loc)
		if !std.Equal(ours) {
			differ++
			t.Logf("%s %s (%s): time.Date %s, D2 %s", c.zone, c.wall, c.adj,
				std.Format(time.RFC3339), ours.Format(time.RFC3339))
			if c.adj == Exact {
				t.Errorf("time.Date and Resolve disagree on an exact time %s %s", c.zone, c.wall)
			}
		}
	}
	if differ == 0 {
		t.Error("time.Date agreed with D2 everywhere; the cases no longer show why Resolve exists")
	}
}

// TestMidnightTransitions finds the 2026 transitions of zones that change at
// midnight by scanning tzdata, then checks the middle of each gap or overlap.
func TestMidnightTransitions(t *testing.T) {
	for _, c := range []struct {
		zone string
		want []string // old wall clock -> new wall clock at each transition
	}{
		{"America/Santiago", []string{"2026-04-05T00:00->2026-04-04T23:00", "2026-09-06T00:00->2026-09-06T01:00"}},
		{"America/Havana", []string{"2026-03-08T00:00->2026-03-08T01:00", "2026-11-01T01:00->2026-11-01T00:00"}},
		{"Asia/Beirut", []string{"2026-03-29T00:00->2026-03-29T01:00", "2026-10-25T00:00->2026-10-24T23:00"}},
	} {
		loc := mustZone(t, c.zone)
		var got []string
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).In(loc)
		for {
			_, end := at.ZoneBounds()
			if end.IsZero() || end.Year() > 2026 {
				break
			}
			_, o1 := at.Zone()
			_, o2 := end.Zone()
			e := end.Unix()
			oldWall := WallOf(time.Unix(e+int64(o1), 0), time.UTC)
			got = append(got, oldWall.String()+"->"+WallOf(end, loc).String())

			// The middle of the skipped or repeated stretch of wall clock.
			mid := WallOf(time.Unix(e+int64(o1+o2)/2, 0), time.UTC)
			r, adj := Resolve(mid, loc)
			if o2 > o1 {
				if want := time.Unix(e+int64(o2-o1)/2, 0); adj != DSTGap || !r.Equal(want) {
					t.Errorf("%s %s: got %v %q, want gap to %v", c.zone, mid, r, adj, want.In(loc))
				}
			} else if want := time.Unix(e-int64(o1-o2)/2, 0); adj != Overlap || !r.Equal(want) {
				t.Errorf("%s %s: got %v %q, want first instant %v", c.zone, mid, r, adj, want.In(loc))
			}
			at = end
		}
		if len(got) != len(c.want) {
			t.Errorf("%s 2026 transitions %v, want %v", c.zone, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s 2026 transition %d: %s, want %s", c.zone, i, got[i], c.want[i])
			}
		}
	}
}

// propertyZones includes the awkward ones: negative DST (Dublin, Casablanca),
// half-hour and 45-minute offsets and DST, skipped days (Apia, Kiritimati,
// Kwajalein, Fakaofo), midnight transitions, two-hour DST (Troll).
var propertyZones = []string{
	"UTC", "Etc/GMT+3", "Europe/Berlin", "Europe/London", "Europe/Dublin", "Europe/Istanbul",
	"Europe/Moscow", "Europe/Kyiv", "Atlantic/Azores", "America/New_York", "America/Chicago",
	"America/Phoenix", "America/Los_Angeles", "America/Anchorage", "America/St_Johns",
	"America/Havana", "America/Santiago", "America/Sao_Paulo", "America/Asuncion",
	"America/Argentina/Buenos_Aires", "America/Caracas", "America/Nuuk", "America/Scoresbysund",
	"Africa/Casablanca", "Africa/Cairo", "Asia/Beirut", "Asia/Tehran", "Asia/Jerusalem",
	"Asia/Gaza", "Asia/Kolkata", "Asia/Kathmandu", "Asia/Pyongyang", "Asia/Tokyo",
	"Australia/Sydney", "Australia/Lord_Howe", "Australia/Adelaide", "Australia/Eucla",
	"Pacific/Auckland", "Pacific/Chatham", "Pacific/Apia", "Pacific/Kiritimati",
	"Pacific/Kwajalein", "Pacific/Fakaofo", "Antarctica/Troll",
}

// offsetsNear returns the distinct offsets loc uses within 26 hours of u,
// sampled hourly (an offset kept for less than an hour could be missed; the
// brute-force test does not sample). Any instant whose wall clock is w is
// naive(w) - o for one of them.
func offsetsNear(u int64, loc *time.Location) []int64 {
	var offs []int64
	for d := int64(-26 * 3600); d <= 26*3600; d += 3600 {
		if o := offsetAt(u+d, loc); !slices.Contains(offs, o) {
			offs = append(offs, o)
		}
	}
	return offs
}

// checkD2 checks r, adj against the definition of D2 using candidate offsets.
func checkD2(t *testing.T, loc *time.Location, w Wall, r time.Time, adj Adjustment) {
	t.Helper()
	naive := w.naive()
	first, count := int64(0), 0
	for _, o := range offsetsNear(naive, loc) {
		if u := naive - o; offsetAt(u, loc) == o {
			if count == 0 || u < first {
				first = u
			}
			count++
		}
	}
	if r.Location() != loc {
		t.Errorf("%s %s: result in %v", loc, w, r.Location())
	}
	switch {
	case count > 0:
		want := Exact
		if count > 1 {
			want = Overlap
		}
		if adj != want || r.Unix() != first || WallOf(r, loc) != w {
			t.Errorf("%s %s: got %v %q, want %v %q", loc, w, r, adj, time.Unix(first, 0).In(loc), want)
		}
	case adj != DSTGap:
		t.Errorf("%s %s does not exist but got %v %q", loc, w, r, adj)
	default:
		// r must be the gap's end plus how far w is past the gap's start.
		start, _ := r.ZoneBounds()
		e := start.Unix()
		o1, o2 := offsetAt(e-1, loc), offsetAt(e, loc)
		if !(e+o1 <= naive && naive < e+o2) || r.Unix() != e+(naive-(e+o1)) || !w.Before(WallOf(r, loc)) {
			t.Errorf("%s %s: gap result %v not shifted by the gap [%v, %v)", loc, w, r,
				WallOf(time.Unix(e+o1, 0), time.UTC), WallOf(time.Unix(e+o2, 0), time.UTC))
		}
	}
}

func TestResolveProperties(t *testing.T) {
	t.Parallel()
	n := 20000
	if testing.Short() {
		n = 3000
	}
	rng := rand.New(rand.NewSource(1))
	lo := time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(2038, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	locs := make([]*time.Location, len(propertyZones))
	for i, z := range propertyZones {
		locs[i] = mustZone(t, z)
	}
	for i := 0; i < n; i++ {
		loc := locs[rng.Intn(len(locs))]
		u := lo + rng.Int63n(hi-lo)
		if i%2 == 0 {
			// Half the samples sit within 90 minutes of a real transition.
			if _, end := time.Unix(u, 0).In(loc).ZoneBounds(); !end.IsZero() && end.Unix() < hi {
				u = end.Unix() + offsetAt(end.Unix()-1, loc) + rng.Int63n(180*60) - 90*60
			}
		}
		w := WallOf(time.Unix(u, 0), time.UTC)
		r, adj := Resolve(w, loc)
		checkD2(t, loc, w, r, adj)

		// Monotonic: a later wall time never resolves before an earlier
		// one that exists, nor before the end of an earlier one's gap. (D2
		// itself is not monotonic in gaps: Berlin 02:30 runs at 03:30, after
		// 03:15 does.)
		w2 := WallOf(time.Unix(u+60*(1+rng.Int63n(180)), 0), time.UTC)
		if r2, _ := Resolve(w2, loc); r2.Before(floor(r, adj)) {
			t.Errorf("%s: %s -> %v %q but later %s -> %v", loc, w, r, adj, w2, r2)
		}
		if t.Failed() {
			return
		}
	}
}

// floor is the earliest instant that a wall time after the one resolved to r
// may resolve to: r itself, or for a gap result the instant the gap ended.
func floor(r time.Time, adj Adjustment) time.Time {
	if adj == DSTGap {
		r, _ = r.ZoneBounds()
	}
	return r
}

// oracle sweeps every UTC minute from the start of year y0 - 15h to the end of
// year y1 + 15h and, for each wall minute on the quarter-hour grid in those
// years, returns the first instant showing it, how many instants show it,
// and, for wall times skipped by a jump forward, the D2 answer (the wall time
// read with the offset before the jump). To stay fast under -race it looks
// the offset up once per quarter hour and minute by minute only in quarter
// hours whose ends differ; no zone changes twice within 15 minutes.
type oracleEntry struct {
	first, gap int64
	count      int
}

func oracle(loc *time.Location, y0, y1 int) (w0 int64, entries []oracleEntry) {
	w0 = time.Date(y0, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	w1 := time.Date(y1+1, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	entries = make([]oracleEntry, (w1-w0)/900)
	from := w0 - 15*3600
	prev, offQ := offsetAt(from-60, loc), offsetAt(from, loc)
	for q := from; q < w1+15*3600; q += 900 {
		offNext := offsetAt(q+900, loc)
		for u := q; u < q+900; u += 60 {
			off := offQ
			if offQ != offNext {
				off = offsetAt(u, loc)
			}
			if off > prev { // the clock jumped from u+prev to u+off
				for wall := u + prev; wall < u+off; wall += 60 {
					if wall >= w0 && wall < w1 && wall%900 == 0 && entries[(wall-w0)/900].gap == 0 {
						entries[(wall-w0)/900].gap = wall - prev
					}
				}
			}
			prev = off
			if wall := u + off; wall >= w0 && wall < w1 && wall%900 == 0 {
				e := &entries[(wall-w0)/900]
				if e.count == 0 {
					e.first = u
				}
				e.count++
			}
		}
		offQ = offNext
	}
	return w0, entries
}

func TestResolveAgainstBruteForce(t *testing.T) {
	t.Parallel()
	cases := []struct {
		zone   string
		y0, y1 int
	}{
		{"Europe/Berlin", 2024, 2027},
		{"America/New_York", 2024, 2027},
		{"Australia/Lord_Howe", 2024, 2027},
		{"America/Santiago", 2024, 2027},
		{"Pacific/Chatham", 2026, 2026},
		{"Africa/Casablanca", 2024, 2027}, // DST suspended for Ramadan
		{"Pacific/Apia", 2011, 2011},
		{"Pacific/Kiritimati", 1994, 1994}, // skipped 1994-12-31
	}
	for _, c := range cases {
		if testing.Short() {
			c.y1 = c.y0
		}
		t.Run(c.zone, func(t *testing.T) {
			t.Parallel()
			loc := mustZone(t, c.zone)
			w0, entries := oracle(loc, c.y0, c.y1)
			var last time.Time
			for i, e := range entries {
				w := WallOf(time.Unix(w0+int64(i)*900, 0), time.UTC)
				want, wantAdj := e.first, Exact
				switch {
				case e.count > 1:
					wantAdj = Overlap
				case e.count == 0:
					want, wantAdj = e.gap, DSTGap
				}
				r, adj := Resolve(w, loc)
				if r.Unix() != want || adj != wantAdj {
					t.Fatalf("%s: got %v %q, oracle %v %q", w, r, adj, time.Unix(want, 0).In(loc), wantAdj)
				}
				if r.Before(last) {
					t.Fatalf("%s: %v is before %v, allowed by the previous quarter hour", w, r, last)
				}
				last = floor(r, adj)
			}
		})
	}
}

func TestWall(t *testing.T) {
	w := mustWall(t, "2024-02-28T23:45")
	if got := w.AddDays(1).String(); got != "2024-02-29T23:45" {
		t.Errorf("AddDays(1) = %s", got)
	}
	if got := w.AddDays(2).String(); got != "2024-03-01T23:45" {
		t.Errorf("AddDays(2) = %s", got)
	}
	if got := w.AddDays(-59).String(); got != "2023-12-31T23:45" {
		t.Errorf("AddDays(-59) = %s", got)
	}
	if w.Date() != "2024-02-28" || w.Clock() != "23:45" {
		t.Errorf("Date, Clock = %s, %s", w.Date(), w.Clock())
	}
	if !w.Before(w.AddDays(1)) || w.AddDays(1).Before(w) || w.Before(w) {
		t.Error("Before is not a strict calendar order")
	}
	if !mustWall(t, "2026-01-01T09:00").Before(mustWall(t, "2026-01-01T09:01")) {
		t.Error("Before ignores minutes")
	}
	berlin := mustZone(t, "Europe/Berlin")
	if got := WallOf(time.Date(2026, 10, 25, 0, 30, 59, 999, time.UTC), berlin).String(); got != "2026-10-25T02:30" {
		t.Errorf("WallOf = %s", got)
	}
}

func TestParseWall(t *testing.T) {
	for _, s := range []string{"2026-11-02T09:00", "2024-02-29T23:59", "2026-12-31T00:00", "0000-01-01T00:00", "9999-12-31T23:59"} {
		w, err := ParseWall(s)
		if err != nil || w.String() != s {
			t.Errorf("ParseWall(%q) = %v, %v", s, w, err)
		}
	}
	if w, _ := ParseWall("2026-11-02T09:05"); w != (Wall{2026, time.November, 2, 9, 5}) {
		t.Errorf("fields: %+v", w)
	}
	for _, s := range []string{
		"", "2026-02-30T10:00", "2025-02-29T10:00", "2100-02-29T10:00", "2026-04-31T10:00",
		"2026-13-01T00:00", "2026-00-10T00:00", "2026-01-00T00:00", "2026-01-32T00:00",
		"2026-01-01T24:00", "2026-01-01T23:60", "2026-01-01 10:00", "2026-01-01t10:00",
		"2026-01-01T10:00:00", "2026-01-01T10:00Z", "2026-1-01T10:00", "+026-01-01T10:00",
		"2026-01-01T1:000", "-026-01-01T10:00", "２０26-01-01T10:00", "2026-01-01T10:0a",
	} {
		_, err := ParseWall(s)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Code != CodeBadWall || !errors.Is(err, ErrBadWall) {
			t.Errorf("ParseWall(%q) error = %v, want code %s", s, err, CodeBadWall)
		}
	}
}

func TestParseDateAndTime(t *testing.T) {
	for _, c := range []struct{ date, clock, want, code string }{
		{"2026-11-02", "09:00", "2026-11-02T09:00", ""},
		{"2026-11-02", "09:00:00", "2026-11-02T09:00", ""},
		{"2024-02-29", "23:59", "2024-02-29T23:59", ""},
		{"2026-02-30", "09:00", "", CodeBadDate},
		{"", "09:00", "", CodeBadDate},
		{"2026-11-2", "09:00", "", CodeBadDate},
		{"2026/11/02", "09:00", "", CodeBadDate},
		{"2026-11-02", "", "", CodeBadTime},
		{"2026-11-02", "9:00", "", CodeBadTime},
		{"2026-11-02", "24:00", "", CodeBadTime},
		{"2026-11-02", "09:00:30", "", CodeBadTime},
		{"2026-11-02", "09:00:00.000", "", CodeBadTime},
		{"2026-11-02", "09:00 PM", "", CodeBadTime},
		{"nope", "nope", "", CodeBadDate}, // the date is checked first
	} {
		w, err := ParseDateAndTime(c.date, c.clock)
		var pe *ParseError
		switch {
		case c.code == "" && (err != nil || w.String() != c.want):
			t.Errorf("ParseDateAndTime(%q, %q) = %v, %v; want %s", c.date, c.clock, w, err, c.want)
		case c.code != "" && (!errors.As(err, &pe) || pe.Code != c.code):
			t.Errorf("ParseDateAndTime(%q, %q) error = %v, want code %s", c.date, c.clock, err, c.code)
		}
	}
	if _, err := ParseDateAndTime("2026-11-02", "25:00"); !errors.Is(err, ErrBadTime) || errors.Is(err, ErrBadDate) {
		t.Errorf("errors.Is on %v", err)
	}
}

func TestLoadZone(t *testing.T) {
	for _, name := range []string{
		"UTC", "Europe/Istanbul", "Europe/Berlin", "America/Argentina/Buenos_Aires",
		"America/Port-au-Prince", "Etc/GMT+3", "Etc/GMT-14", "Etc/UTC",
	} {
		loc, err := LoadZone(name)
		if err != nil || loc.String() != name {
			t.Errorf("LoadZone(%q) = %v, %v", name, loc, err)
		}
	}
	for _, name := range []string{
		"", "Local", "+03:00", "UTC+3", "Istanbul", "GMT", "EST5EDT", "europe/istanbul",
		"Europe/Nowhere", "Europe/Berlin/", "/Europe/Berlin", "Europe/../Europe/Berlin",
		"Europe/Berlin ", "Etc/GMT+3/x/y", "America/Argentina/Buenos_Aires/X",
	} {
		_, err := LoadZone(name)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Code != CodeBadZone || !errors.Is(err, ErrBadZone) {
			t.Errorf("LoadZone(%q) error = %v, want code %s", name, err, CodeBadZone)
		}
	}
}

func TestRecompute(t *testing.T) {
	berlin := mustZone(t, "Europe/Berlin")
	w := mustWall(t, "2026-11-02T09:00")
	now, _ := Resolve(w, berlin) // 08:00Z

	// Stored under tzdata that thought Berlin was on UTC+2 in November.
	early := time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC)
	if at, moved := Recompute(early, w, berlin); !moved || !at.Equal(now) {
		t.Errorf("earlier stored: %v %v, want %v moved", at, moved, now)
	}
	// Stored under tzdata that thought UTC+0: never run earlier than that.
	late := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	if at, moved := Recompute(late, w, berlin); moved || at != late {
		t.Errorf("later stored: %v %v, want %v unchanged", at, moved, late)
	}
	if at, moved := Recompute(now, w, berlin); moved || !at.Equal(now) {
		t.Errorf("same stored: %v %v", at, moved)
	}

	rng := rand.New(rand.NewSource(2))
	locs := map[string]*time.Location{}
	for _, z := range propertyZones {
		locs[z] = mustZone(t, z)
	}
	for i := 0; i < 2000; i++ {
		loc := locs[propertyZones[rng.Intn(len(propertyZones))]]
		w := WallOf(time.Unix(1.5e9+rng.Int63n(5e8), 0), time.UTC)
		r, _ := Resolve(w, loc)
		stored := r.Add(time.Duration(rng.Int63n(int64(4*time.Hour))) - 2*time.Hour)
		at, moved := Recompute(stored, w, loc)
		if at.Before(stored) || moved != r.After(stored) || (!at.Equal(stored) && !at.Equal(r)) {
			t.Fatalf("Recompute(%v, %s, %s) = %v %v; resolved %v", stored, w, loc, at, moved, r)
		}
	}
}

func TestInstant(t *testing.T) {
	berlin := mustZone(t, "Europe/Berlin")
	in := time.Date(2026, 3, 29, 3, 0, 0, 123456789, berlin)
	s := FormatInstant(in)
	if s != "2026-03-29T01:00:00.123Z" {
		t.Errorf("FormatInstant = %s", s)
	}
	if back, err := ParseInstant(s); err != nil || !back.Equal(in.Truncate(time.Millisecond)) || back.Location() != time.UTC {
		t.Errorf("ParseInstant(%s) = %v, %v", s, back, err)
	}
	for s, want := range map[string]string{
		"2026-03-29T03:00:00+02:00":      "2026-03-29T01:00:00.000Z",
		"2026-03-29T01:00:00.5Z":         "2026-03-29T01:00:00.500Z",
		"2026-03-28T20:30:00.25-04:30":   "2026-03-29T01:00:00.250Z",
		"2026-03-29T01:00:00.000000Z":    "2026-03-29T01:00:00.000Z",
		"2026-03-29T01:00:00.999999999Z": "2026-03-29T01:00:00.999Z",
	} {
		got, err := ParseInstant(s)
		if err != nil || FormatInstant(got) != want || got.Location() != time.UTC {
			t.Errorf("ParseInstant(%s) = %v, %v; want %s", s, got, err, want)
		}
	}
	for _, s := range []string{"", "2026-03-29", "2026-03-29T01:00:00", "2026-03-29 01:00:00Z", "2026-03-29T25:00:00.000Z", "1774746000"} {
		if _, err := ParseInstant(s); !errors.Is(err, ErrBadInstant) {
			t.Errorf("ParseInstant(%q) error = %v", s, err)
		}
	}
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 1000; i++ {
		in := time.UnixMilli(rng.Int63n(4e12) - 1e12)
		back, err := ParseInstant(FormatInstant(in))
		if err != nil || !back.Equal(in) {
			t.Fatalf("round trip %v: %v, %v", in, back, err)
		}
	}
}

func TestLabels(t *testing.T) {
	for name, want := range map[string]string{
		"Europe/Istanbul": "Istanbul", "America/Argentina/Buenos_Aires": "Buenos Aires",
		"UTC": "UTC", "America/Port-au-Prince": "Port-au-Prince", "Etc/GMT+3": "GMT+3",
	} {
		if got := City(name); got != want {
			t.Errorf("City(%q) = %q, want %q", name, got, want)
		}
	}
	jan := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		zone string
		at   time.Time
		want string
	}{
		{"UTC", jan, "UTC"},
		{"Europe/London", jan, "UTC"},
		{"Europe/Istanbul", jan, "UTC+3"},
		{"Asia/Kolkata", jan, "UTC+5:30"},
		{"Asia/Kathmandu", jan, "UTC+5:45"},
		{"America/Sao_Paulo", jan, "UTC-3"},
		{"America/St_Johns", jan, "UTC-3:30"},
		{"Pacific/Chatham", jan, "UTC+13:45"},
		{"Europe/Amsterdam", time.Date(1920, 1, 1, 0, 0, 0, 0, time.UTC), "UTC+0:19:32"},
	} {
		if got := OffsetLabel(c.at, mustZone(t, c.zone)); got != c.want {
			t.Errorf("OffsetLabel(%v, %s) = %q, want %q", c.at, c.zone, got, c.want)
		}
	}
}

func FuzzParseWall(f *testing.F) {
	for _, s := range []string{"2026-11-02T09:00", "2026-02-30T10:00", "2024-02-29T23:59", "2026-01-01T24:00", "", "0000-00-00T00:00"} {
		f.Add(s)
	}
	apia := mustZone(f, "Pacific/Apia")
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWall(s)
		if err != nil {
			if !errors.Is(err, ErrBadWall) {
				t.Fatalf("ParseWall(%q) error %v lacks code", s, err)
			}
			return
		}
		if w.String() != s {
			t.Fatalf("ParseWall(%q).String() = %q", s, w.String())
		}
		if d, err := ParseDateAndTime(w.Date(), w.Clock()); err != nil || d != w {
			t.Fatalf("ParseDateAndTime(%q, %q) = %v, %v", w.Date(), w.Clock(), d, err)
		}
		r, _ := Resolve(w, apia)
		if w2 := WallOf(r, apia); w2.Before(w) {
			t.Fatalf("Resolve(%s) = %v runs early", w, r)
		}
	})
}

func FuzzParseDateAndTime(f *testing.F) {
	f.Add("2026-11-02", "09:00")
	f.Add("2026-11-02", "09:00:00")
	f.Add("2026-02-29", "9:00")
	f.Fuzz(func(t *testing.T, date, clock string) {
		w, err := ParseDateAndTime(date, clock)
		if err != nil {
			if !errors.Is(err, ErrBadDate) && !errors.Is(err, ErrBadTime) {
				t.Fatalf("error %v lacks code", err)
			}
			return
		}
		if w.Date() != date || (w.Clock() != clock && w.Clock()+":00" != clock) {
			t.Fatalf("ParseDateAndTime(%q, %q) = %v", date, clock, w)
		}
	})
}

func BenchmarkResolve(b *testing.B) {
	berlin := mustZone(b, "Europe/Berlin")
	for _, c := range []struct{ name, wall string }{
		{"normal", "2026-11-02T09:00"},
		{"gap", "2026-03-29T02:30"},
		{"overlap", "2026-10-25T02:30"},
	} {
		w := mustWall(b, c.wall)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				Resolve(w, berlin)
			}
		})
	}
}

// TestPastTheTable resolves wall times in years past the end of the zone
// tables, where Go's ZoneBounds can report an end at or before its input
// (leap years after 2037): Resolve once looped forever there.
func TestPastTheTable(t *testing.T) {
	for _, c := range []struct {
		zone, wall, want string
		adj              Adjustment
	}{
		{"Europe/Berlin", "2040-12-30T12:00", "2040-12-30T12:00:00+01:00", Exact},
		{"Europe/Berlin", "2040-12-31T23:30", "2040-12-31T23:30:00+01:00", Exact},
		{"Europe/Berlin", "2041-01-01T00:30", "2041-01-01T00:30:00+01:00", Exact},
		{"Europe/Berlin", "2044-12-31T10:00", "2044-12-31T10:00:00+01:00", Exact},
		{"Europe/Berlin", "2044-03-27T02:30", "2044-03-27T03:30:00+02:00", DSTGap},
		{"Europe/Berlin", "2044-10-30T02:30", "2044-10-30T02:30:00+02:00", Overlap},
		{"America/New_York", "2048-12-31T20:00", "2048-12-31T20:00:00-05:00", Exact},
		{"Australia/Sydney", "2040-12-31T12:00", "2040-12-31T12:00:00+11:00", Exact},
	} {
		loc, err := LoadZone(c.zone)
		if err != nil {
			t.Fatal(err)
		}
		w, err := ParseWall(c.wall)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		var got time.Time
		var adj Adjustment
		go func() { got, adj = Resolve(w, loc); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s %s: Resolve did not return", c.zone, c.wall)
		}
		if got.Format(time.RFC3339) != c.want || adj != c.adj {
			t.Errorf("%s %s: got %s %q, want %s %q", c.zone, c.wall, got.Format(time.RFC3339), adj, c.want, c.adj)
		}
	}
}
