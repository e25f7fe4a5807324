package localtime

import (
	"strconv"
	"time"
)

// Error codes. They are stable: API responses and translations key on them.
const (
	CodeBadWall    = "bad_wall"
	CodeBadDate    = "bad_date"
	CodeBadTime    = "bad_time"
	CodeBadZone    = "bad_zone"
	CodeBadInstant = "bad_instant"
)

// ParseError is the error of every parser in this package. Code is stable;
// Reason is for people and may change.
type ParseError struct {
	Code   string
	Input  string
	Reason string
}

// Error returns "localtime: code: reason: \"input\"".
func (e *ParseError) Error() string {
	if e.Reason == "" {
		return "localtime: " + e.Code
	}
	return "localtime: " + e.Code + ": " + e.Reason + ": " + quote(e.Input)
}

// Is makes errors.Is(err, ErrBadWall) and friends match on Code alone.
func (e *ParseError) Is(target error) bool {
	t, ok := target.(*ParseError)
	return ok && t.Code == e.Code
}

// Sentinels for errors.Is, one per code.
var (
	ErrBadWall    = &ParseError{Code: CodeBadWall}
	ErrBadDate    = &ParseError{Code: CodeBadDate}
	ErrBadTime    = &ParseError{Code: CodeBadTime}
	ErrBadZone    = &ParseError{Code: CodeBadZone}
	ErrBadInstant = &ParseError{Code: CodeBadInstant}
)

// ParseWall parses the strict form "YYYY-MM-DDTHH:MM" (the RFC's pattern),
// and refuses days that do not exist in their month, such as 2026-02-30.
// Errors have Code CodeBadWall.
func ParseWall(s string) (Wall, error) {
	bad := &ParseError{Code: CodeBadWall, Input: s, Reason: "want YYYY-MM-DDTHH:MM"}
	if len(s) != 16 || s[10] != 'T' {
		return Wall{}, bad
	}
	w, ok := parseDate(s[:10])
	if !ok {
		return Wall{}, bad
	}
	if w.Hour, w.Minute, ok = parseClock(s[11:]); !ok {
		return Wall{}, bad
	}
	return w, nil
}

// ParseDateAndTime parses what an HTML form posts: date "YYYY-MM-DD" from an
// <input type=date> and clock "HH:MM" from an <input type=time>. Browsers may
// post "HH:MM:SS" when a step allows seconds, so that is accepted when the
// seconds are "00". A bad date has Code CodeBadDate, a bad clock CodeBadTime,
// so a form can mark the right field.
func ParseDateAndTime(date, clock string) (Wall, error) {
	w, ok := parseDate(date)
	if !ok {
		return Wall{}, &ParseError{Code: CodeBadDate, Input: date, Reason: "want YYYY-MM-DD"}
	}
	if len(clock) == 8 && clock[5:] == ":00" {
		clock = clock[:5]
	}
	if w.Hour, w.Minute, ok = parseClock(clock); !ok {
		return Wall{}, &ParseError{Code: CodeBadTime, Input: clock, Reason: "want HH:MM"}
	}
	return w, nil
}

// parseDate reads "YYYY-MM-DD" with a day that exists in its month.
func parseDate(s string) (Wall, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return Wall{}, false
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > daysIn(y, time.Month(m)) {
		return Wall{}, false
	}
	return Wall{Year: y, Month: time.Month(m), Day: d}, true
}

// parseClock reads "HH:MM" on a 24-hour clock.
func parseClock(s string) (hour, minute int, ok bool) {
	if len(s) != 5 || s[2] != ':' {
		return 0, 0, false
	}
	h, ok1 := digits(s[0:2])
	m, ok2 := digits(s[3:5])
	if !ok1 || !ok2 || h > 23 || m > 59 {
		return 0, 0, false
	}
	return h, m, true
}

// digits reads ASCII digits only; strconv.Atoi would also take signs.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

func daysIn(year int, m time.Month) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// quote keeps error messages short and printable whatever was posted.
func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return strconv.Quote(s)
}
