package schema

import "testing"

func TestCompiles(t *testing.T) {
	if _, err := Compiled(); err != nil {
		t.Fatal(err)
	}
}
