package studio_test

import (
	"testing"

	"studio/handlers/internal/apptest"
)

func TestMain(m *testing.M) { apptest.Main(m) }
