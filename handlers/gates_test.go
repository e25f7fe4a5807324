package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/gates"
)

// Gate instants of these tests: tomorrow 09:00 and Friday 18:00 in Istanbul.
var (
	gateFrom  = time.Date(2026, 11, 3, 6, 0, 0, 0, time.UTC)
	gateUntil = time.Date(2026, 11, 6, 15, 0, 0, 0, time.UTC)
)

// nodeRev is a node's working-copy rev now.
func (a *testApp) nodeRev(t *testing.T, id string) int64 {
	t.Helper()
	d, err := a.nodes.Node(context.Background(), a.editor, a.site.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return d.Rev
}

// embargoLive gives the live article an embargo until tomorrow 09:00, as
// the editor (published at once), and returns its lift URL and a valid lift
// form (the route table's tests post it).
func (a *testApp) embargoLive(t *testing.T) (string, url.Values) {
	t.Helper()
	if _, err := a.gates.SetGates(context.Background(), a.editor, gates.GateInput{SiteID: a.site.ID, NodeID: a.live.ID,
		ExpectedRev: a.nodeRev(t, a.live.ID), From: gates.GateAt(gateFrom)}); err != nil {
		t.Fatal(err)
	}
	return "/studio/content/" + a.live.ID + "/gates/lift",
		url.Values{"rev": {fmt.Sprint(a.nodeRev(t, a.live.ID))}, "reason": {"The results are in."}}
}

func gateForm(rev int64, kv ...string) url.Values {
	f := url.Values{"rev": {fmt.Sprint(rev)}}
	for i := 0; i+1 < len(kv); i += 2 {
		f.Set(kv[i], kv[i+1])
	}
	return f
}

func TestGatesCard(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	editor := a.signedIn(t, a.editor)
	token := editor.token()
	draft := "/studio/content/" + a.draft.ID
	live := "/studio/content/" + a.live.ID

	t.Run("NotLive", func(t *testing.T) {
		runScenarios(t, editor, []scenario{
			{Name: "Card", URL: draft, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
				`data-testid="gates-card"`, "Schedule", `data-state="not_live"`, "Not live yet.", "Visible from…", "Hide after…",
				`action="/studio/content/` + a.draft.ID + `/gates"`, `name="csrf_token" value="` + token + `"`,
				`name="from_date" type="date"`, `name="until_time" type="time"`, "Times are in Istanbul (UTC+3) time.",
				"Saved with the working copy", `href="/studio/content/` + a.draft.ID + `/preview"`, ">Preview<"},
				NotExpectedContent: []string{`data-testid="lift-open"`, `data-testid="clear-from"`}},
			{Name: "Embargo", Method: "POST", URL: draft + "/gates",
				Form: withToken(gateForm(a.nodeRev(t, a.draft.ID), "from_date", "2026-11-03", "from_time", "09:00",
					"until_date", "", "until_time", ""), token),
				ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": draft}},
			{Name: "Saved", URL: draft, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
				"Saved. The gates go live with the next publish.", `data-state="not_live_embargo"`,
				"Not live yet: the embargo until 3 November 2026, 09:00 goes live with whatever publishes it.",
				`value="2026-11-03"`, `value="09:00"`, `data-testid="clear-from"`, `id="gates-clear-from"`}},
		})
		if n := a.releaseCount(t); n != 0 {
			t.Fatalf("%d releases for a node that is not live", n)
		}
	})

	t.Run("Refusals", func(t *testing.T) {
		rev := a.nodeRev(t, a.draft.ID)
		before := a.fingerprint(t)
		runScenarios(t, editor, []scenario{
			{Name: "Order", Method: "POST", URL: draft + "/gates",
				Form:           withToken(gateForm(rev, "until_date", "2026-11-02", "until_time", "12:00"), token),
				ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{`data-testid="error-until"`,
					"“Hide after” has to come after “Visible from”.", `value="2026-11-02"`, `value="12:00"`}},
			{Name: "Past", Method: "POST", URL: draft + "/gates",
				Form:           withToken(gateForm(rev, "from_date", "2026-11-02", "from_time", "07:00"), token),
				ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{`data-testid="error-from"`,
					"This time has already passed."}},
			{Name: "HalfFilled", Method: "POST", URL: draft + "/gates",
				Form:           withToken(gateForm(rev, "until_date", "2026-11-04", "until_time", ""), token),
				ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{`data-testid="error-until"`, "Enter a time"}},
			{Name: "Stale", Method: "POST", URL: draft + "/gates",
				Form:           withToken(gateForm(rev-1, "until_date", "2026-11-04", "until_time", "10:00"), token),
				ExpectedStatus: http.StatusConflict, ExpectedContent: []string{`data-testid="gates-alert"`, "This changed somewhere else"}},
		})
		if after := a.fingerprint(t); after != before {
			t.Errorf("refused gate changes changed state:\nbefore %s\nafter  %s", before, after)
		}
	})

	t.Run("LiveByEditor", func(t *testing.T) {
		// Each step reads the node's rev when it runs: every change makes a new version.
		steps := []func() scenario{
			func() scenario {
				return scenario{Name: "Open", URL: live, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
					`data-state="open"`, "Open: visible on the live site.", "Save and publish", "It is live: a gate change is published now"}}
			},
			func() scenario {
				return scenario{Name: "Expiry", Method: "POST", URL: live + "/gates",
					Form:           withToken(gateForm(a.nodeRev(t, a.live.ID), "until_date", "2026-11-06", "until_time", "18:00"), token),
					ExpectedStatus: http.StatusSeeOther}
			},
			func() scenario {
				return scenario{Name: "OpenUntil", URL: live, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
					"Published: the new gates are live.", "Open: visible until 6 November 2026, 18:00."}}
			},
			func() scenario {
				return scenario{Name: "Embargo", Method: "POST", URL: live + "/gates",
					Form:           withToken(gateForm(a.nodeRev(t, a.live.ID), "from_date", "2026-11-03", "from_time", "09:00"), token),
					ExpectedStatus: http.StatusSeeOther}
			},
			func() scenario {
				return scenario{Name: "Embargoed", URL: live, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
					`data-state="embargoed"`, "Embargoed until 3 November 2026, 09:00.", `data-testid="lift-open"`,
					`href="/studio/content/` + a.live.ID + `?confirm=lift#lift-dialog"`, `role="alertdialog"`}}
			},
			func() scenario {
				return scenario{Name: "ClearIsALift", Method: "POST", URL: live + "/gates",
					Form: withToken(gateForm(a.nodeRev(t, a.live.ID), "clear", "from"), token), ExpectedStatus: http.StatusUnprocessableEntity,
					ExpectedContent: []string{"It is embargoed until 3 November 2026, 09:00 on the live site: making it visible earlier is lifting the embargo."}}
			},
			func() scenario {
				return scenario{Name: "LiftConfirmStep", URL: live + "?confirm=lift", ExpectedStatus: http.StatusOK, ExpectedContent: []string{
					`aria-describedby="lift-what" open>`, "Lift the embargo on “Welcome to the Gazette”?",
					"It is embargoed until 3 November 2026, 09:00. Lifting the embargo makes it visible on the live site before its time"}}
			},
			func() scenario {
				return scenario{Name: "LiftWithoutReason", Method: "POST", URL: live + "/gates/lift",
					Form: withToken(gateForm(a.nodeRev(t, a.live.ID), "reason", " "), token), ExpectedStatus: http.StatusUnprocessableEntity,
					ExpectedContent: []string{`data-testid="error-reason"`, "Say why", `aria-describedby="lift-what" open>`}}
			},
			func() scenario {
				return scenario{Name: "Lift", Method: "POST", URL: live + "/gates/lift",
					Form: withToken(gateForm(a.nodeRev(t, a.live.ID), "reason", "The results are in."), token), ExpectedStatus: http.StatusSeeOther}
			},
			func() scenario {
				return scenario{Name: "Lifted", URL: live, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
					"Embargo lifted: it is visible on the live site now.", "Open: visible until 6 November 2026, 18:00."},
					NotExpectedContent: []string{`data-testid="lift-open"`}}
			},
		}
		for _, step := range steps {
			sc := step()
			t.Run(sc.Name, func(t *testing.T) { editor.check(t, sc) })
		}
		var reason string
		if err := a.store.DB().QueryRow(`SELECT json_extract(details, '$.reason') FROM audit WHERE action = 'schedule.embargo.lift'`).Scan(&reason); err != nil || reason != "The results are in." {
			t.Fatalf("lift audit reason %q, %v", reason, err)
		}
		// The release page names what happened.
		var rel string
		if err := a.store.DB().QueryRow(`SELECT release_id FROM audit WHERE action = 'schedule.embargo.lift'`).Scan(&rel); err != nil {
			t.Fatal(err)
		}
		editor.check(t, scenario{Name: "History", URL: "/studio/releases/" + rel, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Elif Editor lifted the embargo", "Elif Editor published it now"}})
	})

	t.Run("OtherEdits", func(t *testing.T) {
		ctx := context.Background()
		d, err := a.nodes.Node(ctx, a.editor, a.site.ID, a.page.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.nodes.EditNode(ctx, a.editor, a.site.ID, d.ID, d.Rev, content.Edit{Title: d.Body.Title, Slug: d.Body.Slug,
			Text: "Demo Gazette is a sample site.\nNew line.", Status: content.StatusPublished}); err != nil {
			t.Fatal(err)
		}
		page := "/studio/content/" + a.page.ID
		rev := a.nodeRev(t, a.page.ID)
		before := a.fingerprint(t)
		res := editor.check(t, scenario{Name: "Refused", Method: "POST", URL: page + "/gates",
			Form:           withToken(gateForm(rev, "until_date", "2026-11-06", "until_time", "18:00"), token),
			ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{
				"“About” has other changes that are not live", `data-testid="include-edits"`, "Everything that would go live",
				"Live now", "Goes live", "New line.", "6 November 2026, 18:00", `name="include_edits" value="yes"`,
				`name="until_date" value="2026-11-06"`, "Include the edits and publish", `data-testid="include-edits-wait"`}})
		if after := a.fingerprint(t); after != before {
			t.Errorf("the refusal changed state:\nbefore %s\nafter  %s", before, after)
		}
		if !strings.Contains(res.Body, `<th scope="row">Hide after</th><td></td><td>6 November 2026, 18:00</td>`) {
			t.Errorf("the diff does not show the new expiry\n%s", excerpt(res.Body))
		}
		editor.check(t, scenario{Name: "Included", Method: "POST", URL: page + "/gates",
			Form:           withToken(gateForm(rev, "until_date", "2026-11-06", "until_time", "18:00", "include_edits", "yes"), token),
			ExpectedStatus: http.StatusSeeOther})
		editor.check(t, scenario{Name: "Live", URL: "/about", ExpectedStatus: http.StatusOK, ExpectedContent: []string{"New line."}})
	})

	t.Run("ContributorAsks", func(t *testing.T) {
		b := newApp(t)
		c := b.signedIn(t, b.contributor)
		tok := c.token()
		live := "/studio/content/" + b.live.ID
		runScenarios(t, c, []scenario{
			{Name: "Card", URL: live, ExpectedStatus: http.StatusOK, ExpectedContent: []string{"Save and send for approval",
				"It is live: a gate change is published as soon as an editor approves it."}},
			{Name: "Ask", Method: "POST", URL: live + "/gates",
				Form:           withToken(gateForm(b.nodeRev(t, b.live.ID), "until_date", "2026-11-06", "until_time", "18:00"), tok),
				ExpectedStatus: http.StatusSeeOther},
		})
		runScenarios(t, c, []scenario{
			{Name: "Waiting", URL: live, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
				"Sent for approval: the new gates are published when an editor approves them.", `data-testid="gates-locked"`,
				"Locked: it is in a release that waits to be published."},
				NotExpectedContent: []string{`data-testid="gates-save"`}},
			{Name: "NoLiftForContributors", Method: "POST", URL: live + "/gates/lift",
				Form: withToken(gateForm(b.nodeRev(t, b.live.ID), "reason", "Early."), tok), ExpectedStatus: http.StatusForbidden},
		})
		// The approval page shows the gate change; approving publishes it.
		list, err := b.releases.Approvals(context.Background(), b.editor, b.site.ID)
		if err != nil || len(list) != 1 {
			t.Fatalf("approvals %v %v", list, err)
		}
		e := b.signedIn(t, b.editor)
		etok := e.token()
		res := e.check(t, scenario{Name: "Review", URL: "/studio/approvals/" + list[0].Request.ID, ExpectedStatus: http.StatusOK})
		if !strings.Contains(res.Body, `<th scope="row">Hide after</th><td></td><td>6 November 2026, 18:00</td>`) {
			t.Errorf("the approval diff does not show the expiry\n%s", excerpt(res.Body))
		}
		e.check(t, scenario{Name: "Approve", Method: "POST", URL: "/studio/approvals/" + list[0].Request.ID + "/approve",
			Form: withToken(url.Values{}, etok), ExpectedStatus: http.StatusSeeOther})
		e.check(t, scenario{Name: "Published", URL: live, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
			"Approved and published: the change is live.", "Open: visible until 6 November 2026, 18:00."}})
	})

	t.Run("Turkish", func(t *testing.T) {
		b := newApp(t)
		b.setLang(t, b.editor, "tr")
		c := b.signedIn(t, b.editor)
		tok := c.token()
		draft, live := "/studio/content/"+b.draft.ID, "/studio/content/"+b.live.ID
		runScenarios(t, c, []scenario{
			{Name: "NotLive", URL: draft, ExpectedStatus: http.StatusOK, ExpectedContent: []string{`<html lang="tr">`,
				"Zamanlama", "Henüz yayında değil.", "Şu tarihten itibaren görünür…", "Şu tarihten sonra gizle…",
				"Saatler İstanbul saatine (UTC+3) göredir.", "Önizle", ">Kaydet<"}},
			{Name: "Embargo", Method: "POST", URL: live + "/gates",
				Form: withToken(gateForm(b.nodeRev(t, b.live.ID), "from_date", "2026-11-03", "from_time", "09:00",
					"until_date", "2026-11-06", "until_time", "18:00"), tok), ExpectedStatus: http.StatusSeeOther},
		})
		runScenarios(t, c, []scenario{
			{Name: "Embargoed", URL: live, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
				"Yayımlandı: yeni zamanlama yayında.", "3 Kasım 2026 09:00 tarihine kadar ambargolu.", "Ambargoyu kaldır…",
				"Kaydet ve yayımla", "Temizle", "İçerik 3 Kasım 2026 09:00 tarihine kadar ambargolu."}},
			{Name: "Order", Method: "POST", URL: live + "/gates",
				Form:           withToken(gateForm(b.nodeRev(t, b.live.ID), "until_date", "2026-11-03", "until_time", "08:00"), tok),
				ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{
					"“Şu tarihten sonra gizle” zamanı, “Şu tarihten itibaren görünür” zamanından sonra olmalı."}},
		})
		b.clock.Set(gateUntil.Add(time.Minute))
		c.check(t, scenario{Name: "Expired", URL: live, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
			`data-state="expired"`, "6 Kasım 2026 18:00 tarihinde sona erdi."}})
		b.setLang(t, b.editor, "en")
		c.check(t, scenario{Name: "ExpiredEnglish", URL: live, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
			"Expired on 6 November 2026, 18:00."}})
	})
}

