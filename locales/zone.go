package locales

// ZoneLabel names a time zone once, for a sentence: its city and its
// offset, "Istanbul (UTC+3)", or one word where the two are the same, "UTC"
// (never "UTC (UTC)").
func ZoneLabel(city, offset string) string {
	if city == "" || city == offset {
		return offset
	}
	return city + " (" + offset + ")"
}
