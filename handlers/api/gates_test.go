package api_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"studio/engine/content"
	"studio/handlers/internal/apptest"
)

func TestAPIGates(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	editor, contributor := a.TokenFor(t, a.Editor), a.TokenFor(t, a.Contributor)
	gates := "/api/sites/" + a.Site.ID + "/gates"
	body := func(id string, rev int64, rest string) string {
		return fmt.Sprintf(`{"nodeId": %q, "expectedRev": %d%s}`, id, rev, rest)
	}

	t.Run("Refusals", func(t *testing.T) {
		rev := a.NodeRev(t, a.Draft.ID)
		before := a.Fingerprint(t)
		for _, c := range []struct {
			name, token, body string
			status            int
			code, field       string
		}{
			{"UnknownField", editor, body(a.Draft.ID, rev, `, "apply": "now", "form": "2026-11-03T06:00:00Z"`), 400, "bad_request", "form"},
			{"NoApply", editor, body(a.Draft.ID, rev, `, "from": "2026-11-03T06:00:00Z"`), 400, "bad_request", "apply"},
			{"BadApply", editor, body(a.Draft.ID, rev, `, "from": "2026-11-03T06:00:00Z", "apply": "later"`), 400, "bad_apply", "apply"},
			{"NothingToChange", editor, body(a.Draft.ID, rev, `, "apply": "now"`), 400, "nothing_to_change", ""},
			{"NotAnInstant", editor, body(a.Draft.ID, rev, `, "from": "tomorrow", "apply": "now"`), 400, "bad_instant", "from"},
			{"NumberIsNotAnInstant", editor, body(a.Draft.ID, rev, `, "until": 5, "apply": "now"`), 400, "bad_instant", "until"},
			{"Order", editor, body(a.Draft.ID, rev, `, "from": "2026-11-06T15:00:00Z", "until": "2026-11-03T06:00:00Z", "apply": "now"`), 400, "gate_order", "until"},
			{"Past", editor, body(a.Draft.ID, rev, `, "until": "2026-11-01T06:00:00Z", "apply": "now"`), 400, "gate_in_past", "until"},
			{"Stale", editor, body(a.Draft.ID, rev+1, `, "from": "2026-11-03T06:00:00Z", "apply": "now"`), 409, "stale", ""},
			{"NoNode", editor, body("ent_nothing", 1, `, "from": "2026-11-03T06:00:00Z", "apply": "now"`), 404, "not_found", ""},
		} {
			status, out := apptest.APICall(t, a, "POST", gates, c.token, c.body)
			apptest.WantError(t, c.name, status, out, c.status, c.code, c.field)
		}
		lift := gates + "/" + a.Live.ID + "/lift"
		status, out := apptest.APICall(t, a, "POST", lift, contributor, `{"expectedRev": 1, "reason": "Early."}`)
		apptest.WantError(t, "ContributorLift", status, out, 403, "forbidden", "")
		status, out = apptest.APICall(t, a, "POST", lift, editor, fmt.Sprintf(`{"expectedRev": %d, "reason": "Early."}`, a.NodeRev(t, a.Live.ID)))
		apptest.WantError(t, "NothingToLift", status, out, 422, "not_embargoed", "")
		if after := a.Fingerprint(t); after != before {
			t.Errorf("refused calls changed state:\nbefore %s\nafter  %s", before, after)
		}
	})

	t.Run("NotLiveSaves", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "POST", gates, contributor,
			body(a.Draft.ID, a.NodeRev(t, a.Draft.ID), `, "from": "2026-11-03T09:00:00+03:00", "until": null, "apply": "now"`))
		node, _ := out["node"].(map[string]any)
		av, _ := node["availability"].(map[string]any)
		if status != 200 || out["status"] != "saved" || out["release"] != nil || av["from"] != "2026-11-03T06:00:00Z" {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("LiveNowPublishes", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "POST", gates, editor,
			body(a.Live.ID, a.NodeRev(t, a.Live.ID), `, "from": "2026-11-03T06:00:00Z", "apply": "now"`))
		rel, _ := out["release"].(map[string]any)
		if status != 200 || out["status"] != "published" || rel["state"] != "published" {
			t.Fatalf("%d %v", status, out)
		}
		// Clearing it is a lift.
		status, out = apptest.APICall(t, a, "POST", gates, editor,
			body(a.Live.ID, a.NodeRev(t, a.Live.ID), `, "from": null, "apply": "with-next-publish"`))
		apptest.WantError(t, "ClearIsALift", status, out, 400, "lift_required", "from")
		lift := gates + "/" + a.Live.ID + "/lift"
		status, out = apptest.APICall(t, a, "POST", lift, editor, fmt.Sprintf(`{"expectedRev": %d, "reason": ""}`, a.NodeRev(t, a.Live.ID)))
		apptest.WantError(t, "NoReason", status, out, 400, "reason_required", "reason")
		status, out = apptest.APICall(t, a, "POST", lift, editor, fmt.Sprintf(`{"expectedRev": %d, "reason": "The results are in."}`, a.NodeRev(t, a.Live.ID)))
		if status != 200 || out["status"] != "published" {
			t.Fatalf("lift: %d %v", status, out)
		}
	})

	t.Run("ContributorWaits", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "POST", gates, contributor,
			body(a.Page.ID, a.NodeRev(t, a.Page.ID), `, "until": "2026-11-06T15:00:00Z", "apply": "now"`))
		rel, _ := out["release"].(map[string]any)
		when, _ := rel["when"].(map[string]any)
		if status != 200 || out["status"] != "approval-pending" || rel["state"] != "awaiting_approval" || when["kind"] != "on-approval" {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("OtherEdits", func(t *testing.T) {
		b := apptest.New(t)
		tok := b.TokenFor(t, b.Editor)
		ctx := context.Background()
		d, _ := b.Nodes.Node(ctx, b.Editor, b.Site.ID, b.Live.ID)
		if _, err := b.Nodes.EditNode(ctx, b.Editor, b.Site.ID, d.ID, d.Rev, content.Edit{Title: "Welcome!", Slug: d.Body.Slug,
			Text: d.Body.Text, Status: content.StatusPublished}); err != nil {
			t.Fatal(err)
		}
		in := body(b.Live.ID, d.Rev+1, `, "until": "2026-11-06T15:00:00Z", "apply": "now"`)
		status, out := apptest.APICall(t, b, "POST", "/api/sites/"+b.Site.ID+"/gates", tok, in)
		apptest.WantError(t, "OtherEdits", status, out, 422, "other_edits", "")
		status, out = apptest.APICall(t, b, "POST", "/api/sites/"+b.Site.ID+"/gates", tok,
			body(b.Live.ID, d.Rev+1, `, "until": "2026-11-06T15:00:00Z", "apply": "now", "includeEdits": true`))
		if status != 200 || out["status"] != "published" {
			t.Fatalf("%d %v", status, out)
		}
	})
}

