package release

import "time"

const (
	// LateLimit is how late a release may still run (owner decision 2, §8.6).
	LateLimit = time.Hour
	// MinLead is the least lead time for a chosen time; closer is "Publish
	// now" or on-approval (§6.1 step 7).
	MinLead = time.Minute
	// MaxHorizon is how far ahead a release may be scheduled (§6.1, §9.5).
	MaxHorizon = 366 * 24 * time.Hour
)

// CheckTime refuses a release time outside [now + MinLead, now + MaxHorizon]:
// CodeTimeInPast before now, CodeTooSoon within the minute, CodeTooFar beyond
// the horizon. Both bounds are inclusive. Dropping seconds (§9.5) is the
// caller's job.
func CheckTime(at, now time.Time) error {
	switch {
	case at.Before(now):
		return &Error{Code: CodeTimeInPast}
	case at.Before(now.Add(MinLead)):
		return &Error{Code: CodeTooSoon}
	case at.After(now.Add(MaxHorizon)):
		return &Error{Code: CodeTooFar}
	}
	return nil
}

// Lateness is how late a run at now is, in whole seconds rounded down, and 0
// when it is not late (the contract's latenessSeconds is an integer, §4.2).
func Lateness(executeAt, now time.Time) int64 {
	d := now.Sub(executeAt)
	if d <= 0 {
		return 0
	}
	return int64(d / time.Second)
}

// IsMissed reports whether a release due at executeAt may no longer run at
// now: more than LateLimit late (§8.6). Exactly one hour late still runs.
func IsMissed(executeAt, now time.Time) bool {
	return now.Sub(executeAt) > LateLimit
}

// retryDelays is the back-off for transient errors (§8.6, §8.8).
var retryDelays = []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute}

// RetryDelay is the wait before the next try after attempt failed tries
// (attempt 1 is the first failure): 30 s, 1, 2, 5, then 10 min from then on.
// The retries stop when IsMissed says so, not here.
func RetryDelay(attempt int) time.Duration {
	i := min(max(attempt, 1), len(retryDelays)) - 1
	return retryDelays[i]
}
