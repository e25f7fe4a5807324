package studio

import (
	"net/http"
	"strings"
)

// mcpProtocol is the MCP revision the key page's snippets and its Test
// connection ask for: the newest the endpoint speaks.
const mcpProtocol = "2025-11-25"

// mcpEndpoint is the MCP endpoint's URL as the request reached Studio:
// what an agent's client connects to, and the resource OAuth's tokens are
// for.
func mcpEndpoint(r *http.Request) string { return Origin(r) + "/mcp" }

// keyPlaceholder stands for a key's secret where the page no longer knows
// it (it is shown once, when the key is made).
const keyPlaceholder = "sta_…"

// mcpConfig is a ready client configuration for endpoint: Claude Code's
// .mcp.json (the same shape most MCP clients read), with the secret taken
// from the environment so that it stays out of the repository.
func mcpConfig(endpoint string) string {
	return `{
  "mcpServers": {
    "studio": {
      "type": "http",
      "url": "` + endpoint + `",
      "headers": { "Authorization": "Bearer ${STUDIO_AGENT_KEY}" }
    }
  }
}`
}

// curlCheck is two shell requests that check a key from a terminal:
// initialize opens a session, get_mode names the key's site and mode.
// secret is the key's secret or keyPlaceholder.
func curlCheck(endpoint, secret string) string {
	return strings.Join([]string{
		`export STUDIO_AGENT_KEY=` + secret + `; URL=` + endpoint,
		`SID=$(curl -si "$URL" -H "Authorization: Bearer $STUDIO_AGENT_KEY" -H 'Content-Type: application/json' \`,
		`  -H 'Accept: application/json, text/event-stream' \`,
		`  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + mcpProtocol + `","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}' \`,
		`  | tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')`,
		`curl -s "$URL" -H "Authorization: Bearer $STUDIO_AGENT_KEY" -H "Mcp-Session-Id: $SID" -H 'Mcp-Protocol-Version: ` + mcpProtocol + `' \`,
		`  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \`,
		`  -d '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_mode","arguments":{}}}'`,
	}, "\n")
}