// TestAPILiftEmbargoEarlier: POST …/gates/{nodeId}/lift takes §12
// lift_embargo's from: an instant moves the embargo earlier instead of
// removing it; a time that is not earlier, has passed or is no instant is
// refused and changes nothing.
func TestAPILiftEmbargoEarlier(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	editor := a.TokenFor(t, a.Editor)
	a.EmbargoLive(t)
	lift := "/api/sites/" + a.Site.ID + "/gates/" + a.Live.ID + "/lift"
	body := func(from string) string {
		return fmt.Sprintf(`{"expectedRev": %d, "reason": "Moved up.", "from": %s}`, a.NodeRev(t, a.Live.ID), from)
	}
	before := a.Fingerprint(t)
	for _, c := range []struct {
		name, from  string
		status      int
		code, field string
	}{
		{"Same", `"2026-11-03T06:00:00Z"`, 400, "lift_not_earlier", "from"},
		{"Later", `"2026-11-04T06:00:00Z"`, 400, "lift_not_earlier", "from"},
		{"Passed", `"2026-11-01T06:00:00Z"`, 400, "gate_in_past", "from"},
		{"NotAnInstant", `"this evening"`, 400, "bad_instant", "from"},
	} {
		status, out := apptest.APICall(t, a, "POST", lift, editor, body(c.from))
		apptest.WantError(t, c.name, status, out, c.status, c.code, c.field)
	}
	if after := a.Fingerprint(t); after != before {
		t.Errorf("refused lifts changed state:\nbefore %s\nafter  %s", before, after)
	}
	status, out := apptest.APICall(t, a, "POST", lift, editor, body(`"2026-11-02T18:00:00+03:00"`))
	node, _ := out["node"].(map[string]any)
	av, _ := node["availability"].(map[string]any)
	if status != 200 || out["status"] != "published" || av["from"] != "2026-11-02T15:00:00Z" {
		t.Fatalf("moved earlier: %d %v", status, out)
	}
	live, err := a.Nodes.LiveNodes(context.Background(), a.Site)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range live {
		if n.ID == a.Live.ID {
			if from, _ := n.Body.Gates(); from == nil || !from.Equal(time.Date(2026, 11, 2, 15, 0, 0, 0, time.UTC)) {
				t.Fatalf("live from %v", from)
			}
		}
	}
	// null lifts now.
	status, out = apptest.APICall(t, a, "POST", lift, editor, body(`null`))
	node, _ = out["node"].(map[string]any)
	if status != 200 || out["status"] != "published" || node["availability"] != nil {
		t.Fatalf("lifted now: %d %v", status, out)
	}
}
