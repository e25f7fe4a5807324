package recurrence

import (
	"math/bits"
	"time"
)

// Counting without listing: cumDay counts whole periods by arithmetic (a
// step per month for MONTHLY, whose months differ) and corrects for DST
// gaps by walking the zone's changes, so Latest, CountBetween and COUNT
// never cost a step per occurrence, however far from Start.

// before counts the rule's wall-clock times on days before day D in active
// periods from period 0, ignoring Start's time: whole periods by arithmetic
// (months one by one: their lengths differ), then the part of D's period.
func (x *expander) before(D int) int {
	q := x.periodOf(D)
	if q < 0 {
		return 0
	}
	n := 0
	switch x.freq {
	case Daily:
		k := ceilDiv(q, x.interval) // active days before D
		if x.daily == 0 {
			n = k
			break
		}
		// Active days' weekdays repeat every seven of them.
		for i := 0; i < 7 && i < k; i++ {
			if x.daily&(1<<weekdayOf(x.base+i*x.interval)) != 0 {
				n += ceilDiv(k-i, 7)
			}
		}
	case Weekly:
		n = ceilDiv(q, x.interval) * bits.OnesCount32(x.week)
	default:
		for p := 0; p < q; p += x.interval {
			_, mask := x.days(p)
			n += bits.OnesCount32(mask)
		}
	}
	first, mask := x.days(q)
	n += bits.OnesCount32(mask & (1<<(D-first) - 1))
	return n * len(x.times)
}

// cumDay returns how many occurrences (before COUNT and UNTIL) have a
// resolved wall-clock time before day D's midnight: the candidates before
// it, less those a DST gap moves past midnight or onto another candidate.
func (x *expander) cumDay(D int) int {
	if int64(D)*1440 <= x.start {
		return 0
	}
	return x.before(D) - x.skipped - x.lost(D)
}

// lost counts candidates before day D's midnight that D2 moves forward out
// of a gap either past that midnight or onto another candidate. It walks
// the zone's transitions from Start: a couple a year.
func (x *expander) lost(D int) int {
	limit := int64(D) * 1440
	n := 0
	t := time.Unix(x.start*60-3*86400, 0).In(x.loc)
	for {
		end, off, next, ok := nextChange(t)
		if !ok || end.Unix() > limit*60+2*86400 {
			return n
		}
		if next > off {
			gap := floorDiv64(end.Unix()+int64(off), 60) // the first wall-clock minute that does not exist
			shift := int64(next-off) / 60
			for day := floorDiv64(gap, 1440); day*1440 < min(gap+shift, limit); day++ {
				if !x.dayCandidate(int(day)) {
					continue
				}
				for _, tod := range x.times {
					w := day*1440 + int64(tod)
					if w >= gap && w < gap+shift && w < limit && w >= x.start &&
						(w+shift >= limit || x.isCandidate(w+shift)) {
						n++
					}
				}
			}
		}
		t = end
	}
}

// dayAt returns the zone's day number at Unix second sec.
func (x *expander) dayAt(sec int64) int {
	_, off := time.Unix(sec, 0).In(x.loc).Zone()
	return int(floorDiv64(sec+int64(off), 86400))
}

// countBefore returns how many occurrences (before COUNT and UNTIL) are
// earlier than Unix second sec: those before the local day by cumDay, the
// rest of that day by expanding it.
func (x *expander) countBefore(sec int64) int {
	D := x.dayAt(sec)
	n := x.cumDay(D)
	s := x.stream(D)
	for {
		it, ok := s.next()
		if !ok || it.at >= sec {
			return n
		}
		n++
	}
}

// nth returns occurrence k (from 0), knowing it is resolved before day hi:
// it bisects days on cumDay, then expands from the day found.
func (x *expander) nth(k, hi int) item {
	lo := x.startDay
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if x.cumDay(mid) <= k {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	s := x.stream(lo)
	for i := x.cumDay(lo); ; i++ {
		it, ok := s.next()
		if !ok || i == k {
			return it
		}
	}
}
