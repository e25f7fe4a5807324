package localtime

import (
	"slices"
	"testing"
)

func TestZoneNames(t *testing.T) {
	names := ZoneNames()
	if len(names) < 350 {
		t.Fatalf("only %d zones: is zones_list.go generated?", len(names))
	}
	if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Error("zone names are not sorted and unique")
	}
	for _, want := range []string{"UTC", "Europe/Istanbul", "Europe/Berlin", "America/Argentina/Buenos_Aires", "Asia/Kolkata", "America/Port-au-Prince"} {
		if !slices.Contains(names, want) {
			t.Errorf("the list lacks %s", want)
		}
	}
	for _, n := range names {
		if _, err := LoadZone(n); err != nil {
			t.Errorf("listed zone %q does not load: %v", n, err)
		}
	}
	names[0] = "changed"
	if ZoneNames()[0] == "changed" {
		t.Error("ZoneNames hands out its own slice")
	}
}
