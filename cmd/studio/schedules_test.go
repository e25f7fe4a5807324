package main

import (
	"context"
	"encoding/json"
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
