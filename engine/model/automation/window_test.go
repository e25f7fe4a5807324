package automation

import (
	"math/rand"
	"testing"
	"time"
)

func TestWindow(t *testing.T) {
	o := at("2026-11-02T09:07:00Z")
	w := Window(o, 30)
	if !w.OpensAt.Equal(o) || !w.ClosesAt.Equal(at("2026-11-02T09:37:00Z")) {
		t.Fatalf("%+v", w)
	}
	tests := []struct {
		now  string
		want bool
	}{
		{"2026-11-02T09:06:59.999Z", false},
		{"2026-11-02T09:07:00Z", true}, // opens at the occurrence
		{"2026-11-02T09:20:00Z", true},
		{"2026-11-02T09:36:59.999Z", true},
		{"2026-11-02T09:37:00Z", false}, // closed: half-open, see window.go
		{"2026-11-02T10:00:00Z", false},
	}
	for _, tt := range tests {
		if got := InWindow(o, 30, at(tt.now)); got != tt.want {
			t.Errorf("InWindow at %s = %v", tt.now, got)
		}
		if got := w.Contains(at(tt.now)); got != tt.want {
			t.Errorf("Contains at %s = %v", tt.now, got)
		}
	}
}

func TestOpenWindow(t *testing.T) {
	s := hourly{start: at("2026-11-02T06:07:00Z"), n: 5} // 06:07 … 10:07
	tests := []struct {
		name, now string
		window    int
		want      string // "" = no window open
	}{
		{"before the first", "2026-11-02T06:06:00Z", 30, ""},
		{"first opens", "2026-11-02T06:07:00Z", 30, "2026-11-02T06:07:00Z"},
		{"inside", "2026-11-02T07:30:00Z", 30, "2026-11-02T07:07:00Z"},
		{"between windows", "2026-11-02T07:40:00Z", 30, ""},
		{"window as long as the interval: the boundary is the next's", "2026-11-02T08:07:00Z", 60, "2026-11-02T08:07:00Z"},
		{"overlapping windows offer the latest", "2026-11-02T09:10:00Z", 240, "2026-11-02T09:07:00Z"},
		{"the last one's window", "2026-11-02T10:20:00Z", 30, "2026-11-02T10:07:00Z"},
		{"after the last", "2026-11-02T10:37:00Z", 30, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, ok := OpenWindow(s, tt.window, at(tt.now))
			if ok != (tt.want != "") || (ok && !o.At.Equal(at(tt.want))) {
				t.Fatalf("got %v %v, want %q", ok, o.At, tt.want)
			}
		})
	}
}

func TestDueWindows(t *testing.T) {
	s := hourly{start: at("2026-11-02T06:07:00Z")}
	t.Run("OpenWindowIsNotClosed", func(t *testing.T) {
		d := DueWindows(s, 30, at("2026-11-02T06:07:00Z"), at("2026-11-02T07:20:00Z"))
		if d.HasRun || d.Coalesced != 0 || !d.Next.At.Equal(at("2026-11-02T07:07:00Z")) {
			t.Fatalf("%+v", d)
		}
	})
	t.Run("ClosesAtItsEnd", func(t *testing.T) {
		d := DueWindows(s, 30, at("2026-11-02T06:07:00Z"), at("2026-11-02T07:37:00Z"))
		if !d.HasRun || !d.Run.At.Equal(at("2026-11-02T07:07:00Z")) || d.Coalesced != 0 {
			t.Fatalf("%+v", d)
		}
		if !d.Next.At.Equal(at("2026-11-02T08:07:00Z")) {
			t.Fatalf("next %v", d.Next.At)
		}
	})
	t.Run("AfterDowntimeOnlyTheLatestClosedWindow", func(t *testing.T) {
		// Down from 06:30 to 12:00: the windows of 07:07 … 11:07 have closed
		// (the last at 11:37); 11:07's is recorded, the four before coalesced.
		d := DueWindows(s, 30, at("2026-11-02T06:07:00Z"), at("2026-11-02T12:00:00Z"))
		if !d.HasRun || !d.Run.At.Equal(at("2026-11-02T11:07:00Z")) || d.Coalesced != 4 {
			t.Fatalf("%+v", d)
		}
		// 12:07 opens next; its window closes at 12:37.
		if !d.Next.At.Equal(at("2026-11-02T12:07:00Z")) {
			t.Fatalf("next %v", d.Next.At)
		}
	})
	t.Run("LongWindowStillOpenIsNotRecorded", func(t *testing.T) {
		// With 240-minute windows at 12:00 the windows of 08:07 … 11:07 are
		// still open; only 07:07's (closed 11:07) and earlier are due.
		d := DueWindows(s, 240, at("2026-11-02T06:07:00Z"), at("2026-11-02T12:00:00Z"))
		if !d.HasRun || !d.Run.At.Equal(at("2026-11-02T07:07:00Z")) || d.Coalesced != 0 {
			t.Fatalf("%+v", d)
		}
		if !d.Next.At.Equal(at("2026-11-02T08:07:00Z")) {
			t.Fatalf("next %v", d.Next.At)
		}
	})
}

