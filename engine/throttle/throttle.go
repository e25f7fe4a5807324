// Package throttle slows password guessing: per-account and per-address
// failure counts in this process's memory, locking a key for a time that
// doubles past its free failures (issue 10 item 4). It is pure:
// engine/identity's SignIn passes the time and decides what a lock means for
// a person.
package throttle

import (
	"net/netip"
	"strings"
	"sync"
	"time"
)

// Sign-in throttling (issue 10 item 4). Every try the throttle lets through
// counts as a failure the moment it is let through, for the account (the
// normalised email typed, whether or not an account has it) and for the
// client address (IPv4, or the IPv6 /64); a right password takes it back.
// Counting before the password is checked is what makes a burst of
// concurrent tries count as much as the same tries one after the other.
// Past a rule's free failures each one locks the key for a time that
// doubles; a locked key's tries are refused without a password check, so a
// flood costs no bcrypt hash.
//
// The counts live in this process's memory, bounded in size: they only have
// to slow a guesser down, a restart forgetting them gives a guesser a few
// free tries at most, and keeping them here means a flood of wrong passwords
// writes nothing but its audit rows (one per try let through) to the
// database. Several processes sharing one database each count their own
// tries; the per-account rule still holds within each.

// Rule is how one kind of key slows down: Free failures cost
// nothing; the next one locks the key for First, each after it for twice as
// long as the one before, at most Max. One failure is forgotten for every
// Leak that passes without a try.
type Rule struct {
	Free       int
	First, Max time.Duration
	Leak       time.Duration
}

// The sign-in rules. An account is locked from its 6th failure in a row (1
// min, then 2, 4, 8, 16, 32 min, then an hour each), a success forgets them
// all. An address, which may be an office behind one router, has 20 free
// failures across all accounts and forgets one every 3 minutes; its
// successes take back only their own count.
var (
	AccountRule = Rule{Free: 5, First: time.Minute, Max: time.Hour, Leak: time.Hour}
	AddressRule = Rule{Free: 20, First: time.Minute, Max: time.Hour, Leak: 3 * time.Minute}
)

// throttleKeys bounds each table: past it the quietest key is forgotten.
const throttleKeys = 10000

// maxKeyBytes bounds one key: no email address is longer.
const maxKeyBytes = 320

type strikes struct {
	fails int
	last  time.Time // the last try counted
	until time.Time // locked until then
}

type strikeTable struct {
	rule Rule
	max  int
	m    map[string]*strikes
}

func newStrikeTable(rule Rule, max int) *strikeTable {
	return &strikeTable{rule: rule, max: max, m: map[string]*strikes{}}
}

// leak forgets the failures that Leak has worn off by now.
func (t *strikeTable) leak(s *strikes, now time.Time) {
	if t.rule.Leak <= 0 || s.fails == 0 || !now.After(s.last) {
		return
	}
	n := int(now.Sub(s.last) / t.rule.Leak)
	if n >= s.fails {
		s.fails = 0
	} else {
		s.fails -= n
	}
	s.last = s.last.Add(time.Duration(n) * t.rule.Leak)
}

// wait is how long key stays locked at now (0: not locked).
func (t *strikeTable) wait(key string, now time.Time) time.Duration {
	if s, ok := t.m[key]; ok && now.Before(s.until) {
		return s.until.Sub(now)
	}
	return 0
}

// count adds a failure to key at now and returns the lock it had before and
// the lock it has now.
func (t *strikeTable) count(key string, now time.Time) (before, after time.Time) {
	s, ok := t.m[key]
	if !ok {
		t.makeRoom(now)
		s = &strikes{}
		t.m[key] = s
	}
	t.leak(s, now)
	before = s.until
	s.fails++
	s.last = now
	if over := s.fails - t.rule.Free; over > 0 {
		d := t.rule.Max
		if over <= 30 && t.rule.First<<(over-1) < t.rule.Max {
			d = t.rule.First << (over - 1)
		}
		s.until = now.Add(d)
	}
	return before, s.until
}

// undo takes back one counted failure of key whose count set lock set (and
// found prev before it).
func (t *strikeTable) undo(key string, prev, set time.Time) {
	s, ok := t.m[key]
	if !ok {
		return
	}
	if s.fails > 0 {
		s.fails--
	}
	if s.until.Equal(set) {
		s.until = prev
	}
	if s.fails == 0 && !s.until.After(s.last) {
		delete(t.m, key)
	}
}

