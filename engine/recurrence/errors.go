package recurrence

// Error is the error of Parse, Validate, New and PresetRule. Code is stable
// (API responses and translations key on it), Part names the rule part at
// fault ("BYDAY"; empty for the rule as a whole) and Message is English for
// logs and API bodies. People see the translation of Code instead.
type Error struct {
	Code    string
	Part    string
	Message string
}

// Error returns "recurrence: code: message".
func (e *Error) Error() string { return "recurrence: " + e.Code + ": " + e.Message }

// Is makes errors.Is(err, ErrTooLong) and friends match on Code alone.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// with returns a copy of the sentinel e for one part, with a more specific
// message when one is given.
func (e *Error) with(part, message string) *Error {
	c := *e
	c.Part = part
	if message != "" {
		c.Message = message
	}
	return &c
}

// The refusals, one sentinel per stable code. The codes are not declared as
// separate string constants on purpose: each sentinel holds its code and its
// default English message together, and Codes lists them.
var (
	// The rule as written.
	ErrTooLong      = &Error{Code: "too_long", Message: "a rule has at most 300 characters"}
	ErrRRulePrefix  = &Error{Code: "rrule_prefix", Message: `write the rule without the "RRULE:" prefix`}
	ErrBadSyntax    = &Error{Code: "bad_syntax", Message: "a rule is NAME=VALUE parts separated by semicolons"}
	ErrUnknownPart  = &Error{Code: "unknown_part", Message: "unknown rule part"}
	ErrDuplicate    = &Error{Code: "duplicate_part", Message: "a part is given twice"}
	ErrMissingFreq  = &Error{Code: "missing_freq", Message: "a rule needs FREQ=DAILY, FREQ=WEEKLY or FREQ=MONTHLY"}
	ErrBadFreq      = &Error{Code: "bad_freq", Message: "FREQ is DAILY, WEEKLY or MONTHLY"}
	ErrFreq         = &Error{Code: "unsupported_freq", Message: "only FREQ=DAILY, WEEKLY and MONTHLY are supported"}
	ErrBySecond     = &Error{Code: "unsupported_bysecond", Message: "BYSECOND is not supported: times are whole minutes"}
	ErrByWeekNo     = &Error{Code: "unsupported_byweekno", Message: "BYWEEKNO is not supported"}
	ErrByYearDay    = &Error{Code: "unsupported_byyearday", Message: "BYYEARDAY is not supported"}
	ErrBySetPos     = &Error{Code: "unsupported_bysetpos", Message: "BYSETPOS is not supported: use an ordinal in BYDAY, such as 2TU or -1FR"}
	ErrByMonth      = &Error{Code: "unsupported_bymonth", Message: "BYMONTH is not supported: use FREQ=MONTHLY with INTERVAL"}
	ErrRDate        = &Error{Code: "unsupported_rdate", Message: "RDATE is not supported: add a separate one-off schedule"}
	ErrExDate       = &Error{Code: "unsupported_exdate", Message: "EXDATE is not supported: skip a single run instead"}
	ErrWkst         = &Error{Code: "unsupported_wkst", Message: "weeks start on Monday: WKST can only be MO"}
	ErrInterval     = &Error{Code: "bad_interval", Message: "INTERVAL is a whole number from 1 to 999"}
	ErrCount        = &Error{Code: "bad_count", Message: "COUNT is a whole number from 1 to 1000000"}
	ErrUntil        = &Error{Code: "bad_until", Message: "UNTIL is a UTC date and time such as 20261231T235959Z"}
	ErrByDay        = &Error{Code: "bad_byday", Message: "BYDAY lists weekdays MO, TU, WE, TH, FR, SA, SU, each with an optional ordinal 1 to 5 or -1 to -5"}
	ErrByMonthDay   = &Error{Code: "bad_bymonthday", Message: "BYMONTHDAY lists days 1 to 31, or -1 for the last day of the month"}
	ErrByHour       = &Error{Code: "bad_byhour", Message: "BYHOUR lists hours 0 to 23"}
	ErrByMinute     = &Error{Code: "bad_byminute", Message: "BYMINUTE lists minutes 0 to 59"}
	ErrManyMinutes  = &Error{Code: "too_many_byminute", Message: "BYMINUTE has at most four values"}
	ErrCountUntil   = &Error{Code: "count_and_until", Message: "give COUNT or UNTIL, not both"}
	ErrOrdinal      = &Error{Code: "ordinal_outside_monthly", Message: "BYDAY ordinals such as 2TU need FREQ=MONTHLY"}
	ErrOrdinalDay   = &Error{Code: "ordinal_with_bymonthday", Message: "BYDAY ordinals such as 2TU cannot be combined with BYMONTHDAY"}
	ErrMonthDayFreq = &Error{Code: "bymonthday_outside_monthly", Message: "BYMONTHDAY needs FREQ=MONTHLY"}

	// What the rule means (§9.3).
	ErrManyPerDay  = &Error{Code: "too_many_per_day", Message: "a rule has at most 24 occurrences a day"}
	ErrTooFrequent = &Error{Code: "too_frequent", Message: "occurrences must be at least one hour apart"}

	// A recurrence and presets.
	ErrBadStart      = &Error{Code: "bad_start", Message: "the start is not a valid date and time"}
	ErrMissingZone   = &Error{Code: "missing_zone", Message: "a recurrence needs a time zone"}
	ErrNeverOccurs   = &Error{Code: "never_occurs", Message: "this rule has no occurrence from this start"}
	ErrUnknownPreset = &Error{Code: "unknown_preset", Message: "a preset is once, hourly, daily, weekdays, weekly, monthly or custom"}
	ErrCustomPreset  = &Error{Code: "custom_preset", Message: "a custom rule is written out, not built from a preset"}
)

var sentinels = []*Error{
	ErrTooLong, ErrRRulePrefix, ErrBadSyntax, ErrUnknownPart, ErrDuplicate, ErrMissingFreq, ErrBadFreq,
	ErrFreq, ErrBySecond, ErrByWeekNo, ErrByYearDay, ErrBySetPos, ErrByMonth, ErrRDate, ErrExDate, ErrWkst,
	ErrInterval, ErrCount, ErrUntil, ErrByDay, ErrByMonthDay, ErrByHour, ErrByMinute, ErrManyMinutes,
	ErrCountUntil, ErrOrdinal, ErrOrdinalDay, ErrMonthDayFreq, ErrManyPerDay, ErrTooFrequent,
	ErrBadStart, ErrMissingZone, ErrNeverOccurs, ErrUnknownPreset, ErrCustomPreset,
}

// Codes returns every error code this package can return, so translations
// can be checked to cover them all.
func Codes() []string {
	out := make([]string, len(sentinels))
	for i, e := range sentinels {
		out[i] = e.Code
	}
	return out
}
