package automation

import (
	"math/rand"
	"testing"
	"time"
)

func TestDueOccurrences(t *testing.T) {
	s := newList(at("2026-11-02T06:00:00Z"), at("2026-11-02T07:00:00Z"), at("2026-11-02T08:00:00Z"), at("2026-11-02T09:00:00Z"))
	var zero time.Time
	tests := []struct {
		name        string
		lastHandled time.Time
		now         time.Time
		run         string // "" = nothing to run
		coalesced   int
		next        string // "" = no next
	}{
		{"before the first", zero, at("2026-11-02T05:59:59Z"), "", 0, "2026-11-02T06:00:00Z"},
		{"at the first, exactly", zero, at("2026-11-02T06:00:00Z"), "2026-11-02T06:00:00Z", 0, "2026-11-02T07:00:00Z"},
		{"on time, the one before handled", at("2026-11-02T06:00:00Z"), at("2026-11-02T07:00:30Z"), "2026-11-02T07:00:00Z", 0, "2026-11-02T08:00:00Z"},
		{"already handled", at("2026-11-02T07:00:00Z"), at("2026-11-02T07:59:00Z"), "", 0, "2026-11-02T08:00:00Z"},
		{"two missed, the latest runs", at("2026-11-02T06:00:00Z"), at("2026-11-02T09:10:00Z"), "2026-11-02T09:00:00Z", 2, ""},
		{"nothing handled, three missed", zero, at("2026-11-02T10:00:00Z"), "2026-11-02T09:00:00Z", 3, ""},
		{"handled mark between occurrences", at("2026-11-02T06:30:00Z"), at("2026-11-02T09:00:00Z"), "2026-11-02T09:00:00Z", 2, ""},
		{"creation time after the last", at("2026-11-02T09:30:00Z"), at("2026-11-02T10:00:00Z"), "", 0, ""},
		{"handled mark in the future", at("2026-11-02T12:00:00Z"), at("2026-11-02T08:00:00Z"), "", 0, "2026-11-02T09:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := DueOccurrences(s, tt.lastHandled, tt.now)
			if (tt.run != "") != d.HasRun || (d.HasRun && !d.Run.At.Equal(at(tt.run))) {
				t.Errorf("run = %v %v, want %q", d.HasRun, d.Run.At, tt.run)
			}
			if d.Coalesced != tt.coalesced {
				t.Errorf("coalesced = %d, want %d", d.Coalesced, tt.coalesced)
			}
			if (tt.next != "") != d.HasNext || (d.HasNext && !d.Next.At.Equal(at(tt.next))) {
				t.Errorf("next = %v %v, want %q", d.HasNext, d.Next.At, tt.next)
			}
		})
	}
	t.Run("EmptySchedule", func(t *testing.T) {
		if d := DueOccurrences(newList(), zero, at("2026-11-02T06:00:00Z")); d != (Due{}) {
			t.Fatalf("%+v", d)
		}
	})
}

// bruteDue is DueOccurrences' meaning, computed by walking every occurrence.
func bruteDue(all []time.Time, lastHandled, now time.Time) (run time.Time, hasRun bool, coalesced int, next time.Time, hasNext bool) {
	var pending []time.Time // after lastHandled, at or before now
	for _, o := range all {
		switch {
		case o.After(now):
			if !hasNext {
				next, hasNext = o, true
			}
		case o.After(lastHandled):
			pending = append(pending, o)
		}
	}
	if len(pending) > 0 {
		run, hasRun, coalesced = pending[len(pending)-1], true, len(pending)-1
	}
	return
}

// randomInstant is start + up to span, on an occurrence, a second off one or
// anywhere, so the boundaries are hit often.
func randomInstant(r *rand.Rand, start time.Time, span time.Duration) time.Time {
	t := start.Add(time.Duration(r.Int63n(int64(span))))
	switch r.Intn(4) {
	case 0:
		return start.Add(t.Sub(start).Truncate(time.Hour))
	case 1:
		return start.Add(t.Sub(start).Truncate(time.Hour)).Add(time.Duration(r.Intn(3)-1) * time.Second)
	}
	return t
}