// makeRoom forgets keys when the table is full: first those with nothing
// left to remember, then, if none, the one whose last try is the oldest.
func (t *strikeTable) makeRoom(now time.Time) {
	if len(t.m) < t.max {
		return
	}
	for k, s := range t.m {
		t.leak(s, now)
		if s.fails == 0 && !now.Before(s.until) {
			delete(t.m, k)
		}
	}
	if len(t.m) < t.max {
		return
	}
	var oldest string
	var at time.Time
	for k, s := range t.m {
		if oldest == "" || s.last.Before(at) {
			oldest, at = k, s.last
		}
	}
	delete(t.m, oldest)
}

// Throttle holds the per-account and per-address counts. Its methods are
// safe for concurrent use.
type Throttle struct {
	mu       sync.Mutex
	accounts *strikeTable
	addrs    *strikeTable
}

// New returns a throttle with the sign-in rules and bounded tables.
func New() *Throttle {
	return &Throttle{accounts: newStrikeTable(AccountRule, throttleKeys),
		addrs: newStrikeTable(AddressRule, throttleKeys)}
}

// Ticket is one try let through, counted as a failure until it is settled.
type Ticket struct {
	account, addr           string
	accountPrev, accountSet time.Time
	addrPrev, addrSet       time.Time
	now                     time.Time
}

// LockedFor is how long this try, if it failed, locks its account or its
// address (the longer of the two; 0 for neither).
func (tk Ticket) LockedFor() time.Duration {
	var d time.Duration
	if !tk.accountSet.Equal(tk.accountPrev) {
		d = tk.accountSet.Sub(tk.now)
	}
	if !tk.addrSet.Equal(tk.addrPrev) {
		d = max(d, tk.addrSet.Sub(tk.now))
	}
	return max(d, 0)
}

// Admit lets a try through and counts it, or says how long to wait.
func (t *Throttle) Admit(account, addr string, now time.Time) (Ticket, time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	wait := t.accounts.wait(account, now)
	if addr != "" {
		wait = max(wait, t.addrs.wait(addr, now))
	}
	if wait > 0 {
		return Ticket{}, wait
	}
	tk := Ticket{account: account, addr: addr, now: now}
	tk.accountPrev, tk.accountSet = t.accounts.count(account, now)
	if addr != "" {
		tk.addrPrev, tk.addrSet = t.addrs.count(addr, now)
	}
	return tk, 0
}

// Succeeded settles a try with the right password: the account's failures
// are forgotten, the address's count of this try taken back.
func (t *Throttle) Succeeded(tk Ticket) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.accounts.m, tk.account)
	if tk.addr != "" {
		t.addrs.undo(tk.addr, tk.addrPrev, tk.addrSet)
	}
}

// Abandon settles a try that could not be checked (a store error): it
// counts for neither key.
func (t *Throttle) Abandon(tk Ticket) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.accounts.undo(tk.account, tk.accountPrev, tk.accountSet)
	if tk.addr != "" {
		t.addrs.undo(tk.addr, tk.addrPrev, tk.addrSet)
	}
}

// AccountKey is the throttle's key for an email as typed: trimmed, lower
// case, at most maxKeyBytes.
func AccountKey(email string) string {
	return truncateBytes(strings.ToLower(strings.TrimSpace(email)), maxKeyBytes)
}

// AddressGroup is the throttle's key for a client address: an IPv4 address
// itself, an IPv6 address's /64 (one household or server usually holds a
// whole /64), an IPv4-mapped IPv6 address as IPv4. What does not parse as an
// address is kept as given, shortened; "" is no address (not throttled by
// address).
func AddressGroup(client string) string {
	a, err := netip.ParseAddr(client)
	if err != nil {
		return truncateBytes(client, 64)
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	p, err := a.Prefix(64)
	if err != nil {
		return a.String()
	}
	return p.String()
}

// truncateBytes shortens s to at most n bytes without splitting a UTF-8
// character.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// Keys is how many keys the throttle remembers, per account and per
// address (for tests).
func (t *Throttle) Keys() (accounts, addrs int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.accounts.m), len(t.addrs.m)
}

// Bound makes the throttle remember at most n keys of each kind (for
// tests that fill it quickly).
func (t *Throttle) Bound(n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.accounts.max, t.addrs.max = n, n
}
