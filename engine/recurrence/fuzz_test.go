package recurrence

import (
	"errors"
	"slices"
	"testing"
)

// FuzzParse: Parse never panics; every refusal is an *Error with a known
// code; an accepted rule is valid, its canonical form is no longer than the
// input (so it still fits the 300 characters) and parses back to the same
// rule and the same canonical form. Seeds are in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"FREQ=DAILY", "FREQ=MONTHLY;BYDAY=2TU;BYHOUR=9;BYMINUTE=7", "RRULE:FREQ=WEEKLY"} {
		f.Add(s)
	}
	codes := Codes()
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(s)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !slices.Contains(codes, e.Code) || e.Message == "" {
				t.Fatalf("Parse(%q): %#v is not a known *Error", s, err)
			}
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("Parse(%q) accepted an invalid rule: %v", s, err)
		}
		canon := r.String()
		if len(canon) > len(s) {
			t.Fatalf("canonical %q is longer than %q", canon, s)
		}
		again, err := Parse(canon)
		if err != nil {
			t.Fatalf("Parse(%q) = %v, from %q", canon, err, s)
		}
		if !equalRules(again, r) || again.String() != canon {
			t.Fatalf("round trip of %q: %+v, want %+v", s, again, r)
		}
	})
}