func checkDue(t *testing.T, s Schedule, all []time.Time, lastHandled, now time.Time) {
	t.Helper()
	run, hasRun, coalesced, next, hasNext := bruteDue(all, lastHandled, now)
	d := DueOccurrences(s, lastHandled, now)
	if d.HasRun != hasRun || (hasRun && !d.Run.At.Equal(run)) || d.Coalesced != coalesced ||
		d.HasNext != hasNext || (hasNext && !d.Next.At.Equal(next)) {
		t.Fatalf("lastHandled %v now %v: got run %v %v coalesced %d next %v %v; want %v %v %d %v %v",
			lastHandled, now, d.HasRun, d.Run.At, d.Coalesced, d.HasNext, d.Next.At, hasRun, run, coalesced, hasNext, next)
	}
	// The chosen occurrence is the latest at or before now; nothing between
	// it and now, and the next one is after now.
	if d.HasRun && (d.Run.At.After(now) || !d.Run.At.After(lastHandled)) {
		t.Fatalf("run %v outside (lastHandled, now]", d.Run.At)
	}
	if d.HasNext && !d.Next.At.After(now) {
		t.Fatalf("next %v not after now %v", d.Next.At, now)
	}
}

// Property: with an hourly fake (answering arithmetically), the chosen
// occurrence is the latest at or before now, the coalesced count equals the
// brute-force count and next is the first after now.
func TestDueOccurrencesHourlyProperty(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	for i := range 2000 {
		start := at("2026-01-01T00:07:00Z").Add(time.Duration(r.Intn(500)) * time.Minute)
		h := hourly{start: start}
		if i%3 == 0 {
			h.n = int64(1 + r.Intn(200)) // COUNT reached somewhere in the span
		}
		span := time.Duration(1+r.Intn(300)) * time.Hour
		all := h.all(start.Add(span + 2*time.Hour))
		before := start.Add(-3 * time.Hour)
		now := randomInstant(r, before, span)
		var lastHandled time.Time
		switch r.Intn(3) {
		case 0: // nothing handled yet
		case 1:
			lastHandled = randomInstant(r, before, span)
		case 2: // an occurrence really handled
			if len(all) > 0 {
				lastHandled = all[r.Intn(len(all))]
			}
		}
		checkDue(t, h, all, lastHandled, now)
	}
}

// Property: the same against an irregular list of occurrences (gaps of one
// hour to three days, as weekly or DST-shifted rules give).
func TestDueOccurrencesListProperty(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for range 1000 {
		start := at("2026-03-01T09:07:00Z")
		var all []time.Time
		for o, n := start, r.Intn(60); len(all) < n; o = o.Add(time.Duration(1+r.Intn(72)) * time.Hour) {
			all = append(all, o)
		}
		s := newList(all...)
		span := 100 * 24 * time.Hour
		now := randomInstant(r, start.Add(-time.Hour), span)
		lastHandled := time.Time{}
		if r.Intn(2) == 0 {
			lastHandled = randomInstant(r, start.Add(-time.Hour), span)
			if len(all) > 0 && r.Intn(2) == 0 {
				lastHandled = all[r.Intn(len(all))]
			}
		}
		checkDue(t, s, all, lastHandled, now)
	}
}

// A year of downtime of an hourly rule costs one call of each method.
func TestDueOccurrencesIsCheap(t *testing.T) {
	start := at("2026-01-01T00:07:00Z")
	c := &counting{Schedule: hourly{start: start}}
	d := DueOccurrences(c, start, start.Add(365*24*time.Hour+30*time.Minute))
	if c.latest != 1 || c.between != 1 || c.next != 1 {
		t.Fatalf("calls: Latest %d, CountBetween %d, Next %d", c.latest, c.between, c.next)
	}
	if want := at("2027-01-01T00:07:00Z"); !d.HasRun || !d.Run.At.Equal(want) || d.Coalesced != 365*24-1 {
		t.Fatalf("%+v", d)
	}
	if !d.Next.At.Equal(at("2027-01-01T01:07:00Z")) {
		t.Fatalf("next %v", d.Next.At)
	}
}

func BenchmarkDueOccurrencesYearOfDowntime(b *testing.B) {
	start := at("2026-01-01T00:07:00Z")
	var s Schedule = hourly{start: start} // converted once: the fake's boxing is not the cost measured
	now := start.Add(365*24*time.Hour + 30*time.Minute)
	b.ReportAllocs()
	for b.Loop() {
		d := DueOccurrences(s, start, now)
		if d.Coalesced != 365*24-1 {
			b.Fatal(d.Coalesced)
		}
	}
}

// The brute force a per-occurrence loop would cost, for the ratio.
func BenchmarkBruteForceYearOfDowntime(b *testing.B) {
	start := at("2026-01-01T00:07:00Z")
	s := hourly{start: start}
	now := start.Add(365*24*time.Hour + 30*time.Minute)
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for o, ok := s.Next(start); ok && !o.At.After(now); o, ok = s.Next(o.At) {
			n++
		}
		if n != 365*24 {
			b.Fatal(n)
		}
	}
}
