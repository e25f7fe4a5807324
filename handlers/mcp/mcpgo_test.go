package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mg "github.com/mark3labs/mcp-go/mcp"
)

// TestMCPWithASecondClient: mark3labs/mcp-go, a Go client the project did
// not write, with its defaults (it probes server/discover first, then
// falls back to initialize), connects, learns the key's site from
// get_mode and reads the site's releases without naming it.
func TestMCPWithASecondClient(t *testing.T) {
	t.Parallel()
	f := newMCP(t)
	c, err := mcpgo.NewStreamableHttpClient(f.Base+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer sk_editor"}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init, err := c.Initialize(ctx, mg.InitializeRequest{Params: mg.InitializeParams{ClientInfo: mg.Implementation{Name: "second-client", Version: "1"}}})
	if err != nil {
		t.Fatalf("mcp-go's default initialize: %v", err)
	}
	if init.ProtocolVersion != "2025-11-25" || init.ServerInfo.Name != "studio" {
		t.Fatalf("initialize: %+v", init)
	}
	structured := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := c.CallTool(ctx, mg.CallToolRequest{Params: mg.CallToolParams{Name: name, Arguments: args}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var out map[string]any
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s: %s", name, raw)
		}
		return out
	}
	if site, _ := structured("get_mode", nil)["site"].(map[string]any); site["id"] != f.Site.ID {
		t.Fatalf("get_mode's site: %v", site)
	}
	if rs, _ := structured("list_releases", nil)["releases"].([]any); len(rs) == 0 {
		t.Fatal("list_releases without siteId lists nothing")
	}
}

// TestMCPProtocolAnswers: what the transport answers a client that gets
// the protocol wrong, over plain HTTP: an unknown method is JSON-RPC's
// -32601; a request without the session's id after initialize is a 400.
func TestMCPProtocolAnswers(t *testing.T) {
	t.Parallel()
	f := newMCP(t)
	post := func(session, body string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, f.Base+"/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer sk_editor")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res, string(b)
	}
	res, body := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`)
	session := res.Header.Get("Mcp-Session-Id")
	if res.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d %s", res.StatusCode, body)
	}
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if res, body = post(session, `{"jsonrpc":"2.0","id":2,"method":"tools/frobnicate"}`); !strings.Contains(body, "-32601") {
		t.Errorf("an unknown method: %d %s, want -32601", res.StatusCode, body)
	}
	if res, body = post("", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`); res.StatusCode != http.StatusBadRequest {
		t.Errorf("tools/list without the session's id: %d %s, want 400", res.StatusCode, body)
	}
	if res, body = post("", `{"jsonrpc":"2.0","id":4,"method":"server/discover"}`); !strings.Contains(body, "-32601") {
		t.Errorf("server/discover: %d %s, want -32601 (a server of the initialize era)", res.StatusCode, body)
	}
}
