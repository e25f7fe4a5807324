package store_test

import (
	"context"
	"testing"
	"time"

	"studio/store"
	"studio/store/storetest"
)

// TestWhoWaitsForAWrite: on PostgreSQL a publish of one site and a
// publish of another run side by side (each holds the write lock shared
// and its own site's lock); a publish of the same site, or any other
// write, waits for it, and it for them. On SQLite every write waits for
// the one in progress (the file has one writer). Two stores on one
// database stand for two instances.
func TestWhoWaitsForAWrite(t *testing.T) {
	address := storetest.Database(t)
	open := func() *store.Store {
		s, err := store.Open(context.Background(), address)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	one, other := open(), open()
	postgres := one.Postgres()
	cases := []struct {
		name        string
		held, asked string // the sites whose publish each is ("" for another write)
		sideBySide  bool
	}{
		{"publishes of two sites", "site_X", "site_Y", postgres},
		{"publishes of one site", "site_X", "site_X", false},
		{"another write during a publish", "site_X", "", false},
		{"a publish during another write", "", "site_Y", false},
		{"two other writes", "", "", false},
	}
	for _, c := range cases {
		ctx := context.Background()
		began, release := make(chan struct{}), make(chan struct{})
		held := make(chan error, 1)
		go func() { held <- one.WriteHeld(ctx, c.held, began, release) }()
		<-began
		asked := make(chan error, 1)
		go func() {
			b := make(chan struct{})
			close(b)
			asked <- other.WriteHeld(ctx, c.asked, make(chan struct{}), b)
		}()
		if c.sideBySide {
			select {
			case err := <-asked:
				if err != nil {
					t.Errorf("%s: %v", c.name, err)
				}
			case <-time.After(10 * time.Second):
				t.Errorf("%s: the second waited for the first", c.name)
			}
			close(release)
		} else {
			select {
			case err := <-asked:
				t.Errorf("%s: the second did not wait for the first (%v)", c.name, err)
				close(release)
			case <-time.After(300 * time.Millisecond):
				close(release)
				if err := <-asked; err != nil {
					t.Errorf("%s, after the first: %v", c.name, err)
				}
			}
		}
		if err := <-held; err != nil {
			t.Errorf("%s, the first: %v", c.name, err)
		}
	}
}
