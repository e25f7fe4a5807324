package recurrence

import (
	"testing"
	"time"

	"studio/engine/localtime"
)

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := localtime.LoadZone(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func mustWall(t testing.TB, s string) localtime.Wall {
	t.Helper()
	w, err := localtime.ParseWall(s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func mustParse(t testing.TB, s string) *Rule {
	t.Helper()
	r, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return &r
}

// mustNew builds a recurrence from a rule string ("" for once), a start
// and a zone name.
func mustNew(t testing.TB, rule, start, zone string) Recurrence {
	t.Helper()
	var r *Rule
	if rule != "" {
		r = mustParse(t, rule)
	}
	rc, err := New(mustWall(t, start), mustZone(t, zone), r)
	if err != nil {
		t.Fatalf("New(%q, %s, %s): %v", rule, start, zone, err)
	}
	return rc
}
