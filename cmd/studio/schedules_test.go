package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestResolveCommand(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		local, zone          string
		at, offset, adjusted string
	}{
		{"2026-11-02T09:00", "Europe/Istanbul", "2026-11-02T06:00:00.000Z", "+03:00", ""},
		{"2026-03-29T02:30", "Europe/Berlin", "2026-03-29T01:30:00.000Z", "+02:00", "dst-gap"},
		{"2026-10-25T02:30", "Europe/Berlin", "2026-10-25T00:30:00.000Z", "+02:00", "overlap"},
		{"2026-03-08T02:30", "America/New_York", "2026-03-08T07:30:00.000Z", "-04:00", "dst-gap"},
	} {
		var out strings.Builder
		if err := run(ctx, []string{"schedules", "resolve", "--local", c.local, "--zone", c.zone}, nil, &out, nil); err != nil {
			t.Fatalf("%s %s: %v", c.local, c.zone, err)
		}
		var got struct{ At, Offset, Adjusted string }
		if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", c.local, err, out.String())
		}
		if got.At != c.at || got.Offset != c.offset || got.Adjusted != c.adjusted {
			t.Errorf("%s %s: got %+v, want %s %s %q", c.local, c.zone, got, c.at, c.offset, c.adjusted)
		}
	}
	for _, bad := range [][]string{
		{"--local", "2026-10-25T25:30", "--zone", "Europe/Berlin"},
		{"--local", "2026-10-25T02:30", "--zone", "Berlin"},
		{"--local", "", "--zone", "UTC"},
	} {
		err := run(ctx, append([]string{"schedules", "resolve"}, bad...), nil, io.Discard, nil)
		if err == nil || !(strings.HasPrefix(err.Error(), "bad_wall:") || strings.HasPrefix(err.Error(), "bad_zone:")) {
			t.Errorf("resolve %v: err = %v, want a coded refusal", bad, err)
		}
	}
}

func TestPreviewCommand(t *testing.T) {
	ctx := context.Background()
	preview := func(t *testing.T, args ...string) (out struct {
		Rule, Sentence string
		Occurrences    []struct{ At, Local, Offset, Adjusted, Planned string }
	}) {
		t.Helper()
		var buf strings.Builder
		if err := run(ctx, append([]string{"schedules", "preview"}, args...), nil, &buf, nil); err != nil {
			t.Fatalf("preview %v: %v", args, err)
		}
		if err := json.Unmarshal([]byte(buf.String()), &out); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, buf.String())
		}
		return out
	}

	got := preview(t, "--rule", "FREQ=MONTHLY;BYDAY=2TU;BYHOUR=9;BYMINUTE=7", "--start", "2026-11-01T09:07",
		"--zone", "Europe/Istanbul", "--count", "3", "--lang", "tr", "--after", "2026-11-01T00:00:00Z")
	if got.Sentence != "Her ayın ikinci salısı 09:07" || len(got.Occurrences) != 3 ||
		got.Occurrences[0].At != "2026-11-10T06:07:00.000Z" || got.Occurrences[2].Local != "2027-01-12T09:07" ||
		got.Occurrences[1].Offset != "+03:00" {
		t.Errorf("second Tuesday: %+v", got)
	}

	got = preview(t, "--rule", "FREQ=DAILY;BYHOUR=2;BYMINUTE=30", "--start", "2026-03-28T02:30", "--zone", "Europe/Berlin",
		"--count", "2", "--after", "2026-03-28T00:00:00Z")
	gap := got.Occurrences[1]
	if got.Sentence != "Every day at 02:30" || gap.At != "2026-03-29T01:30:00.000Z" || gap.Local != "2026-03-29T03:30" ||
		gap.Offset != "+02:00" || gap.Adjusted != "dst-gap" || gap.Planned != "2026-03-29T02:30" {
		t.Errorf("daily across the spring gap: %+v", got)
	}

	if got := preview(t, "--start", "2026-12-01T10:00", "--zone", "UTC", "--after", "2026-11-01T00:00:00Z"); len(got.Occurrences) != 1 || got.Rule != "" {
		t.Errorf("once: %+v", got)
	}

	for _, bad := range [][]string{
		{"--rule", "FREQ=HOURLY", "--start", "2026-11-01T09:07"},
		{"--rule", "RRULE:FREQ=DAILY", "--start", "2026-11-01T09:07"},
		{"--rule", "FREQ=DAILY;COUNT=2;UNTIL=20270101T000000Z", "--start", "2026-11-01T09:07"},
		{"--rule", "FREQ=DAILY", "--start", "yesterday"},
		{"--rule", "FREQ=DAILY", "--start", "2026-11-01T09:07", "--zone", "Mars/Olympus"},
	} {
		err := run(ctx, append([]string{"schedules", "preview"}, bad...), nil, io.Discard, nil)
		var ce *codeError
		if !errors.As(err, &ce) || ce.code == "" || ce.message == "" {
			t.Errorf("preview %v: err = %v, want a coded refusal with a message", bad, err)
		}
	}
}
