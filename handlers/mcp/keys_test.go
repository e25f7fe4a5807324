package mcp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"studio/engine/agents"
	"studio/engine/policy"
	"studio/handlers/internal/apptest"
	"studio/handlers/mcp"
)

// TestMCPWithMintedAgentKeys joins the two halves for real: a key an Editor
// mints with the agent-key use case opens /mcp as that key, in its mode and
// with its scopes; once revoked, the next request is refused at once.
func TestMCPWithMintedAgentKeys(t *testing.T) {
	a := apptest.New(t)
	ctx := context.Background()
	key, secret, err := a.Agents.Mint(ctx, a.Editor, a.Site.ID, agents.KeyInput{Name: "Desk", Mode: policy.ModeManual,
		Scopes: []policy.Scope{policy.SchedulesRead, policy.ContentRead}})
	if err != nil {
		t.Fatal(err)
	}
	f := &apptest.MCPFixture{Base: a.Serve(t, false)} // the services' own agent keys
	s := f.Connect(t, secret)
	out, res := apptest.CallTool(t, s, "get_mode", nil)
	if res.IsError || out["mode"] != "manual" || out["keyId"] != key.ID {
		t.Fatalf("get_mode with a minted key: %v", out)
	}
	out, res = apptest.CallTool(t, s, "list_releases", map[string]any{"siteId": a.Site.ID})
	if res.IsError || out["releases"] == nil {
		t.Fatalf("list_releases with a minted key: %v", out)
	}
	if err := a.Agents.Revoke(ctx, a.Editor, a.Site.ID, key.ID); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", f.Base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
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

// TestMCPSessionsPerKey (issue 36, hole 7): one key holds at most
// mcp.MaxSessionsPerKey sessions; opening one more closes the least
// recently used (the first, unused since), whose next call fails, while
// the others and another key's session go on.
func TestMCPSessionsPerKey(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	mint := func(name string) string {
		_, secret, err := a.Agents.Mint(ctx, a.Editor, a.Site.ID, agents.KeyInput{Name: name, Mode: policy.ModePlan,
			Scopes: []policy.Scope{policy.SchedulesRead}})
		if err != nil {
			t.Fatal(err)
		}
		return secret
	}
	secret, other := mint("Desk"), mint("Night desk")
	f := &apptest.MCPFixture{Base: a.Serve(t, false)}
	theirs := f.Connect(t, other)
	var mine []*sdk.ClientSession
	for range mcp.MaxSessionsPerKey {
		mine = append(mine, f.Connect(t, secret))
	}
	// Every session but the first is used again, so the first is the least
	// recently used when one more opens.
	for _, s := range mine[1:] {
		apptest.OkTool(t, s, "get_mode", nil)
	}
	apptest.OkTool(t, f.Connect(t, secret), "get_mode", nil)
	if _, err := mine[0].CallTool(ctx, &sdk.CallToolParams{Name: "get_mode"}); err == nil {
		t.Fatal("the least recently used session still answers after the key opened one more than the cap")
	}
	apptest.OkTool(t, mine[1], "get_mode", nil)
	apptest.OkTool(t, theirs, "get_mode", nil)
}
