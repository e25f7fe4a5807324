package identity

import (
	"errors"
	"sync/atomic"
)

// CountPasswordChecks makes e count the password hashes it compares (each
// a bcrypt hash's worth of CPU), for tests of the sign-in throttle.
func CountPasswordChecks(e *Identity) *atomic.Int64 {
	var n atomic.Int64
	check := e.checkPassword
	e.checkPassword = func(hash, password []byte) error {
		n.Add(1)
		return check(hash, password)
	}
	return &n
}

// ThrottleKeys is how many keys the sign-in throttle remembers, per
// account and per address.
func ThrottleKeys(e *Identity) (accounts, addrs int) {
	return e.throttle.Keys()
}

// BoundThrottle makes e's sign-in throttle remember at most n keys of each
// kind, and its password checks fail without hashing, so a test can fill
// it quickly.
func BoundThrottle(e *Identity, n int) {
	e.throttle.Bound(n)
	e.checkPassword = func(hash, password []byte) error { return errMismatch }
}

var errMismatch = errors.New("mismatch")