func TestAPIGates(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	editor, contributor := a.tokenFor(t, a.editor), a.tokenFor(t, a.contributor)
	gates := "/api/sites/" + a.site.ID + "/gates"
	body := func(id string, rev int64, rest string) string {
		return fmt.Sprintf(`{"nodeId": %q, "expectedRev": %d%s}`, id, rev, rest)
	}

	t.Run("Refusals", func(t *testing.T) {
		rev := a.nodeRev(t, a.draft.ID)
		before := a.fingerprint(t)
		for _, c := range []struct {
			name, token, body string
			status            int
			code, field       string
		}{
			{"UnknownField", editor, body(a.draft.ID, rev, `, "apply": "now", "form": "2026-11-03T06:00:00Z"`), 400, "bad_request", "form"},
			{"NoApply", editor, body(a.draft.ID, rev, `, "from": "2026-11-03T06:00:00Z"`), 400, "bad_request", "apply"},
			{"BadApply", editor, body(a.draft.ID, rev, `, "from": "2026-11-03T06:00:00Z", "apply": "later"`), 400, "bad_apply", "apply"},
			{"NothingToChange", editor, body(a.draft.ID, rev, `, "apply": "now"`), 400, "nothing_to_change", ""},
			{"NotAnInstant", editor, body(a.draft.ID, rev, `, "from": "tomorrow", "apply": "now"`), 400, "bad_instant", "from"},
			{"NumberIsNotAnInstant", editor, body(a.draft.ID, rev, `, "until": 5, "apply": "now"`), 400, "bad_instant", "until"},
			{"Order", editor, body(a.draft.ID, rev, `, "from": "2026-11-06T15:00:00Z", "until": "2026-11-03T06:00:00Z", "apply": "now"`), 400, "gate_order", "until"},
			{"Past", editor, body(a.draft.ID, rev, `, "until": "2026-11-01T06:00:00Z", "apply": "now"`), 400, "gate_in_past", "until"},
			{"Stale", editor, body(a.draft.ID, rev+1, `, "from": "2026-11-03T06:00:00Z", "apply": "now"`), 409, "stale", ""},
			{"NoNode", editor, body("ent_nothing", 1, `, "from": "2026-11-03T06:00:00Z", "apply": "now"`), 404, "not_found", ""},
		} {
			status, out := apiCall(t, a, "POST", gates, c.token, c.body)
			wantError(t, c.name, status, out, c.status, c.code, c.field)
		}
		lift := gates + "/" + a.live.ID + "/lift"
		status, out := apiCall(t, a, "POST", lift, contributor, `{"expectedRev": 1, "reason": "Early."}`)
		wantError(t, "ContributorLift", status, out, 403, "forbidden", "")
		status, out = apiCall(t, a, "POST", lift, editor, fmt.Sprintf(`{"expectedRev": %d, "reason": "Early."}`, a.nodeRev(t, a.live.ID)))
		wantError(t, "NothingToLift", status, out, 422, "not_embargoed", "")
		if after := a.fingerprint(t); after != before {
			t.Errorf("refused calls changed state:\nbefore %s\nafter  %s", before, after)
		}
	})

	t.Run("NotLiveSaves", func(t *testing.T) {
		status, out := apiCall(t, a, "POST", gates, contributor,
			body(a.draft.ID, a.nodeRev(t, a.draft.ID), `, "from": "2026-11-03T09:00:00+03:00", "until": null, "apply": "now"`))
		node, _ := out["node"].(map[string]any)
		av, _ := node["availability"].(map[string]any)
		if status != 200 || out["status"] != "saved" || out["release"] != nil || av["from"] != "2026-11-03T06:00:00Z" {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("LiveNowPublishes", func(t *testing.T) {
		status, out := apiCall(t, a, "POST", gates, editor,
			body(a.live.ID, a.nodeRev(t, a.live.ID), `, "from": "2026-11-03T06:00:00Z", "apply": "now"`))
		rel, _ := out["release"].(map[string]any)
		if status != 200 || out["status"] != "published" || rel["state"] != "published" {
			t.Fatalf("%d %v", status, out)
		}
		// Clearing it is a lift.
		status, out = apiCall(t, a, "POST", gates, editor,
			body(a.live.ID, a.nodeRev(t, a.live.ID), `, "from": null, "apply": "with-next-publish"`))
		wantError(t, "ClearIsALift", status, out, 400, "lift_required", "from")
		lift := gates + "/" + a.live.ID + "/lift"
		status, out = apiCall(t, a, "POST", lift, editor, fmt.Sprintf(`{"expectedRev": %d, "reason": ""}`, a.nodeRev(t, a.live.ID)))
		wantError(t, "NoReason", status, out, 400, "reason_required", "reason")
		status, out = apiCall(t, a, "POST", lift, editor, fmt.Sprintf(`{"expectedRev": %d, "reason": "The results are in."}`, a.nodeRev(t, a.live.ID)))
		if status != 200 || out["status"] != "published" {
			t.Fatalf("lift: %d %v", status, out)
		}
	})

	t.Run("ContributorWaits", func(t *testing.T) {
		status, out := apiCall(t, a, "POST", gates, contributor,
			body(a.page.ID, a.nodeRev(t, a.page.ID), `, "until": "2026-11-06T15:00:00Z", "apply": "now"`))
		rel, _ := out["release"].(map[string]any)
		when, _ := rel["when"].(map[string]any)
		if status != 200 || out["status"] != "approval-pending" || rel["state"] != "awaiting_approval" || when["kind"] != "on-approval" {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("OtherEdits", func(t *testing.T) {
		b := newApp(t)
		tok := b.tokenFor(t, b.editor)
		ctx := context.Background()
		d, _ := b.nodes.Node(ctx, b.editor, b.site.ID, b.live.ID)
		if _, err := b.nodes.EditNode(ctx, b.editor, b.site.ID, d.ID, d.Rev, content.Edit{Title: "Welcome!", Slug: d.Body.Slug,
			Text: d.Body.Text, Status: content.StatusPublished}); err != nil {
			t.Fatal(err)
		}
		in := body(b.live.ID, d.Rev+1, `, "until": "2026-11-06T15:00:00Z", "apply": "now"`)
		status, out := apiCall(t, b, "POST", "/api/sites/"+b.site.ID+"/gates", tok, in)
		wantError(t, "OtherEdits", status, out, 422, "other_edits", "")
		status, out = apiCall(t, b, "POST", "/api/sites/"+b.site.ID+"/gates", tok,
			body(b.live.ID, d.Rev+1, `, "until": "2026-11-06T15:00:00Z", "apply": "now", "includeEdits": true`))
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
	a := newApp(t)
	editor := a.tokenFor(t, a.editor)
	a.embargoLive(t)
	lift := "/api/sites/" + a.site.ID + "/gates/" + a.live.ID + "/lift"
	body := func(from string) string {
		return fmt.Sprintf(`{"expectedRev": %d, "reason": "Moved up.", "from": %s}`, a.nodeRev(t, a.live.ID), from)
	}
	before := a.fingerprint(t)
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
		status, out := apiCall(t, a, "POST", lift, editor, body(c.from))
		wantError(t, c.name, status, out, c.status, c.code, c.field)
	}
	if after := a.fingerprint(t); after != before {
		t.Errorf("refused lifts changed state:\nbefore %s\nafter  %s", before, after)
	}
	status, out := apiCall(t, a, "POST", lift, editor, body(`"2026-11-02T18:00:00+03:00"`))
	node, _ := out["node"].(map[string]any)
	av, _ := node["availability"].(map[string]any)
	if status != 200 || out["status"] != "published" || av["from"] != "2026-11-02T15:00:00Z" {
		t.Fatalf("moved earlier: %d %v", status, out)
	}
	live, err := a.nodes.LiveNodes(context.Background(), a.site)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range live {
		if n.ID == a.live.ID {
			if from, _ := n.Body.Gates(); from == nil || !from.Equal(time.Date(2026, 11, 2, 15, 0, 0, 0, time.UTC)) {
				t.Fatalf("live from %v", from)
			}
		}
	}
	// null lifts now.
	status, out = apiCall(t, a, "POST", lift, editor, body(`null`))
	node, _ = out["node"].(map[string]any)
	if status != 200 || out["status"] != "published" || node["availability"] != nil {
		t.Fatalf("lifted now: %d %v", status, out)
	}
}
