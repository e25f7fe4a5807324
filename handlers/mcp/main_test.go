package mcp_test

import (
	"testing"

	"studio/handlers/internal/apptest"
)

func TestMain(m *testing.M) { apptest.MainCheckingTools(m) }
