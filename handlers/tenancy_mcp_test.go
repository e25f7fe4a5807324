package handlers_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"studio/engine"
	"studio/engine/agents"
	"studio/engine/model/automation"
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

// sweepMCP is the MCP row of the tenancy sweep (issue 36, hole 2): with
// the agent key secret of site A, every tool the server lists is called
// naming Zeta (refused forbidden before anything is read, with a sentence
// that says the key is another site's) and naming A with Zeta's ids. No
// answer shows anything of Zeta, and none is an internal error; every call
// is audited on A (none on Zeta: the caller's fingerprint of Zeta counts
// its audit rows). So that each call naming A reaches its use case with
// Zeta's ids, the tools that taint go last and a get_mode follows every
// call (ten refusals in a row would end a run). It returns the calls made
// and those refused on Zeta.
func sweepMCP(t *testing.T, a *testApp, z zeta, base, secret string) (calls, refusedOnZeta int) {
	t.Helper()
	ctx := context.Background()
	s := (&mcpFixture{base: base}).connect(t, secret)
	list, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	auditA := func() int {
		var n int
		if err := a.store.DB().QueryRow(`SELECT count(*) FROM audit WHERE site_id = ? AND action = 'mcp.tool'`, a.site.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	rowsBefore := auditA()
	tools := slices.Clone(list.Tools)
	slices.SortStableFunc(tools, func(x, y *sdk.Tool) int {
		tx, _ := policy.Tool(x.Name)
		ty, _ := policy.Tool(y.Name)
		return cmp.Compare(b2i(tx.Taints), b2i(ty.Taints))
	})
	for _, tl := range tools {
		for _, site := range []string{z.site.ID, a.site.ID} {
			args := z.mcpArgs(tl.InputSchema, site)
			asked, _ := json.Marshal(args)
			out, res := callTool(t, s, tl.Name, args)
			calls++
			if leak := z.leak(strings.Join(flatten(out), " "), string(asked)); leak != "" {
				t.Errorf("%s %s shows Zeta's %q: %v", tl.Name, asked, leak, out)
			}
			if e, _ := out["error"].(map[string]any); e != nil && e["code"] == "internal" {
				t.Errorf("%s %s: internal error", tl.Name, asked)
			}
			if _, named := args["siteId"]; named && site == z.site.ID {
				refusedOnZeta++
				msg := toolError(t, tl.Name+" on Zeta", out, res, engine.CodeForbidden)
				if !strings.Contains(msg, "another site") {
					t.Errorf("%s on Zeta: %q does not say the key is another site's", tl.Name, msg)
				}
			} else if e, _ := out["error"].(map[string]any); e != nil {
				switch e["code"] {
				case engine.CodeTainted, automation.CodeAnomalyRefusals:
					t.Errorf("%s %s was stopped before its use case (%v): the sweep did not reach it", tl.Name, asked, e["code"])
				}
			}
			// A call that goes through: no run of refusals in a row; and an
			// agent task's run is still open for the next tool.
			if mode := okTool(t, s, "get_mode", nil); mode["automationId"] != nil && mode["run"] == nil {
				t.Fatalf("after %s %s the agent task's run is over: the sweep cannot go on", tl.Name, asked)
			}
		}
	}
	if got := auditA() - rowsBefore; got != 2*calls {
		t.Errorf("%d calls audited on A, want %d (every call, and its get_mode, is the key's site's)", got, 2*calls)
	}
	if refusedOnZeta < 10 {
		t.Fatalf("only %d tools named a site: the sweep reached too little", refusedOnZeta)
	}
	return calls, refusedOnZeta
}

// agentKeysOfA are the agent keys the tenancy sweep calls /mcp with: a
// person's key minted on A in auto mode with every scope an Editor's key
// may hold (so that §12's gate lets every tool through to the site check),
// by an Editor of A who is an Editor of Zeta too; and A's agent task's own
// key inside its open run.
func agentKeysOfA(t *testing.T, a *testApp, z zeta) map[string]string {
	t.Helper()
	ctx := context.Background()
	if err := a.store.AddMember(ctx, z.site.ID, a.editor.ID, policy.Editor, start); err != nil {
		t.Fatal(err)
	}
	scopes := agents.OfferedScopes(policy.Editor)
	_, person, err := a.agents.Mint(ctx, a.editor, a.site.ID, agents.KeyInput{Name: "Desk", Mode: policy.ModeAuto, Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	budget := automation.DefaultBudget
	budget.MaxToolCalls = 500 // the sweep's calls, each with its get_mode
	task := a.agentTask(t, "A's planner", policy.ModeEdits, 60, &budget, scopes...)
	if _, _, err := a.aut.RunNow(ctx, a.editor, a.site.ID, task.ID); err != nil {
		t.Fatal(err)
	}
	u, err := a.agents.Authenticate(ctx, task.NewKey.Secret)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.aut.BeginRun(ctx, u, task.ID); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"person's key": person, "agent task's key": task.NewKey.Secret}
}

// TestMCPFuzzAcrossSites (issue 36): A's agent keys call /mcp with random
// tool names (the listed ones, near misses and nonsense) and random
// argument shapes — the listed properties and others, ids of both sites,
// strings, numbers, nulls, lists and objects where another type belongs.
// Nothing answers anything of Zeta, no answer is an internal error (a
// tool's or JSON-RPC's), nothing of Zeta changes, and the server answers
// a well-formed call afterwards. The seed is logged: a failure is
// replayed with STUDIO_FUZZ_SEED.
func TestMCPFuzzAcrossSites(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	z := newZeta(t, a)
	keys := agentKeysOfA(t, a, z)
	base := a.serve(t, false)
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("STUDIO_FUZZ_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(seed, seed>>1))
	before := z.fingerprint(t, a)
	ctx := context.Background()
	ids := []string{z.site.ID, a.site.ID, z.release, z.request, z.automation, z.run, z.article.ID, z.draft.ID, z.agentKey,
		z.owner.ID, a.draft.ID, a.live.ID, "site_nope", "rel_nope", "", "../" + z.site.ID}
	value := func(depth int) any {
		var v func(int) any
		v = func(d int) any {
			switch n := rnd.IntN(9); {
			case n < 3:
				return ids[rnd.IntN(len(ids))]
			case n == 3:
				return rnd.IntN(1<<20) - 1<<10
			case n == 4:
				return nil
			case n == 5:
				return rnd.IntN(2) == 0
			case n == 6 && d < 2:
				return []any{v(d + 1), v(d + 1)}
			case n == 7 && d < 2:
				return map[string]any{"at": v(d + 1), "localTime": "2026-11-05T09:00", "siteId": ids[rnd.IntN(2)]}
			default:
				return []string{"2026-11-05T09:00:00Z", "on-approval", "x", "Zeta", strings.Repeat("ş", 300)}[rnd.IntN(5)]
			}
		}
		return v(depth)
	}
	calls, checked := 0, 0
	for name, secret := range keys {
		s := (&mcpFixture{base: base}).connect(t, secret)
		list, err := s.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for range 150 {
			tl := list.Tools[rnd.IntN(len(list.Tools))]
			tool := tl.Name
			switch rnd.IntN(10) {
			case 0:
				tool = tool + "_x"
			case 1:
				tool = "delete_site"
			}
			args := z.mcpArgs(tl.InputSchema, ids[rnd.IntN(2)])
			for k := range args {
				if rnd.IntN(3) == 0 {
					args[k] = value(0)
				}
			}
			if rnd.IntN(3) == 0 {
				args[[]string{"siteId", "nodeId", "extra", "releaseId", "automationId"}[rnd.IntN(5)]] = value(0)
			}
			asked, _ := json.Marshal(args)
			cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			res, err := s.CallTool(cctx, &sdk.CallToolParams{Name: tool, Arguments: args})
			cancel()
			calls++
			if err != nil {
				var wire *jsonrpc.Error
				if !errors.As(err, &wire) || wire.Code == jsonrpc.CodeInternalError {
					t.Errorf("%s %s %s: %v", name, tool, asked, err)
				}
				if leak := z.leak(err.Error(), string(asked)); leak != "" {
					t.Errorf("%s %s %s: the error names Zeta's %q: %v", name, tool, asked, leak, err)
				}
				continue
			}
			raw, _ := json.Marshal(res)
			checked++
			if leak := z.leak(string(raw), string(asked)); leak != "" {
				t.Errorf("%s %s %s shows Zeta's %q: %s", name, tool, asked, leak, excerpt(string(raw)))
			}
			if strings.Contains(string(raw), `"code":"internal"`) {
				t.Errorf("%s %s %s: internal error: %s", name, tool, asked, excerpt(string(raw)))
			}
		}
		okTool(t, s, "get_mode", nil)
	}
	if after := z.fingerprint(t, a); after != before {
		t.Errorf("A's keys changed Zeta:\nbefore %s\nafter  %s", before, after)
	}
	t.Logf("%d random calls, %d tool answers checked, 0 of Zeta's things shown or changed", calls, checked)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
