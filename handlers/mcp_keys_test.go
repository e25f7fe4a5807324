package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"studio/engine/agents"
	"studio/engine/policy"
)

// TestMCPWithMintedAgentKeys joins the two halves for real: a key an Editor
// mints with the agent-key use case opens /mcp as that key, in its mode and
// with its scopes; once revoked, the next request is refused at once.
func TestMCPWithMintedAgentKeys(t *testing.T) {
	a := newApp(t)
	ctx := context.Background()
	key, secret, err := a.agents.Mint(ctx, a.editor, a.site.ID, agents.KeyInput{Name: "Desk", Mode: policy.ModeManual,
		Scopes: []policy.Scope{policy.SchedulesRead, policy.ContentRead}})
	if err != nil {
		t.Fatal(err)
	}
	f := &mcpFixture{base: a.serve(t, false)} // the services' own agent keys
	s := f.connect(t, secret)
	out, res := callTool(t, s, "get_mode", nil)
	if res.IsError || out["mode"] != "manual" || out["keyId"] != key.ID {
		t.Fatalf("get_mode with a minted key: %v", out)
	}
	out, res = callTool(t, s, "list_releases", map[string]any{"siteId": a.site.ID})
	if res.IsError || out["releases"] == nil {
		t.Fatalf("list_releases with a minted key: %v", out)
	}
	if err := a.agents.Revoke(ctx, a.editor, a.site.ID, key.ID); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", f.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a revoked key's request: status %d, want 401", resp.StatusCode)
	}
}
