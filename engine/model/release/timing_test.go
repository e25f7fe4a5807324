package release

import (
	"errors"
	"testing"
	"time"
)

var now = time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)

func code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if err != nil {
		return "not an *Error: " + err.Error()
	}
	return ""
}

func TestCheckTime(t *testing.T) {
	tests := []struct {
		name string
		at   time.Time
		want string
	}{
		{"an hour ago", now.Add(-time.Hour), CodeTimeInPast},
		{"a nanosecond ago", now.Add(-1), CodeTimeInPast},
		{"now", now, CodeTooSoon},
		{"59 s ahead", now.Add(59 * time.Second), CodeTooSoon},
		{"exactly the lead", now.Add(MinLead), ""},
		{"tomorrow", now.Add(24 * time.Hour), ""},
		{"exactly the horizon", now.Add(MaxHorizon), ""},
		{"past the horizon", now.Add(MaxHorizon + time.Second), CodeTooFar},
		{"another zone, same rule", now.Add(2 * time.Minute).In(time.FixedZone("+03", 3*3600)), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := code(CheckTime(tt.at, now)); got != tt.want {
				t.Fatalf("code %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLateness(t *testing.T) {
	tests := []struct {
		late time.Duration
		want int64
	}{
		{-time.Hour, 0},
		{0, 0},
		{999 * time.Millisecond, 0},
		{time.Second, 1},
		{90*time.Second + 999*time.Millisecond, 90},
		{time.Hour, 3600},
		{3 * time.Hour, 10800},
	}
	for _, tt := range tests {
		if got := Lateness(now, now.Add(tt.late)); got != tt.want {
			t.Errorf("Lateness(%v late) = %d, want %d", tt.late, got, tt.want)
		}
	}
}

func TestIsMissed(t *testing.T) {
	tests := []struct {
		late time.Duration
		want bool
	}{
		{-time.Minute, false},
		{0, false},
		{59 * time.Minute, false},
		{LateLimit, false}, // exactly one hour still runs (≤ 1 h)
		{LateLimit + time.Nanosecond, true},
		{2 * time.Hour, true},
	}
	for _, tt := range tests {
		if got := IsMissed(now, now.Add(tt.late)); got != tt.want {
			t.Errorf("IsMissed(%v late) = %v, want %v", tt.late, got, tt.want)
		}
	}
}

func TestRetryDelay(t *testing.T) {
	want := map[int]time.Duration{
		0: 30 * time.Second, // out of range: treated as the first failure
		1: 30 * time.Second, 2: time.Minute, 3: 2 * time.Minute, 4: 5 * time.Minute,
		5: 10 * time.Minute, 6: 10 * time.Minute, 100: 10 * time.Minute,
	}
	for attempt, d := range want {
		if got := RetryDelay(attempt); got != d {
			t.Errorf("RetryDelay(%d) = %v, want %v", attempt, got, d)
		}
	}
	// The back-off fits inside the late limit several times over.
	var total time.Duration
	for a := 1; a <= 5; a++ {
		total += RetryDelay(a)
	}
	if total >= LateLimit {
		t.Errorf("first five delays sum to %v", total)
	}
}

func TestErrorMessage(t *testing.T) {
	if got := (&Error{Code: CodeTooSoon}).Error(); got != "release: too_soon" {
		t.Errorf("got %q", got)
	}
	if got := (&Error{Code: CodeDuplicateNode, NodeID: "ent_a"}).Error(); got != "release: duplicate_node (ent_a)" {
		t.Errorf("got %q", got)
	}
}
