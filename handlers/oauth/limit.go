package oauth

import (
	"sync"
	"time"
)

// Registration is open to anyone, and each stores a client: an address
// registers at most registrationsPerWindow clients a window, so a script
// cannot fill the database. A connector registers once, and again only
// when it forgets its client id.
const (
	registrationsPerWindow = 20
	registrationWindow     = 10 * time.Minute
	// limitedAddresses bounds the table; past it, it starts afresh.
	limitedAddresses = 10000
)

// addressLimit counts an address's registrations in the current window.
type addressLimit struct {
	mu    sync.Mutex
	now   func() time.Time
	seen  map[string]window
	limit int
	span  time.Duration
}

type window struct {
	start time.Time
	n     int
}

func newAddressLimit(now func() time.Time) *addressLimit {
	return &addressLimit{now: now, seen: map[string]window{}, limit: registrationsPerWindow, span: registrationWindow}
}

// allow counts one registration from the client address host and
// reports whether it is within the limit, with the wait until the
// address's window ends when it is not.
func (l *addressLimit) allow(host string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	w := l.seen[host]
	if now.Sub(w.start) >= l.span {
		w = window{start: now}
	}
	if w.n >= l.limit {
		return false, w.start.Add(l.span).Sub(now)
	}
	w.n++
	if len(l.seen) >= limitedAddresses {
		clear(l.seen)
	}
	l.seen[host] = w
	return true, 0
}
