package studio

import (
	"strings"
	"testing"

	"studio/docs"
)

// TestGuideShowsTheKeyPageSnippets: the guide's configuration and curl
// lines are the ones a key's page fills in, so what a reader copies from
// either is the same (the guide indents them in a list by three spaces).
func TestGuideShowsTheKeyPageSnippets(t *testing.T) {
	guide := strings.ReplaceAll(docs.Agents, "\n   ", "\n")
	const endpoint = "https://studio.example.org/mcp"
	for name, snippet := range map[string]string{"configuration": mcpConfig(endpoint), "curl lines": curlCheck(endpoint, keyPlaceholder)} {
		if !strings.Contains(guide, "\n"+snippet+"\n") {
			t.Errorf("docs/agents.md lacks the key page's %s:\n%s", name, snippet)
		}
	}
}