// Property: a window is closed by DueWindows exactly when InWindow no longer
// accepts begin_run and now is past it, and OpenWindow agrees with InWindow.
func TestWindowsProperty(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for range 2000 {
		start := at("2026-11-02T06:07:00Z")
		s := hourly{start: start}
		w := MinWindowMinutes + r.Intn(MaxWindowMinutes-MinWindowMinutes+1)
		now := randomInstant(r, start, 48*time.Hour)
		all := s.all(now.Add(300 * time.Hour))
		var open []time.Time
		var lastClosed time.Time
		for _, o := range all {
			if InWindow(o, w, now) {
				open = append(open, o)
			}
			if !o.After(now) && !InWindow(o, w, now) {
				lastClosed = o
			}
		}
		o, ok := OpenWindow(s, w, now)
		if ok != (len(open) > 0) || (ok && !o.At.Equal(open[len(open)-1])) {
			t.Fatalf("w %d now %v: OpenWindow %v %v, open %v", w, now, ok, o.At, open)
		}
		d := DueWindows(s, w, time.Time{}, now)
		if d.HasRun != !lastClosed.IsZero() || (d.HasRun && !d.Run.At.Equal(lastClosed)) {
			t.Fatalf("w %d now %v: DueWindows run %v %v, want %v", w, now, d.HasRun, d.Run.At, lastClosed)
		}
		// The next window to close is still open or yet to open.
		if !d.HasNext || !Window(d.Next.At, w).ClosesAt.After(now) {
			t.Fatalf("w %d now %v: next %v", w, now, d.Next.At)
		}
	}
}

func TestRunEndsAt(t *testing.T) {
	closes := at("2026-11-02T09:37:00Z")
	tests := []struct {
		start      string
		maxMinutes int
		want       string
	}{
		{"2026-11-02T09:07:00Z", 15, "2026-11-02T09:22:00Z"}, // the budget ends first
		{"2026-11-02T09:30:00Z", 15, "2026-11-02T09:37:00Z"}, // the window ends first
		{"2026-11-02T09:22:00Z", 15, "2026-11-02T09:37:00Z"}, // both at once
		{"2026-11-02T09:07:00Z", 240, "2026-11-02T09:37:00Z"},
	}
	for _, tt := range tests {
		if got := RunEndsAt(at(tt.start), closes, tt.maxMinutes); !got.Equal(at(tt.want)) {
			t.Errorf("RunEndsAt(%s, %d) = %v, want %s", tt.start, tt.maxMinutes, got, tt.want)
		}
	}
}

func TestCheckRunOpen(t *testing.T) {
	ends := at("2026-11-02T09:22:00Z")
	if err := CheckRunOpen(ends.Add(-time.Nanosecond), ends); err != nil {
		t.Fatal(err)
	}
	wantCode(t, CheckRunOpen(ends, ends), CodeOutsideRun)
	wantCode(t, CheckRunOpen(ends.Add(time.Minute), ends), CodeOutsideRun)
}
