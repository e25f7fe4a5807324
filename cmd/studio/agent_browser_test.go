package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"studio/engine/agents"
	"studio/engine/policy"
)

// bearerTransport sends an agent key's secret with every request.
type bearerTransport string

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestAgentProposalInTheBrowser is RFC §12's promise end to end: an
// external agent (the go-sdk MCP client over real HTTP) proposes a release
// and schedules it, and the call answers at once, approval pending; the
// Editor finds it under "Proposed by agents", marked as the agent's,
// approves the pinned version once, and the ticker publishes it at its
// time. Nobody polls.
func TestAgentProposalInTheBrowser(t *testing.T) {
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC))
	f := app.demo(t)
	ctx := context.Background()
	_, secret, err := app.agents.Mint(ctx, f.user("editor@demo.test"), f.site.ID, agents.KeyInput{Name: "Desk planner",
		Mode: policy.ModeManual})
	must(t, err)
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	session, err := sdk.NewClient(&sdk.Implementation{Name: "desk-planner", Version: "1"}, nil).Connect(cctx,
		&sdk.StreamableClientTransport{Endpoint: app.url + "/mcp", MaxRetries: -1,
			HTTPClient: &http.Client{Transport: bearerTransport(secret)}}, nil)
	must(t, err)
	defer session.Close()
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := session.CallTool(cctx, &sdk.CallToolParams{Name: name, Arguments: args})
		must(t, err)
		out, _ := res.StructuredContent.(map[string]any)
		if res.IsError {
			t.Fatalf("%s refused: %v", name, out)
		}
		return out
	}

	t.Log("the agent proposes the results article for 10:00 and schedules it")
	proposed := call("propose_release", map[string]any{"siteId": f.site.ID, "nodeIds": []string{f.node("Election night live")},
		"localTime": "2026-11-02T10:00", "note": "Results at ten."})
	rel, _ := proposed["release"].(map[string]any)
	id, _ := rel["id"].(string)
	scheduled := call("schedule_release", map[string]any{"siteId": f.site.ID, "releaseId": id, "when": map[string]any{"localTime": "2026-11-02T10:00"}})
	if scheduled["status"] != "approval-pending" || scheduled["approvalId"] == nil {
		t.Fatalf("a manual key's schedule waits for a person, at once: %v", scheduled)
	}

	t.Log("the Editor finds it under Proposed by agents, in Turkish, and approves it")
	b := newBrowser(t)
	must(t, chromedp.Do(b,
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "editor@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
		chromedp.Navigate(app.url+"/studio/schedules?preset=agents"),
		chromedp.WaitVisible(chromedp.CSS(`.agenda-row.agent`)),
	))
	wantContains(t, "the agents' view", text(t, b, "main"), "Yapay zekâ ajanlarının önerdikleri", "Election night live", "Desk planner")
	shots(t, b, "agent-proposal-tr")
	must(t, chromedp.Do(b,
		chromedp.Navigate(app.url+"/studio/releases/"+id),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="release-by-agent"]`)),
	))
	wantContains(t, "the release page", text(t, b, "main"), "Desk planner", "Yapay zekâ ajanı", "Onay bekliyor")
	switchLanguage(t, b, "en")
	wantContains(t, "the release page in English", text(t, b, "main"), "Desk planner", "AI agent", "Waiting for approval")
	shots(t, b, "agent-release-en")
	must(t, chromedp.Do(b,
		chromedp.Navigate(app.url+"/studio/approvals"),
		chromedp.Click(chromedp.Search(`//a[text()="Election night live"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="approve"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="approve"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="release-when"]`)),
	))
	wantContains(t, "approved", text(t, b, "main"), "Scheduled")

	t.Log("at 10:00 the ticker publishes it")
	app.clock.Set(time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC))
	app.waitPublished(t)
	resp, err := chromedp.Run(b, chromedp.NavigateResponse(app.url+"/posts/election-night"))
	must(t, err)
	if resp.Status != 200 {
		t.Fatalf("after its time: status %d", resp.Status)
	}
}
