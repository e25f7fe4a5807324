package recurrence

import (
	"math"
	"math/bits"
	"slices"
	"time"

	"studio/engine/localtime"
)

// expander is a Recurrence prepared for counting. Days are day numbers and
// wall-clock times minutes (calendar.go); a period is a day (DAILY), a week
// from Monday (WEEKLY) or a month (MONTHLY), numbered from Start's, and only
// periods whose number is a multiple of the interval are active.
type expander struct {
	loc      *time.Location
	freq     Freq
	interval int
	times    []int // minutes of the day, ascending
	byDay    []WeekdayNum
	monthDay []int
	daily    uint8  // DAILY with BYDAY: the weekdays allowed (bit = time.Weekday); 0 = all
	week     uint32 // WEEKLY: the days of the week, bit 0 = Monday
	base     int    // period 0: its first day, or (MONTHLY) its year*12 + month-1
	start    int64  // Start in minutes
	startDay int
	skipped  int // candidates in period 0 before Start (on earlier days, and earlier that day)
	count    int
	until    int64 // inclusive, Unix seconds; MaxInt64 when none
}

func (rc Recurrence) expander() *expander {
	r := Rule{Freq: Daily, Interval: 1, Count: 1} // once is a one-time daily rule at Start
	if rc.Rule != nil {
		r = *rc.Rule
	}
	st := rc.Start
	x := &expander{
		loc: rc.Zone, freq: r.Freq, interval: max(r.Interval, 1), byDay: r.ByDay, monthDay: r.ByMonthDay,
		start: wallMinutes(st), count: r.Count, until: math.MaxInt64,
	}
	if r.Until != nil {
		x.until = r.Until.Unix()
	}
	hours, minutes := r.ByHour, r.ByMinute
	if len(hours) == 0 {
		hours = []int{st.Hour}
	}
	if len(minutes) == 0 {
		minutes = []int{st.Minute}
	}
	x.times = timesOfDay(hours, minutes)
	x.startDay = int(floorDiv64(x.start, 1440))
	switch r.Freq {
	case Daily:
		x.base = x.startDay
		for _, d := range r.ByDay {
			x.daily |= 1 << d.Weekday
		}
	case Weekly:
		x.base = x.startDay - mondayIndex(weekdayOf(x.startDay))
		days := r.ByDay
		if len(days) == 0 {
			days = []WeekdayNum{{Weekday: weekdayOf(x.startDay)}}
		}
		for _, d := range days {
			x.week |= 1 << mondayIndex(d.Weekday)
		}
	default:
		x.base = st.Year*12 + int(st.Month) - 1
		if len(r.ByDay) == 0 && len(r.ByMonthDay) == 0 {
			x.monthDay = []int{st.Day}
		}
	}
	x.skipped = x.before(x.startDay)
	if x.dayCandidate(x.startDay) {
		earlier, _ := slices.BinarySearch(x.times, int(x.start-int64(x.startDay)*1440))
		x.skipped += earlier
	}
	return x
}

func (x *expander) periodOf(day int) int {
	switch x.freq {
	case Daily:
		return day - x.base
	case Weekly:
		return floorDiv(day-x.base, 7)
	}
	y, m, _ := civil(day)
	return y*12 + int(m) - 1 - x.base
}

// periodFirst returns the first day of period p.
func (x *expander) periodFirst(p int) int {
	switch x.freq {
	case Daily:
		return x.base + p
	case Weekly:
		return x.base + 7*p
	}
	mi := x.base + p
	return dayOf(floorDiv(mi, 12), time.Month(mod(mi, 12)+1), 1)
}

// days returns period p's first day and its candidate days as a mask (bit i
// = first + i); the mask is empty for inactive periods.
func (x *expander) days(p int) (first int, mask uint32) {
	first = x.periodFirst(p)
	if p < 0 || p%x.interval != 0 {
		return first, 0
	}
	switch x.freq {
	case Daily:
		if x.daily == 0 || x.daily&(1<<weekdayOf(first)) != 0 {
			mask = 1
		}
	case Weekly:
		mask = x.week
	default:
		y, m, _ := civil(first)
		mask = monthMask(daysIn(y, m), weekdayOf(first), x.byDay, x.monthDay)
	}
	return first, mask
}

// monthMask returns the days of a month of n days starting on weekday
// first that a MONTHLY rule picks, as a mask with bit d-1 for day d.
// BYMONTHDAY picks days and BYDAY (without ordinals) then limits them, as
// RFC 5545 says; without BYMONTHDAY, BYDAY picks: every such weekday, or the
// nth from the start or the end. Days the month does not have are skipped.
func monthMask(n int, first time.Weekday, byDay []WeekdayNum, byMonthDay []int) uint32 {
	var mask uint32
	if len(byMonthDay) > 0 {
		for _, d := range byMonthDay {
			if d == -1 {
				d = n
			}
			if d <= n {
				mask |= 1 << (d - 1)
			}
		}
		if len(byDay) == 0 {
			return mask
		}
		var keep uint32
		for _, wd := range byDay {
			keep |= everyWeekday(n, first, wd.Weekday)
		}
		return mask & keep
	}
	for _, wd := range byDay {
		every := everyWeekday(n, first, wd.Weekday)
		switch {
		case wd.N == 0:
			mask |= every
		case wd.N > 0:
			mask |= nthBit(every, wd.N-1)
		default:
			mask |= nthBit(every, bits.OnesCount32(every)+wd.N)
		}
	}
	return mask
}

// everyWeekday is the mask of every day with weekday wd in the month.
func everyWeekday(n int, first, wd time.Weekday) uint32 {
	var mask uint32
	for d := 1 + mod(int(wd)-int(first), 7); d <= n; d += 7 {
		mask |= 1 << (d - 1)
	}
	return mask
}

