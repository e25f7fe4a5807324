package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"studio/engine/automations"
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
// agent task in edits mode, driven by the go-sdk MCP client over real
// HTTP inside its run, drafts an article and proposes it for Monday 09:00;
// the call answers at once, approval pending, and the run ends. The Editor
// finds it under Waiting for approval and Proposed by agents, marked as
// the agent's, reviews the pinned diff in Turkish and approves it once;
// the ticker publishes it at 09:00, and the run's page links the release
// and the request. Nobody polls.
func TestAgentProposalInTheBrowser(t *testing.T) {
	t.Parallel()
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC)) // Monday 08:00 in Istanbul
	f := app.demo(t)
	ctx := context.Background()
	editor := f.user("editor@demo.test")
	no := false
	task, err := app.aut.Create(ctx, editor, f.site.ID, automations.Input{Name: "Morning desk", Preset: "daily",
		Start: "2026-11-03T07:30", Task: &automations.TaskInput{Instructions: "Draft the turnout article and propose it for 09:00.",
			ModeCap: policy.ModeEdits, ReadsUntrustedText: &no, WindowMinutes: 30,
			Scopes: []policy.Scope{policy.ContentRead, policy.ContentWrite, policy.SchedulesRead, policy.SchedulesWrite}}})
	must(t, err)
	_, _, err = app.aut.RunNow(ctx, editor, f.site.ID, task.ID) // a person opens its window now
	must(t, err)

	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	session, err := sdk.NewClient(&sdk.Implementation{Name: "morning-desk", Version: "1"}, nil).Connect(cctx,
		&sdk.StreamableClientTransport{Endpoint: app.url + "/mcp", MaxRetries: -1,
			HTTPClient: &http.Client{Transport: bearerTransport(task.NewKey.Secret)}}, nil)
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

	t.Log("inside its run the agent drafts the article and proposes it for 09:00")
	env := call("begin_run", map[string]any{"automationId": task.ID})
	runID, _ := env["runId"].(string)
	saved := call("save_draft", map[string]any{"siteId": f.site.ID, "title": "Turnout by district",
		"body": "Turnout was 71 percent by nine.", "summary": "Where people voted."})
	node, _ := saved["node"].(map[string]any)
	nodeID, _ := node["id"].(string)
	proposed := call("propose_release", map[string]any{"siteId": f.site.ID, "nodeIds": []string{nodeID},
		"localTime": "2026-11-02T09:00", "note": "For the nine o'clock update."})
	rel, _ := proposed["release"].(map[string]any)
	id, _ := rel["id"].(string)
	scheduled := call("schedule_release", map[string]any{"siteId": f.site.ID, "releaseId": id, "when": map[string]any{"localTime": "2026-11-02T09:00"}})
	if scheduled["status"] != "approval-pending" || scheduled["approvalId"] == nil {
		t.Fatalf("publishing waits for a person in edits, and answers at once: %v", scheduled)
	}
	call("end_run", map[string]any{"runId": runID, "summary": "Drafted the turnout article; proposed it for 09:00.", "outcome": "waiting-approval"})

	t.Log("the Editor finds it waiting, reviews the pinned diff in Turkish and approves it")
	b := newBrowser(t)
	must(t, do(b,
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.SetValue(chromedp.CSS("#email"), "editor@demo.test"),
		chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
		chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
		chromedp.Navigate(app.url+"/studio/schedules?preset=waiting"),
		chromedp.WaitVisible(chromedp.CSS(`.agenda-row.agent`)),
	))
	wantContains(t, "waiting for approval", text(t, b, "main"), "Onay bekleyenler", "Turnout by district", "Morning desk")
	must(t, do(b,
		chromedp.Navigate(app.url+"/studio/schedules?preset=agents"),
		chromedp.WaitVisible(chromedp.CSS(`.agenda-row.agent`)),
	))
	wantContains(t, "proposed by agents", text(t, b, "main"), "Yapay zekâ ajanlarının önerdikleri", "Turnout by district")
	shots(t, b, "agent-proposal-tr")
	must(t, do(b,
		chromedp.Navigate(app.url+"/studio/approvals"),
		chromedp.Click(chromedp.Search(`//a[text()="Turnout by district"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="rendered-after"]`)),
	))
	wantContains(t, "the pinned diff", text(t, b, "main"), "Onay bekliyor", "Morning desk onay istedi", "Henüz yayında değil",
		"Turnout was 71 percent by nine.", "09:00 İstanbul")
	shots(t, b, "agent-approval-tr")
	must(t, do(b,
		chromedp.Click(chromedp.CSS(`[data-testid="approve"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="release-by-agent"]`)),
	))
	wantContains(t, "approved", text(t, b, "main"), "Zamanlandı", "Morning desk", "Yapay zekâ ajanı")

	t.Log("at 09:00 the ticker publishes it, and the run's page links what it left")
	app.clock.Set(time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC))
	app.waitPublished(t)
	resp, err := chromedp.Run(b, chromedp.NavigateResponse(app.url+"/posts/turnout-by-district"))
	must(t, err)
	if resp.Status != 200 {
		t.Fatalf("after its time: status %d", resp.Status)
	}
	must(t, do(b,
		chromedp.Navigate(app.url+"/studio/releases/"+id),
		chromedp.Click(chromedp.CSS(`[data-testid="release-run"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="agent-run"]`)),
	))
	switchLanguage(t, b, "en")
	wantContains(t, "the run's page", text(t, b, "main"), "What the agent did", "Drafted the turnout article; proposed it for 09:00.",
		"Turnout by district", "Published", "Approval request 1")
	shots(t, b, "agent-run-en")
}
