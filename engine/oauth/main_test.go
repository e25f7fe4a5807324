package oauth_test

import (
	"testing"

	"studio/store/storetest"
)

// TestMain stops the PostgreSQL server of a conformance run (storetest).
func TestMain(m *testing.M) { storetest.Main(m) }
