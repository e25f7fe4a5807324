package handlers_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"studio/engine"
	"studio/engine/agents"
	"studio/engine/policy"
)

// mcpArgs are arguments for a tool, made from its input schema as the
// server lists it, so that a tool added later is swept too: every required
// property gets a value of its type, and every property that names a thing
// gets Zeta's thing of that kind (ids that site A's key must never reach).
func (z zeta) mcpArgs(schema any, siteID string) map[string]any {
	var s struct {
		Properties map[string]struct {
			Type  any   `json:"type"`
			Enum  []any `json:"enum"`
			Items *struct {
				Enum []any `json:"enum"`
			} `json:"items"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	raw, _ := json.Marshal(schema)
	json.Unmarshal(raw, &s)
	things := map[string]any{"siteId": siteID, "releaseId": z.release, "nodeId": z.article.ID, "automationId": z.automation,
		"runId": z.run, "approvalId": z.request, "id": z.release, "nodeIds": []string{z.article.ID, z.draft.ID}}
	out := map[string]any{}
	for name, p := range s.Properties {
		if v, ok := things[name]; ok {
			out[name] = v
			continue
		}
		if !slices.Contains(s.Required, name) {
			continue
		}
		switch {
		case len(p.Enum) > 0:
			out[name] = p.Enum[0]
		case name == "when":
			out[name] = map[string]any{"at": "2026-11-20T09:00:00Z"}
		case name == "from" || name == "at":
			out[name] = "2026-11-01T00:00:00Z"
		case name == "to":
			out[name] = "2026-11-30T00:00:00Z"
		case p.Type == "integer" || p.Type == "number":
			out[name] = 1
		case p.Type == "array":
			if p.Items != nil && len(p.Items.Enum) > 0 {
				out[name] = []any{p.Items.Enum[0]}
			} else {
				out[name] = []any{"x"}
			}
		default:
			out[name] = "Checked by the sweep"
		}
	}
	return out
}

// TestAgentKeysStayOnTheirSite is the MCP row of the tenancy sweep (issue
// 36, hole 2): a person who is an Editor of site A and of Zeta mints a key
// on A with every scope an Editor's key may hold, in auto mode, so that
// §12's gate lets every tool through to the site check. Every tool the
// server lists is called naming Zeta (refused forbidden before anything
// is read, with a sentence) and naming A with Zeta's ids; no answer shows
// anything of Zeta, nothing of Zeta changes, Zeta's History gains no row,
// and the refused calls are audited on A. The same key still works on A.
func TestAgentKeysStayOnTheirSite(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	z := newZeta(t, a)
	ctx := context.Background()
	if err := a.store.AddMember(ctx, z.site.ID, a.editor.ID, policy.Editor, start); err != nil {
		t.Fatal(err)
	}
	_, secret, err := a.agents.Mint(ctx, a.editor, a.site.ID, agents.KeyInput{Name: "Desk", Mode: policy.ModeAuto,
		Scopes: agents.OfferedScopes(policy.Editor)})
	if err != nil {
		t.Fatal(err)
	}
	s := (&mcpFixture{base: a.serve(t, false)}).connect(t, secret)
	list, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := z.fingerprint(t, a)
	auditA := func() int {
		var n int
		if err := a.store.DB().QueryRow(`SELECT count(*) FROM audit WHERE site_id = ? AND action = 'mcp.tool'`, a.site.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	rowsBefore := auditA()
	calls, refusedOnZeta := 0, 0
	for _, tl := range list.Tools {
		for _, site := range []string{z.site.ID, a.site.ID} {
			args := z.mcpArgs(tl.InputSchema, site)
			asked, _ := json.Marshal(args)
			out, res := callTool(t, s, tl.Name, args)
			calls++
			if leak := z.leak(strings.Join(flatten(out), " "), string(asked)); leak != "" {
				t.Errorf("%s %s shows Zeta's %q: %v", tl.Name, asked, leak, out)
			}
			e, _ := out["error"].(map[string]any)
			if e != nil && e["code"] == "internal" {
				t.Errorf("%s %s: internal error", tl.Name, asked)
			}
			if _, named := args["siteId"]; named && site == z.site.ID {
				msg := toolError(t, tl.Name+" on Zeta", out, res, engine.CodeForbidden)
				if !strings.Contains(msg, "another site") {
					t.Errorf("%s on Zeta: %q does not say the key is another site's", tl.Name, msg)
				}
				refusedOnZeta++
			}
		}
	}
	if after := z.fingerprint(t, a); after != before {
		t.Errorf("site A's key changed Zeta:\nbefore %s\nafter  %s", before, after)
	}
	if got := auditA() - rowsBefore; got != calls {
		t.Errorf("%d calls audited on A, want %d (every call is the key's site's)", got, calls)
	}
	if refusedOnZeta < 10 {
		t.Fatalf("only %d tools named a site: the sweep reached too little", refusedOnZeta)
	}
	// The key works on its own site: A's content, not Zeta's.
	out, res := callTool(t, s, "list_content", map[string]any{"siteId": a.site.ID})
	if res.IsError || len(out["content"].([]any)) == 0 {
		t.Fatalf("the key on its own site: %v", out)
	}
	t.Logf("%d MCP calls by site A's key, %d refused naming Zeta, 0 of Zeta's things shown or changed", calls, refusedOnZeta)
}
