// Package docs holds the guides of the repository; Studio serves the ones
// its people read in Studio (the agents guide, linked from every key's
// page) from this embedded copy, so the page and the file never differ.
package docs

import _ "embed"

// Agents is docs/agents.md: how to connect an agent, for a newsroom.
//
//go:embed agents.md
var Agents string
