package localtime

import "slices"

//go:generate go run zones_gen.go -tab /usr/share/zoneinfo/zone.tab -out zones_list.go

// ZoneNames lists the IANA zones a person chooses a site's time zone from:
// one per country and region (the tz database's zone.tab) and UTC, sorted
// by name. LoadZone accepts every one of them (tested); it also accepts
// other valid names, such as older aliases, which the list leaves out.
func ZoneNames() []string { return slices.Clone(zoneNames) }
