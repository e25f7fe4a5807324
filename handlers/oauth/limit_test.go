package oauth

import (
	"testing"
	"time"
)

// TestRegistrationLimit: an address registers registrationsPerWindow
// clients a window, then waits for the window's end; another address, or
// the same one in the next window, is counted afresh.
func TestRegistrationLimit(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	l := newAddressLimit(func() time.Time { return now })
	for i := range registrationsPerWindow {
		if ok, _ := l.allow("203.0.113.7"); !ok {
			t.Fatalf("registration %d refused", i+1)
		}
	}
	now = now.Add(time.Minute)
	ok, wait := l.allow("203.0.113.7")
	if ok || wait != registrationWindow-time.Minute {
		t.Fatalf("over the limit: allowed %v, wait %v", ok, wait)
	}
	if ok, _ := l.allow("198.51.100.1"); !ok {
		t.Fatal("another address refused")
	}
	now = now.Add(registrationWindow)
	if ok, _ := l.allow("203.0.113.7"); !ok {
		t.Fatal("refused in the next window")
	}
}