// nthBit keeps the i-th set bit of mask (from 0), or nothing.
func nthBit(mask uint32, i int) uint32 {
	if i < 0 {
		return 0
	}
	for ; mask != 0; i-- {
		low := mask & -mask
		if i == 0 {
			return low
		}
		mask &^= low
	}
	return 0
}

func (x *expander) dayCandidate(day int) bool {
	first, mask := x.days(x.periodOf(day))
	return mask>>(day-first)&1 != 0
}

func (x *expander) isCandidate(w int64) bool {
	day := floorDiv64(w, 1440)
	_, ok := slices.BinarySearch(x.times, int(w-day*1440))
	return w >= x.start && ok && x.dayCandidate(int(day))
}

// item is one occurrence in minutes and seconds: wall is the rule's
// wall-clock time, eff the wall-clock time it resolved to (later than wall
// only after a gap), at the instant.
type item struct {
	at, wall, eff int64
	gap           bool
}

func (it item) occurrence() Occurrence {
	o := Occurrence{At: time.Unix(it.at, 0).UTC(), Local: wallAt(it.wall)}
	if it.gap {
		o.Adjusted = localtime.DSTGap
	}
	return o
}

// maxIdle bounds the active periods a stream expands without finding a
// candidate: 4800 months are 400 Gregorian years, after which the calendar
// repeats, so a MONTHLY rule that finds nothing in them never will.
const maxIdle = 4800

// stream yields occurrences in order of their instants. Periods are
// expanded in calendar order, but a time moved out of a gap can overtake
// later ones (Troll's two-hour gap moves 02:07 to 04:07, after the rule's
// 03:07; Apia's skipped 30 December moves into the 31st, a later period),
// so resolved times wait in buf, sorted by resolved wall-clock time, until
// no later period can produce an earlier one: every later candidate's
// wall-clock time, and so its resolved one, is at least that period's first
// midnight. Among wall-clock times that exist, resolution keeps the order.
type stream struct {
	x    *expander
	r    resolver
	p    int    // the next period to expand
	from int64  // only resolved wall-clock times from here on are wanted
	buf  []item // buf[head:] waits; the rest is reused
	head int
	idle int
}

// stream starts two days early, since a gap moves a time forward by less
// than two days.
func (x *expander) stream(fromDay int) *stream {
	p := max(x.periodOf(fromDay-2), 0)
	return &stream{
		x: x, r: resolver{loc: x.loc, lo: math.MaxInt64, hi: math.MinInt64},
		p: ceilDiv(p, x.interval) * x.interval, from: int64(fromDay) * 1440,
	}
}

func (s *stream) next() (item, bool) {
	for {
		if s.head < len(s.buf) && s.buf[s.head].eff < int64(s.x.periodFirst(s.p))*1440 {
			s.head++
			return s.buf[s.head-1], true
		}
		s.buf, s.head = s.buf[:copy(s.buf, s.buf[s.head:])], 0
		if s.idle >= maxIdle {
			return item{}, false
		}
		s.expand()
	}
}

func (s *stream) expand() {
	first, mask := s.x.days(s.p)
	s.p += s.x.interval
	if mask == 0 {
		s.idle++
		return
	}
	s.idle = 0
	for ; mask != 0; mask &= mask - 1 {
		day := int64(first + bits.TrailingZeros32(mask))
		for _, t := range s.x.times {
			w := day*1440 + int64(t)
			if w < s.x.start {
				continue
			}
			at, eff, gap := s.r.resolve(w)
			if eff >= s.from {
				s.insert(item{at: at, wall: w, eff: eff, gap: gap})
			}
		}
	}
}

func (s *stream) insert(it item) {
	i := len(s.buf)
	for i > 0 && s.buf[i-1].eff > it.eff {
		i--
	}
	if i > 0 && s.buf[i-1].eff == it.eff {
		if s.buf[i-1].gap && !it.gap {
			s.buf[i-1] = it // keep the time the rule has, not the one moved onto it
		}
		return
	}
	s.buf = slices.Insert(s.buf, i, it)
}

// resolver is localtime.Resolve with a cache: a wall-clock time read with
// the cached offset that lands inside that offset's span exists there, so
// unless it lands in the span's first moments that an autumn change repeats
// (second instants), it is the answer and needs no zone walk. Only times
// near a change of offset reach localtime.Resolve.
type resolver struct {
	loc    *time.Location
	off    int64 // seconds east of UTC
	lo, hi int64 // Unix seconds where the cached offset gives the answer
}

// resolve returns the instant of wall-clock time w (minutes), its resolved
// wall-clock time in minutes and whether it was moved out of a gap.
func (r *resolver) resolve(w int64) (at, eff int64, gap bool) {
	if u := w*60 - r.off; u >= r.lo && u < r.hi {
		return u, w, false
	}
	// Try the offset in force at w's naive instant before the zone walk.
	if r.fill(time.Unix(w*60, 0).In(r.loc)); w*60-r.off >= r.lo && w*60-r.off < r.hi {
		return w*60 - r.off, w, false
	}
	t, adj := localtime.Resolve(wallAt(w), r.loc)
	r.fill(t)
	at = t.Unix()
	return at, floorDiv64(at+r.off, 60), adj == localtime.DSTGap
}

// fill caches the span of t's offset, from the change before t (less its
// repeated part) to the change after.
func (r *resolver) fill(t time.Time) {
	_, off := t.Zone()
	r.off, r.lo, r.hi = int64(off), math.MinInt64, math.MaxInt64
	if start, prev, ok := lastChange(t); ok {
		r.lo = start.Unix() + max(0, int64(prev-off))
	}
	if end, _, _, ok := nextChange(t); ok {
		r.hi = end.Unix()
	}
}
