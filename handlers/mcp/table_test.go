package mcp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/releases"
	"studio/handlers/internal/apptest"
)

// What a write tool's call came to, as an agent sees it.
const (
	cellOK      = "ok"      // it went out: no person needed
	cellWaits   = "waits"   // approval-pending at once, or waits_for_person
	cellMode    = "mode"    // mode_refused
	cellTainted = "tainted" // tainted: the run read visitor text
)

// writeCells is §12's table for the write tools (and save_draft), written
// out by hand from the RFC, one row per tool: plan, manual, edits, auto
// outside a run, then the same modes inside a run tainted by broken_links.
// Each call is made on content set up so that its default variant
// applies: schedule_release and reschedule on a low-risk release within
// the auto window, cancel_schedule on a release that only publishes,
// set_embargo on a live visible article, lift_embargo on a live embargo.
var writeCells = map[string][8]string{
	//                    plan      manual     edits      auto       | tainted: plan  manual       edits        auto
	"propose_release":    {cellMode, cellOK, cellOK, cellOK /*    */, cellTainted, cellTainted, cellTainted, cellTainted},
	"schedule_release":   {cellMode, cellWaits, cellWaits, cellOK, cellTainted, cellTainted, cellTainted, cellTainted},
	"reschedule":         {cellMode, cellWaits, cellWaits, cellOK, cellMode, cellWaits, cellWaits, cellWaits},
	"cancel_schedule":    {cellMode, cellWaits, cellOK, cellOK, cellMode, cellWaits, cellOK, cellOK},
	"set_embargo":        {cellMode, cellWaits, cellOK, cellOK, cellMode, cellWaits, cellOK, cellOK},
	"lift_embargo":       {cellMode, cellWaits, cellWaits, cellWaits, cellTainted, cellTainted, cellTainted, cellTainted},
	"schedule_unpublish": {cellMode, cellWaits, cellWaits, cellWaits, cellTainted, cellTainted, cellTainted, cellTainted},
	"save_draft":         {cellMode, cellOK, cellOK, cellOK, cellTainted, cellTainted, cellTainted, cellTainted},
}

// agentScopes are every scope the write tools need, an Editor's.
var agentScopes = []policy.Scope{policy.ContentRead, policy.ContentWrite, policy.SchedulesRead, policy.SchedulesWrite,
	policy.ReleasesPublish, policy.AnalyticsRead}

// TestMCPTableEveryCell calls every write tool in every mode, through a
// minted key outside a run and through an agent task's key inside a run
// that has read broken_links, over real HTTP with the go-sdk client, and
// compares what each call came to with writeCells.
func TestMCPTableEveryCell(t *testing.T) {
	t.Parallel()
	for i, mode := range []policy.Mode{policy.ModePlan, policy.ModeManual, policy.ModeEdits, policy.ModeAuto} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			a := apptest.New(t)
			base := a.Serve(t, false)
			key, _ := agentSession(a, t, base, mode, agentScopes...)
			run := taintedRun(a, t, base, mode)
			for tool, cells := range writeCells {
				if got := cellOf(a, t, key, tool, "k"); got != cells[i] {
					t.Errorf("%s in %s: %s, RFC says %s", tool, mode, got, cells[i])
				}
				if got := cellOf(a, t, run, tool, "r"); got != cells[4+i] {
					t.Errorf("%s in a tainted %s run: %s, RFC says %s", tool, mode, got, cells[4+i])
				}
			}
		})
	}
}

