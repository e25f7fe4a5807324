package recurrence

import (
	"time"

	"studio/engine/localtime"
)

// The expander counts in plain numbers: a day is the number of days since
// 1970-01-01 and a wall-clock time the number of minutes since its midnight,
// both on the floating (zone-less) calendar. That keeps the hot loops free of
// time.Date and makes whole periods countable by arithmetic.

// dayOf returns the day number of a civil date (Howard Hinnant's
// days_from_civil).
func dayOf(y int, m time.Month, d int) int {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (int(m) + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civil is the inverse of dayOf.
func civil(day int) (int, time.Month, int) {
	z := day + 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := (mp+2)%12 + 1
	y := yoe + era*400
	if m <= 2 {
		y++
	}
	return y, time.Month(m), d
}

// weekdayOf returns the weekday of a day number; 1970-01-01 was a Thursday.
func weekdayOf(day int) time.Weekday { return time.Weekday(mod(day+4, 7)) }

// mondayIndex counts weekdays from Monday = 0, as weeks start on Monday.
func mondayIndex(w time.Weekday) int { return (int(w) + 6) % 7 }

func daysIn(y int, m time.Month) int {
	switch m {
	case time.February:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}

// wallMinutes returns a wall-clock time as minutes since the floating epoch.
func wallMinutes(w localtime.Wall) int64 {
	return int64(dayOf(w.Year, w.Month, w.Day))*1440 + int64(w.Hour*60+w.Minute)
}

// wallAt is the inverse of wallMinutes.
func wallAt(m int64) localtime.Wall {
	day := floorDiv64(m, 1440)
	y, mo, d := civil(int(day))
	tod := int(m - day*1440)
	return localtime.Wall{Year: y, Month: mo, Day: d, Hour: tod / 60, Minute: tod % 60}
}

// validWall reports whether w names a real minute on the calendar.
func validWall(w localtime.Wall) bool {
	return w.Month >= 1 && w.Month <= 12 && w.Day >= 1 && w.Day <= daysIn(w.Year, w.Month) &&
		w.Hour >= 0 && w.Hour < 24 && w.Minute >= 0 && w.Minute < 60
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorDiv64(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func mod(a, b int) int { return a - floorDiv(a, b)*b }

func ceilDiv(a, b int) int { return -floorDiv(-a, b) }
