package main

import "testing"

// TestParseAutomationsFlag: --automations (and STUDIO_AUTOMATIONS) take on
// or off; anything else stops serve before it starts.
func TestParseAutomationsFlag(t *testing.T) {
	for v, want := range map[string]bool{"on": false, "": false, "OFF": true, " off ": true} {
		if off, err := parseOnOff(v); err != nil || off != want {
			t.Errorf("%q: %v %v", v, off, err)
		}
	}
	if _, err := parseOnOff("no"); err == nil {
		t.Error(`"no" was taken`)
	}
}