// taintedRun is an agent task of modeCap mode, its window opened by a
// person, its run begun by its key, and tainted by broken_links.
func taintedRun(a *apptest.App, t *testing.T, base string, mode policy.Mode) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	no := false
	task, err := a.Automations.Create(ctx, a.Editor, a.Site.ID, automations.Input{Name: "Tainted " + string(mode), Preset: "daily",
		Start: "2026-11-03T09:00", Task: &automations.TaskInput{Instructions: "Work.", ModeCap: mode, ReadsUntrustedText: &no,
			WindowMinutes: 60, Scopes: agentScopes}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.Automations.RunNow(ctx, a.Editor, a.Site.ID, task.ID); err != nil {
		t.Fatal(err)
	}
	s := (&apptest.MCPFixture{Base: base}).Connect(t, task.NewKey.Secret)
	apptest.OkTool(t, s, "begin_run", map[string]any{"automationId": task.ID})
	apptest.OkTool(t, s, "broken_links", map[string]any{"siteId": a.Site.ID})
	return s
}

// cellOf sets up what tool needs (nodes named apart by tag), calls it
// through s and says what the call came to.
func cellOf(a *apptest.App, t *testing.T, s *sdk.ClientSession, tool, tag string) string {
	t.Helper()
	ctx := context.Background()
	site := a.Site.ID
	n := nodeCount(a, t)
	slug := fmt.Sprintf("%s-%s-%d", strings.ReplaceAll(tool, "_", "-"), tag, n)
	draft := func() content.Node {
		return a.CreateNode(t, release.KindContentEntry, content.Body{Title: "Draft " + slug, Slug: slug, Lang: "en",
			Status: content.StatusDraft, Text: "Words."})
	}
	live := func(from *time.Time) releases.NodeDetail {
		now := a.Clock.Now()
		body := content.Body{Title: "Live " + slug, Slug: slug, Lang: "en", Status: content.StatusPublished, PublishedAt: &now,
			Text: "Words."}
		if from != nil {
			body.Availability = &content.Availability{From: from}
		}
		node := a.CreateNode(t, release.KindContentEntry, body)
		if _, err := a.Nodes.Publish(ctx, a.Editor, site); err != nil {
			t.Fatal(err)
		}
		d, err := a.Nodes.Node(ctx, a.Editor, site, node.ID)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	scheduled := func() releases.ReleaseRow {
		r := a.ScheduleAt(t, a.Editor, draft(), "2026-11-02", "12:00") // the Editor's, approved
		return a.Release(t, r.ID)
	}
	inWindow := map[string]any{"at": apptest.Start.Add(2 * time.Hour).Format(time.RFC3339)}
	var args map[string]any
	switch tool {
	case "propose_release":
		args = map[string]any{"nodeIds": []string{draft().ID}}
	case "schedule_release":
		args = map[string]any{"nodeIds": []string{draft().ID}, "when": inWindow}
	case "reschedule":
		r := scheduled()
		args = map[string]any{"releaseId": r.ID, "expectedRev": r.Rev, "when": inWindow}
	case "cancel_schedule":
		r := scheduled()
		args = map[string]any{"releaseId": r.ID, "expectedRev": r.Rev}
	case "set_embargo":
		d := live(nil)
		args = map[string]any{"nodeId": d.ID, "expectedRev": d.Rev, "from": apptest.Start.Add(3 * time.Hour).Format(time.RFC3339)}
	case "lift_embargo":
		from := apptest.Start.Add(5 * time.Hour)
		d := live(&from)
		args = map[string]any{"nodeId": d.ID, "expectedRev": d.Rev, "reason": "The embargo was lifted by the source."}
	case "schedule_unpublish":
		d := live(nil)
		args = map[string]any{"nodeId": d.ID, "expectedRev": d.Rev, "at": apptest.Start.Add(5 * time.Hour).Format(time.RFC3339)}
	case "save_draft":
		args = map[string]any{"title": "Note " + slug}
	default:
		t.Fatalf("no setup for %s", tool)
	}
	args["siteId"] = site
	out, res := apptest.CallTool(t, s, tool, args)
	if !res.IsError {
		if out["status"] == "approval-pending" {
			return cellWaits
		}
		return cellOK
	}
	e, _ := out["error"].(map[string]any)
	switch e["code"] {
	case releases.CodeWaitsForPerson:
		return cellWaits
	case engine.CodeModeRefused:
		return cellMode
	case engine.CodeTainted:
		return cellTainted
	}
	t.Fatalf("%s: unexpected refusal %v", tool, out)
	return ""
}
