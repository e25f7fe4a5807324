package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"studio/handlers/internal/apptest"
)

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
	a := apptest.New(t)
	z := apptest.NewZeta(t, a)
	keys := apptest.AgentKeysOfA(t, a, z)
	base := a.Serve(t, false)
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("STUDIO_FUZZ_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(seed, seed>>1))
	before := z.Fingerprint(t, a)
	ctx := context.Background()
	ids := []string{z.Site.ID, a.Site.ID, z.Release, z.Request, z.Automation, z.Run, z.Article.ID, z.Draft.ID, z.AgentKey,
		z.Owner.ID, a.Draft.ID, a.Live.ID, "site_nope", "rel_nope", "", "../" + z.Site.ID}
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
		s := (&apptest.MCPFixture{Base: base}).Connect(t, secret)
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
			args := z.MCPArgs(tl.InputSchema, ids[rnd.IntN(2)])
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
				if leak := z.Leak(err.Error(), string(asked)); leak != "" {
					t.Errorf("%s %s %s: the error names Zeta's %q: %v", name, tool, asked, leak, err)
				}
				continue
			}
			raw, _ := json.Marshal(res)
			checked++
			if leak := z.Leak(string(raw), string(asked)); leak != "" {
				t.Errorf("%s %s %s shows Zeta's %q: %s", name, tool, asked, leak, apptest.Excerpt(string(raw)))
			}
			if strings.Contains(string(raw), `"code":"internal"`) {
				t.Errorf("%s %s %s: internal error: %s", name, tool, asked, apptest.Excerpt(string(raw)))
			}
		}
		apptest.OkTool(t, s, "get_mode", nil)
	}
	if after := z.Fingerprint(t, a); after != before {
		t.Errorf("A's keys changed Zeta:\nbefore %s\nafter  %s", before, after)
	}
	t.Logf("%d random calls, %d tool answers checked, 0 of Zeta's things shown or changed", calls, checked)
}
