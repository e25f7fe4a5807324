package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"studio/engine"
	"studio/engine/agents"
	"studio/engine/automations"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/releases"
	"studio/handlers/internal/apptest"
)

// The write tools over real HTTP with the go-sdk client and keys minted by
// the agent-key use case (so the scheduler's run-time re-check finds them):
// what goes out, what waits for a person, what is refused, per mode.

// agentSession mints an Editor's key of mode (its default scopes) and
// connects with it.
func agentSession(a *apptest.App, t *testing.T, base string, mode policy.Mode, scopes ...policy.Scope) (*sdk.ClientSession, agents.Key) {
	t.Helper()
	key, secret, err := a.Agents.Mint(context.Background(), a.Editor, a.Site.ID, agents.KeyInput{Name: "Desk " + string(mode),
		Mode: mode, Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	return (&apptest.MCPFixture{Base: base}).Connect(t, secret), key
}

func releaseIDOf(t *testing.T, out map[string]any) (string, int64) {
	t.Helper()
	r, _ := out["release"].(map[string]any)
	id, _ := r["id"].(string)
	rev, _ := r["rev"].(float64)
	if id == "" {
		t.Fatalf("no release in %v", out)
	}
	return id, int64(rev)
}

// liveSnapshot is the site's live snapshot pointer.
func liveSnapshot(a *apptest.App, t *testing.T) string {
	t.Helper()
	var id string
	if err := a.Store.DB().QueryRow(`SELECT coalesce(published_snapshot_id, '') FROM sites WHERE id = ?`, a.Site.ID).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// nodeCount counts the site's nodes.
func nodeCount(a *apptest.App, t *testing.T) int {
	t.Helper()
	var n int
	if err := a.Store.DB().QueryRow(`SELECT count(*) FROM nodes WHERE site_id = ?`, a.Site.ID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMCPWriteToolsManual: in manual mode a proposal is free and every
// other write waits for a person, at once (runs never wait): the request
// is bound to the release and its time, a person approves it in one act,
// and the scheduler publishes it at T. What has no request to file is
// refused (waits_for_person), changing nothing.
func TestMCPWriteToolsManual(t *testing.T) {
	a := apptest.New(t)
	base := a.Serve(t, false)
	s, key := agentSession(a, t, base, policy.ModeManual)
	site := a.Site.ID
	noon := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC) // 12:00 in Istanbul

	out := apptest.OkTool(t, s, "propose_release", map[string]any{"siteId": site, "nodeIds": []string{a.Draft.ID},
		"at": noon.Format(time.RFC3339), "note": "For the noon slot."})
	id, rev := releaseIDOf(t, out)
	if r := a.Release(t, id); r.State != release.StateDraft || r.CreatedBy.Kind != "agent" || r.CreatedBy.ID != key.ID {
		t.Fatalf("a proposal is the key's draft: %+v", r.Release)
	}
	var note string
	if err := a.Store.DB().QueryRow(`SELECT json_extract(details, '$.note') FROM audit WHERE action = 'release.create' AND release_id = ?`,
		id).Scan(&note); err != nil || note != "For the noon slot." {
		t.Fatalf("the note on the audit row: %q %v", note, err)
	}

	out = apptest.OkTool(t, s, "schedule_release", map[string]any{"siteId": site, "releaseId": id, "when": map[string]any{"at": noon.Format(time.RFC3339)},
		"expectedRev": rev})
	apr, _ := out["approvalId"].(string)
	if out["status"] != "approval-pending" || apr == "" {
		t.Fatalf("schedule_release in manual waits: %v", out)
	}
	r := a.Release(t, id)
	if r.State != release.StateAwaitingApproval || r.Approval != nil {
		t.Fatalf("waiting release: %+v", r.Release)
	}
	q, err := a.Store.ApprovalRequest(context.Background(), site, apr)
	if err != nil || q.StateHash != r.Hash || q.RequestedBy.ID != key.ID || q.ExecuteAt == nil || !q.ExecuteAt.Equal(noon) {
		t.Fatalf("the request binds rl1: and the time: %+v %v", q, err)
	}

	out, res := apptest.CallTool(t, s, "cancel_schedule", map[string]any{"siteId": site, "releaseId": id, "expectedRev": r.Rev})
	apptest.ToolError(t, "cancel in manual", out, res, releases.CodeWaitsForPerson)
	if after := a.Release(t, id); after.State != r.State || after.Rev != r.Rev {
		t.Fatalf("a refused cancel changed the release: %s rev %d", after.State, after.Rev)
	}

	// The agent never approves: a person does, once, and T publishes it.
	if _, err := a.Releases.Approve(context.Background(), a.Editor, site, apr); err != nil {
		t.Fatal(err)
	}
	a.TickAt(t, noon.Add(-time.Second))
	if a.Release(t, id).State != release.StateScheduled {
		t.Fatal("published early")
	}
	a.TickAt(t, noon)
	if got := a.Release(t, id); got.State != release.StatePublished {
		t.Fatalf("at T: %s", got.State)
	}
}

// TestMCPWriteToolsEdits: in edits mode drafts and reductions are free
// (save_draft; an embargo on a live node goes out as a gate-only release
// without a person; canceling a release that only publishes), while
// publishing, removing content and lifting an embargo wait; an agent's
// move voids a person's approval (D4).
func TestMCPWriteToolsEdits(t *testing.T) {
	a := apptest.New(t)
	base := a.Serve(t, false)
	s, key := agentSession(a, t, base, policy.ModeEdits)
	site := a.Site.ID
	ctx := context.Background()

	out := apptest.OkTool(t, s, "save_draft", map[string]any{"siteId": site, "title": "Turnout by district", "body": "Figures at noon."})
	node, _ := out["node"].(map[string]any)
	nodeID, _ := node["id"].(string)
	d, err := a.Nodes.Node(ctx, engine.Reader(site), site, nodeID)
	if err != nil || d.Live != nil || d.Body.Slug != "turnout-by-district" {
		t.Fatalf("save_draft creates a draft, never live: %+v %v", d, err)
	}
	apptest.OkTool(t, s, "save_draft", map[string]any{"siteId": site, "nodeId": nodeID, "expectedRev": d.Rev, "summary": "Where people voted."})
	if d2, _ := a.Nodes.Node(ctx, engine.Reader(site), site, nodeID); d2.Rev != d.Rev+1 || d2.Body.Summary != "Where people voted." || d2.Body.Title != d.Body.Title {
		t.Fatalf("save_draft changes only the given fields: %+v", d2.Body)
	}

	// An embargo on a live article can only hide it: out without a person.
	from := apptest.Start.Add(3 * time.Hour)
	live, _ := a.Nodes.Node(ctx, engine.Reader(site), site, a.Live.ID)
	out = apptest.OkTool(t, s, "set_embargo", map[string]any{"siteId": site, "nodeId": a.Live.ID, "from": from.Format(time.RFC3339),
		"expectedRev": live.Rev})
	gid, _ := releaseIDOf(t, out)
	g := a.Release(t, gid)
	if out["status"] != "scheduled" || g.Approval == nil || g.Approval.Kind != release.ApprovalAuto || !g.Approval.Reduce || g.Approval.KeyID != key.ID {
		t.Fatalf("set_embargo in edits: %v / %+v", out, g.Approval)
	}
	a.TickAt(t, apptest.Start)
	if a.Release(t, gid).State != release.StatePublished {
		t.Fatalf("the gate-only release: %s", a.Release(t, gid).State)
	}

	// Lifting it early is a person's act; an expiry removes content: both wait.
	live, _ = a.Nodes.Node(ctx, engine.Reader(site), site, a.Live.ID)
	out = apptest.OkTool(t, s, "lift_embargo", map[string]any{"siteId": site, "nodeId": a.Live.ID, "reason": "The press conference moved.",
		"expectedRev": live.Rev})
	if out["status"] != "approval-pending" || out["approvalId"] == nil {
		t.Fatalf("lift_embargo always waits: %v", out)
	}
	page, _ := a.Nodes.Node(ctx, engine.Reader(site), site, a.Page.ID)
	out = apptest.OkTool(t, s, "schedule_unpublish", map[string]any{"siteId": site, "nodeId": a.Page.ID,
		"at": apptest.Start.Add(5 * time.Hour).Format(time.RFC3339), "expectedRev": page.Rev})
	if out["status"] != "approval-pending" || out["approvalId"] == nil {
		t.Fatalf("schedule_unpublish always waits: %v", out)
	}

	// A person's approved release, moved by the agent: approval voided.
	other := a.OtherDraft(t)
	rel := a.ScheduleAt(t, a.Editor, other, "2026-11-03", "09:00")
	out = apptest.OkTool(t, s, "reschedule", map[string]any{"siteId": site, "releaseId": rel.ID, "expectedRev": a.Release(t, rel.ID).Rev,
		"when": map[string]any{"localTime": "2026-11-03T10:00"}})
	if r := a.Release(t, rel.ID); out["status"] != "approval-pending" || r.Approval != nil || r.State != release.StateAwaitingApproval {
		t.Fatalf("an agent's move voids the approval: %v / %+v", out, r.Release)
	}
	// Canceling a release that only publishes is a reduce: free in edits.
	apptest.OkTool(t, s, "cancel_schedule", map[string]any{"siteId": site, "releaseId": rel.ID, "expectedRev": a.Release(t, rel.ID).Rev})
	if r := a.Release(t, rel.ID); r.State != release.StateCanceled {
		t.Fatalf("cancel in edits: %s", r.State)
	}

	// Another person's release is no different (§12: schedules:write is
	// the rule, the mode decides): the key moves it into a request and
	// cancels it.
	owner := a.AddUser(t, "oya@example.com", "Oya Owner", policy.Owner, "en")
	note := a.CreateNode(t, release.KindContentEntry, content.Body{Title: "Owner's note", Slug: "owners-note", Lang: "en",
		Status: content.StatusDraft, Text: "From the desk."})
	theirs := a.ScheduleAt(t, owner, note, "2026-11-03", "09:00")
	out = apptest.OkTool(t, s, "reschedule", map[string]any{"releaseId": theirs.ID, "expectedRev": a.Release(t, theirs.ID).Rev,
		"when": map[string]any{"localTime": "2026-11-03T11:00"}})
	if r := a.Release(t, theirs.ID); out["status"] != "approval-pending" || r.Approval != nil || r.State != release.StateAwaitingApproval {
		t.Fatalf("an agent's move of another person's release: %v / %+v", out, r.Release)
	}
	apptest.OkTool(t, s, "cancel_schedule", map[string]any{"releaseId": theirs.ID, "expectedRev": a.Release(t, theirs.ID).Rev})
	if r := a.Release(t, theirs.ID); r.State != release.StateCanceled {
		t.Fatalf("cancel of another person's release in edits: %s", r.State)
	}
}

// TestMCPAutoApprovals: in auto mode a low-risk release inside the 24-hour
// window is approved as {kind: auto, keyId, windowEnds} and published at
// T; one outside the window waits. At T the approval is checked again:
// once its key is revoked the release expires (creator_removed) and nothing is
// published.
func TestMCPAutoApprovals(t *testing.T) {
	a := apptest.New(t)
	base := a.Serve(t, false)
	s, key := agentSession(a, t, base, policy.ModeAuto)
	s2, _ := agentSession(a, t, base, policy.ModeAuto)
	site := a.Site.ID

	schedule := func(s *sdk.ClientSession, nodeID string, at time.Time) (string, map[string]any) {
		out := apptest.OkTool(t, s, "schedule_release", map[string]any{"siteId": site, "nodeIds": []string{nodeID},
			"when": map[string]any{"at": at.Format(time.RFC3339)}})
		id, _ := releaseIDOf(t, out)
		return id, out
	}
	soon, out := schedule(s, a.Draft.ID, apptest.Start.Add(2*time.Hour))
	r := a.Release(t, soon)
	if out["status"] != "scheduled" || r.Approval == nil || r.Approval.Kind != release.ApprovalAuto || r.Approval.KeyID != key.ID ||
		r.Approval.WindowEnds == nil || !r.Approval.WindowEnds.Equal(apptest.Start.Add(policy.AutoWindow)) {
		t.Fatalf("a low-risk release in the window: %v / %+v", out, r.Approval)
	}
	later, out := schedule(s, a.OtherDraft(t).ID, apptest.Start.Add(30*time.Hour))
	if out["status"] != "approval-pending" || a.Release(t, later).Approval != nil {
		t.Fatalf("outside the window it waits: %v", out)
	}
	// Moved into the window, it is decided again as schedule_release: auto
	// approved, and its request no longer waits.
	out = apptest.OkTool(t, s, "reschedule", map[string]any{"siteId": site, "releaseId": later, "expectedRev": a.Release(t, later).Rev,
		"when": map[string]any{"at": apptest.Start.Add(3 * time.Hour).Format(time.RFC3339)}})
	if r := a.Release(t, later); out["status"] != "scheduled" || r.Approval == nil || r.Approval.Kind != release.ApprovalAuto {
		t.Fatalf("a move into the window in auto: %v / %+v", out, r.Approval)
	}
	if waiting, _ := a.Releases.WaitingRequestsOf(context.Background(), a.Editor, site, []string{later}); len(waiting) != 0 {
		t.Fatalf("the old request still waits: %+v", waiting)
	}
	third := a.CreateNode(t, release.KindContentEntry, content.Body{Title: "Markets at noon", Slug: "markets-noon",
		Lang: "en", Status: content.StatusDraft, Text: "Prices at midday."})
	kept, _ := schedule(s2, third.ID, apptest.Start.Add(time.Hour))

	a.TickAt(t, apptest.Start.Add(time.Hour))
	if got := a.Release(t, kept); got.State != release.StatePublished {
		t.Fatalf("an auto-approved release at T: %s", got.State)
	}
	if err := a.Agents.Revoke(context.Background(), a.Editor, site, key.ID); err != nil {
		t.Fatal(err)
	}
	before := liveSnapshot(a, t)
	a.TickAt(t, apptest.Start.Add(2*time.Hour))
	got := a.Release(t, soon)
	if got.State != release.StateExpired || got.Outcome == nil || got.Outcome.Reason != releases.ReasonCreatorRemoved {
		t.Fatalf("a revoked key's auto approval at T: %s %+v", got.State, got.Outcome)
	}
	if liveSnapshot(a, t) != before {
		t.Fatal("an expired auto release published something")
	}
}

// TestMCPTaintAndRunTrail: inside an agent task's run, a write that waits
// files its request with the run's id (get_run lists it); once the run
// reads broken_links (visitor-supplied paths) it is tainted: save_draft
// and propose_release answer tainted, a reduction still goes through, and
// get_mode says so.
func TestMCPTaintAndRunTrail(t *testing.T) {
	a := apptest.New(t)
	ctx := context.Background()
	site := a.Site.ID
	no := false
	task, err := a.Automations.Create(ctx, a.Editor, site, automations.Input{Name: "Desk helper", Preset: "daily",
		Start: "2026-11-03T09:00", Task: &automations.TaskInput{Instructions: "Tidy the drafts.", ModeCap: policy.ModeEdits,
			ReadsUntrustedText: &no, WindowMinutes: 30, Scopes: []policy.Scope{policy.ContentRead, policy.ContentWrite,
				policy.SchedulesRead, policy.SchedulesWrite, policy.AnalyticsRead}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.Automations.RunNow(ctx, a.Editor, site, task.ID); err != nil {
		t.Fatal(err)
	}
	base := a.Serve(t, false)
	s := (&apptest.MCPFixture{Base: base}).Connect(t, task.NewKey.Secret)
	env := apptest.OkTool(t, s, "begin_run", map[string]any{"automationId": task.ID})
	runID, _ := env["runId"].(string)

	out := apptest.OkTool(t, s, "schedule_release", map[string]any{"siteId": site, "nodeIds": []string{a.Draft.ID},
		"when": map[string]any{"localTime": "2026-11-02T15:00"}})
	apr, _ := out["approvalId"].(string)
	if out["status"] != "approval-pending" || apr == "" {
		t.Fatalf("publishing waits in edits: %v", out)
	}
	var createRun string
	id, _ := releaseIDOf(t, out)
	if err := a.Store.DB().QueryRow(`SELECT coalesce(run_id, '') || '/' || coalesce(automation_id, '') FROM audit
		WHERE action = 'release.schedule' AND release_id = ?`, id).Scan(&createRun); err != nil || createRun != runID+"/"+task.ID {
		t.Fatalf("the use case's audit row carries the run and the automation: %q %v", createRun, err)
	}
	page := a.SignedIn(t, a.Editor).Get("/studio/releases/" + id)
	if !strings.Contains(page.Body, `data-testid="release-by-agent"`) || !strings.Contains(page.Body, "/studio/schedules/runs/"+runID) {
		t.Fatal("the release page does not name the agent and its run")
	}
	run := apptest.OkTool(t, s, "get_run", map[string]any{"siteId": site, "runId": runID})
	if ids, _ := run["approvals"].([]any); len(ids) != 1 || ids[0] != apr {
		t.Fatalf("get_run lists the run's request: %v", run["approvals"])
	}

	runPage := a.SignedIn(t, a.Editor).Get("/studio/schedules/runs/" + runID)
	if !strings.Contains(runPage.Body, `data-testid="agent-releases"`) || !strings.Contains(runPage.Body, "/studio/releases/"+id) ||
		!strings.Contains(runPage.Body, "/studio/approvals/"+apr) {
		t.Fatal("the run's page does not link the release and the request the run left")
	}
	apptest.OkTool(t, s, "broken_links", map[string]any{"siteId": site})
	mode := apptest.OkTool(t, s, "get_mode", nil)
	if r, _ := mode["run"].(map[string]any); r["tainted"] != true {
		t.Fatalf("broken_links taints the run: %v", mode)
	}
	other := a.OtherDraft(t)
	nodes := nodeCount(a, t)
	out, res := apptest.CallTool(t, s, "save_draft", map[string]any{"siteId": site, "title": "From a 404 path"})
	apptest.ToolError(t, "save_draft after taint", out, res, engine.CodeTainted)
	out, res = apptest.CallTool(t, s, "propose_release", map[string]any{"siteId": site, "nodeIds": []string{other.ID}})
	apptest.ToolError(t, "propose_release after taint", out, res, engine.CodeTainted)
	if nodeCount(a, t) != nodes || a.ReleaseCount(t) != 1 {
		t.Fatal("a tainted run's refused writes wrote something")
	}
	// A reduction is still allowed: an embargo on a draft's working copy.
	d, _ := a.Nodes.Node(ctx, engine.Reader(site), site, a.Page.ID)
	out = apptest.OkTool(t, s, "set_embargo", map[string]any{"siteId": site, "nodeId": a.Page.ID,
		"from": apptest.Start.Add(6 * time.Hour).Format(time.RFC3339), "expectedRev": d.Rev})
	if out["status"] == nil {
		t.Fatalf("set_embargo after taint: %v", out)
	}
	apptest.OkTool(t, s, "end_run", map[string]any{"runId": runID, "summary": "Proposed the <b>results</b> page.", "outcome": "proposed"})
	body := a.SignedIn(t, a.Editor).Get("/studio/schedules/runs/" + runID).Body
	if !strings.Contains(body, "Proposed the &lt;b&gt;results&lt;/b&gt; page.") {
		t.Fatal("the run's page does not show the agent's summary as text")
	}
}

// TestTakeOverInStudio: an Administrator takes over an Editor's agent task
// from the automations list; the new key's secret shows once on the
// answer, opens /mcp as the task's own key, and the Editor's key no longer
// does.
func TestTakeOverInStudio(t *testing.T) {
	a := apptest.New(t)
	ctx := context.Background()
	no := false
	task, err := a.Automations.Create(ctx, a.Editor, a.Site.ID, automations.Input{Name: "Planner", Preset: "daily",
		Start: "2026-11-03T09:00", Task: &automations.TaskInput{Instructions: "Plan.", ModeCap: policy.ModeManual,
			ReadsUntrustedText: &no, WindowMinutes: 30}})
	if err != nil {
		t.Fatal(err)
	}
	base := a.Serve(t, false)
	admin := a.Admin(t)
	c := a.SignedIn(t, admin)
	list := c.Get("/studio/schedules/automations")
	if !strings.Contains(list.Body, `data-testid="menu-take-over"`) {
		t.Fatal("no Take over for an Administrator")
	}
	if strings.Contains(a.SignedIn(t, a.Editor).Get("/studio/schedules/automations").Body, `data-testid="menu-take-over"`) {
		t.Fatal("an Editor is offered Take over")
	}
	res := c.Post("/studio/schedules/automations/"+task.ID+"/take-over", url.Values{"rev": {fmt.Sprint(task.Rev)}, "csrf_token": {c.Token()}})
	m := regexp.MustCompile(`data-testid="secret"[^>]*value="([^"]+)"|value="([^"]+)"[^>]*data-testid="secret"`).FindStringSubmatch(res.Body)
	if res.Status != http.StatusOK || m == nil {
		t.Fatalf("take over: %d, no secret shown", res.Status)
	}
	secret := m[1] + m[2]
	out := apptest.OkTool(t, (&apptest.MCPFixture{Base: base}).Connect(t, secret), "get_mode", nil)
	if out["automationId"] != task.ID {
		t.Fatalf("the new key is the task's: %v", out)
	}
	got, _ := a.Automations.Get(ctx, admin, a.Site.ID, task.ID)
	if got.Owner.ID != admin.ID {
		t.Fatalf("owner %s after the take-over", got.Owner.ID)
	}
	if _, err := a.Agents.Authenticate(ctx, task.NewKey.Secret); err == nil {
		t.Fatal("the Editor's old key still authenticates")
	}
}

// TestMCPTaintForAPersonsKey (issue 36, hole 3): a person's key has no run,
// so its MCP session carries §11.4's taint. Once broken_links answered
// (visitor-supplied 404 paths), the session's schedule_release in auto mode
// is refused tainted — no auto approval, nothing scheduled — and so are its
// other writes; reads still work and get_mode says so. A new session of
// the same key starts clean: the very same call is auto-approved there.
func TestMCPTaintForAPersonsKey(t *testing.T) {
	a := apptest.New(t)
	base := a.Serve(t, false)
	_, secret, err := a.Agents.Mint(context.Background(), a.Editor, a.Site.ID, agents.KeyInput{Name: "Desk auto", Mode: policy.ModeAuto,
		Scopes: []policy.Scope{policy.SchedulesRead, policy.SchedulesWrite, policy.ReleasesPublish, policy.ContentRead,
			policy.ContentWrite, policy.AnalyticsRead}})
	if err != nil {
		t.Fatal(err)
	}
	site := a.Site.ID
	s := (&apptest.MCPFixture{Base: base}).Connect(t, secret)
	if out := apptest.OkTool(t, s, "get_mode", nil); out["tainted"] != false {
		t.Fatalf("a fresh session: %v", out)
	}
	if out := apptest.OkTool(t, s, "broken_links", map[string]any{"siteId": site}); out["untrusted"] != true {
		t.Fatalf("broken_links: %v", out)
	}
	if out := apptest.OkTool(t, s, "get_mode", nil); out["tainted"] != true {
		t.Fatalf("after broken_links get_mode says %v", out)
	}
	releases := a.ReleaseCount(t)
	schedule := map[string]any{"siteId": site, "nodeIds": []string{a.Draft.ID},
		"when": map[string]any{"at": apptest.Start.Add(2 * time.Hour).Format(time.RFC3339)}}
	out, res := apptest.CallTool(t, s, "schedule_release", schedule)
	apptest.ToolError(t, "schedule_release after broken_links", out, res, engine.CodeTainted)
	out, res = apptest.CallTool(t, s, "save_draft", map[string]any{"siteId": site, "title": "Steered"})
	apptest.ToolError(t, "save_draft after broken_links", out, res, engine.CodeTainted)
	if got := a.ReleaseCount(t); got != releases {
		t.Fatalf("a tainted session scheduled something: %d releases, was %d", got, releases)
	}
	apptest.OkTool(t, s, "list_releases", map[string]any{"siteId": site})

	fresh := (&apptest.MCPFixture{Base: base}).Connect(t, secret)
	out = apptest.OkTool(t, fresh, "schedule_release", schedule)
	id, _ := releaseIDOf(t, out)
	if r := a.Release(t, id); out["status"] != "scheduled" || r.Approval == nil || r.Approval.Kind != release.ApprovalAuto {
		t.Fatalf("the same call in a clean session: %v / %+v", out, r.Approval)
	}
}

// TestMCPRequestHorizonBindsEveryAgent (issue 36, hole 6; §10.5): an
// agent asks for approval at most 30 days ahead whoever owns its key — an
// Editor's key too, whose owner may schedule a year ahead herself — on
// schedule_release and on reschedule; nothing is written when refused.
func TestMCPRequestHorizonBindsEveryAgent(t *testing.T) {
	a := apptest.New(t)
	base := a.Serve(t, false)
	s, _ := agentSession(a, t, base, policy.ModeManual)
	site := a.Site.ID
	at := func(d time.Duration) map[string]any {
		return map[string]any{"at": apptest.Start.Add(d).Format(time.RFC3339)}
	}
	before := a.ReleaseCount(t)
	out, res := apptest.CallTool(t, s, "schedule_release", map[string]any{"siteId": site, "nodeIds": []string{a.Draft.ID},
		"when": at(releases.RequestHorizon + time.Hour)})
	apptest.ToolError(t, "an Editor's agent 31 days ahead", out, res, releases.CodeTooFarForRequest)
	if got := a.ReleaseCount(t); got != before {
		t.Fatalf("a refused request wrote a release: %d, was %d", got, before)
	}
	out = apptest.OkTool(t, s, "schedule_release", map[string]any{"siteId": site, "nodeIds": []string{a.Draft.ID},
		"when": at(releases.RequestHorizon - time.Hour)})
	id, rev := releaseIDOf(t, out)
	if out["status"] != "approval-pending" {
		t.Fatalf("29 days ahead: %v", out)
	}
	out, res = apptest.CallTool(t, s, "reschedule", map[string]any{"siteId": site, "releaseId": id, "expectedRev": rev,
		"when": at(366 * 24 * time.Hour)})
	apptest.ToolError(t, "an agent's move a year ahead", out, res, releases.CodeTooFarForRequest)
	if r := a.Release(t, id); r.Rev != rev || !r.ExecuteAt.Equal(apptest.Start.Add(releases.RequestHorizon-time.Hour)) {
		t.Fatalf("a refused move changed the release: rev %d, at %v", r.Rev, r.ExecuteAt)
	}
	// The Editor herself may schedule a year ahead: the rule binds agents,
	// not the role that owns them.
	a.ScheduleAt(t, a.Editor, a.OtherDraft(t), "2027-10-01", "09:00")
}

// TestMCPWriteScopeReadsWhatItWrote: a key made with content:write and no
// content:read saves a draft and gets the draft back. Before, the answer's
// read of the node it had just written was refused: the agent was told
// forbidden while the draft stood, uncounted in its run's writes.
func TestMCPWriteScopeReadsWhatItWrote(t *testing.T) {
	a := apptest.New(t)
	base := a.Serve(t, false)
	s, _ := agentSession(a, t, base, policy.ModeEdits, policy.ContentWrite)
	before := nodeCount(a, t)
	out := apptest.OkTool(t, s, "save_draft", map[string]any{"siteId": a.Site.ID, "title": "Written blind"})
	node, _ := out["node"].(map[string]any)
	if nodeCount(a, t) != before+1 || node == nil || node["title"] != "Written blind" {
		t.Fatalf("save_draft with content:write only: %v", out)
	}
}
