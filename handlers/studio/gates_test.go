package studio_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"studio/engine/content"
	"studio/handlers/internal/apptest"
)

func TestGatesCard(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	editor := a.SignedIn(t, a.Editor)
	token := editor.Token()
	draft := "/studio/content/" + a.Draft.ID
	live := "/studio/content/" + a.Live.ID

	t.Run("NotLive", func(t *testing.T) {
		apptest.RunScenarios(t, editor, []apptest.Scenario{
			{Name: "Card", URL: draft, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
				`data-testid="gates-card"`, "Schedule", `data-state="not_live"`, "Not live yet.", "Visible from…", "Hide after…",
				`action="/studio/content/` + a.Draft.ID + `/gates"`, `name="csrf_token" value="` + token + `"`,
				`name="from_date" type="date"`, `name="until_time" type="time"`, "Times are in Istanbul (UTC+3) time.",
				"Saved with the working copy", `href="/studio/content/` + a.Draft.ID + `/preview"`, ">Preview<"},
				NotExpectedContent: []string{`data-testid="lift-open"`, `data-testid="clear-from"`}},
			{Name: "Embargo", Method: "POST", URL: draft + "/gates",
				Form: apptest.WithToken(apptest.GateForm(a.NodeRev(t, a.Draft.ID), "from_date", "2026-11-03", "from_time", "09:00",
					"until_date", "", "until_time", ""), token),
				ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": draft}},
			{Name: "Saved", URL: draft, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
				"Saved. The gates go live with the next publish.", `data-state="not_live_embargo"`,
				"Not live yet: the embargo until 3 November 2026, 09:00 goes live with whatever publishes it.",
				`value="2026-11-03"`, `value="09:00"`, `data-testid="clear-from"`, `id="gates-clear-from"`}},
		})
		if n := a.ReleaseCount(t); n != 0 {
			t.Fatalf("%d releases for a node that is not live", n)
		}
	})

	t.Run("Refusals", func(t *testing.T) {
		rev := a.NodeRev(t, a.Draft.ID)
		before := a.Fingerprint(t)
		apptest.RunScenarios(t, editor, []apptest.Scenario{
			{Name: "Order", Method: "POST", URL: draft + "/gates",
				Form:           apptest.WithToken(apptest.GateForm(rev, "until_date", "2026-11-02", "until_time", "12:00"), token),
				ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{`data-testid="error-until"`,
					"“Hide after” has to come after “Visible from”.", `value="2026-11-02"`, `value="12:00"`}},
			{Name: "Past", Method: "POST", URL: draft + "/gates",
				Form:           apptest.WithToken(apptest.GateForm(rev, "from_date", "2026-11-02", "from_time", "07:00"), token),
				ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{`data-testid="error-from"`,
					"This time has already passed."}},
			{Name: "HalfFilled", Method: "POST", URL: draft + "/gates",
				Form:           apptest.WithToken(apptest.GateForm(rev, "until_date", "2026-11-04", "until_time", ""), token),
				ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{`data-testid="error-until"`, "Enter a time"}},
			{Name: "Stale", Method: "POST", URL: draft + "/gates",
				Form:           apptest.WithToken(apptest.GateForm(rev-1, "until_date", "2026-11-04", "until_time", "10:00"), token),
				ExpectedStatus: http.StatusConflict, ExpectedContent: []string{`data-testid="gates-alert"`, "This changed somewhere else"}},
		})
		if after := a.Fingerprint(t); after != before {
			t.Errorf("refused gate changes changed state:\nbefore %s\nafter  %s", before, after)
		}
	})

	t.Run("LiveByEditor", func(t *testing.T) {
		// Each step reads the node's rev when it runs: every change makes a new version.
		steps := []func() apptest.Scenario{
			func() apptest.Scenario {
				return apptest.Scenario{Name: "Open", URL: live, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
					`data-state="open"`, "Open: visible on the live site.", "Save and publish", "It is live: a gate change is published now"}}
			},
			func() apptest.Scenario {
				return apptest.Scenario{Name: "Expiry", Method: "POST", URL: live + "/gates",
					Form:           apptest.WithToken(apptest.GateForm(a.NodeRev(t, a.Live.ID), "until_date", "2026-11-06", "until_time", "18:00"), token),
					ExpectedStatus: http.StatusSeeOther}
			},
			func() apptest.Scenario {
				return apptest.Scenario{Name: "OpenUntil", URL: live, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
					"Published: the new gates are live.", "Open: visible until 6 November 2026, 18:00."}}
			},
			func() apptest.Scenario {
				return apptest.Scenario{Name: "Embargo", Method: "POST", URL: live + "/gates",
					Form:           apptest.WithToken(apptest.GateForm(a.NodeRev(t, a.Live.ID), "from_date", "2026-11-03", "from_time", "09:00"), token),
					ExpectedStatus: http.StatusSeeOther}
			},
			func() apptest.Scenario {
				return apptest.Scenario{Name: "Embargoed", URL: live, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
					`data-state="embargoed"`, "Embargoed until 3 November 2026, 09:00.", `data-testid="lift-open"`,
					`href="/studio/content/` + a.Live.ID + `?confirm=lift#lift-dialog"`, `role="alertdialog"`}}
			},
			func() apptest.Scenario {
				return apptest.Scenario{Name: "ClearIsALift", Method: "POST", URL: live + "/gates",
					Form: apptest.WithToken(apptest.GateForm(a.NodeRev(t, a.Live.ID), "clear", "from"), token), ExpectedStatus: http.StatusUnprocessableEntity,
					ExpectedContent: []string{"It is embargoed until 3 November 2026, 09:00 on the live site: making it visible earlier is lifting the embargo."}}
			},
			func() apptest.Scenario {
				return apptest.Scenario{Name: "LiftConfirmStep", URL: live + "?confirm=lift", ExpectedStatus: http.StatusOK, ExpectedContent: []string{
					`aria-describedby="lift-what" open>`, "Lift the embargo on “Welcome to the Gazette”?",
					"It is embargoed until 3 November 2026, 09:00. Lifting the embargo makes it visible on the live site before its time"}}
			},
			func() apptest.Scenario {
				return apptest.Scenario{Name: "LiftWithoutReason", Method: "POST", URL: live + "/gates/lift",
					Form: apptest.WithToken(apptest.GateForm(a.NodeRev(t, a.Live.ID), "reason", " "), token), ExpectedStatus: http.StatusUnprocessableEntity,
					ExpectedContent: []string{`data-testid="error-reason"`, "Say why", `aria-describedby="lift-what" open>`}}
			},
			func() apptest.Scenario {
				return apptest.Scenario{Name: "Lift", Method: "POST", URL: live + "/gates/lift",
					Form: apptest.WithToken(apptest.GateForm(a.NodeRev(t, a.Live.ID), "reason", "The results are in."), token), ExpectedStatus: http.StatusSeeOther}
			},
			func() apptest.Scenario {
				return apptest.Scenario{Name: "Lifted", URL: live, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
					"Embargo lifted: it is visible on the live site now.", "Open: visible until 6 November 2026, 18:00."},
					NotExpectedContent: []string{`data-testid="lift-open"`}}
			},
		}
		for _, step := range steps {
			sc := step()
			t.Run(sc.Name, func(t *testing.T) { editor.Check(t, sc) })
		}
		var reason string
		if err := a.Store.DB().QueryRow(`SELECT json_extract(details, '$.reason') FROM audit WHERE action = 'schedule.embargo.lift'`).Scan(&reason); err != nil || reason != "The results are in." {
			t.Fatalf("lift audit reason %q, %v", reason, err)
		}
		// The release page names what happened.
		var rel string
		if err := a.Store.DB().QueryRow(`SELECT release_id FROM audit WHERE action = 'schedule.embargo.lift'`).Scan(&rel); err != nil {
			t.Fatal(err)
		}
		editor.Check(t, apptest.Scenario{Name: "History", URL: "/studio/releases/" + rel, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Elif Editor lifted the embargo", "Elif Editor published it now"}})
	})

	t.Run("OtherEdits", func(t *testing.T) {
		ctx := context.Background()
		d, err := a.Nodes.Node(ctx, a.Editor, a.Site.ID, a.Page.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Nodes.EditNode(ctx, a.Editor, a.Site.ID, d.ID, d.Rev, content.Edit{Title: d.Body.Title, Slug: d.Body.Slug,
			Text: "Demo Gazette is a sample site.\nNew line.", Status: content.StatusPublished}); err != nil {
			t.Fatal(err)
		}
		page := "/studio/content/" + a.Page.ID
		rev := a.NodeRev(t, a.Page.ID)
		before := a.Fingerprint(t)
		res := editor.Check(t, apptest.Scenario{Name: "Refused", Method: "POST", URL: page + "/gates",
			Form:           apptest.WithToken(apptest.GateForm(rev, "until_date", "2026-11-06", "until_time", "18:00"), token),
			ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{
				"“About” has other changes that are not live", `data-testid="include-edits"`, "Everything that would go live",
				"Live now", "Goes live", "New line.", "6 November 2026, 18:00", `name="include_edits" value="yes"`,
				`name="until_date" value="2026-11-06"`, "Include the edits and publish", `data-testid="include-edits-wait"`}})
		if after := a.Fingerprint(t); after != before {
			t.Errorf("the refusal changed state:\nbefore %s\nafter  %s", before, after)
		}
		if !strings.Contains(res.Body, `<th scope="row">Hide after</th><td></td><td>6 November 2026, 18:00</td>`) {
			t.Errorf("the diff does not show the new expiry\n%s", apptest.Excerpt(res.Body))
		}
		editor.Check(t, apptest.Scenario{Name: "Included", Method: "POST", URL: page + "/gates",
			Form:           apptest.WithToken(apptest.GateForm(rev, "until_date", "2026-11-06", "until_time", "18:00", "include_edits", "yes"), token),
			ExpectedStatus: http.StatusSeeOther})
		editor.Check(t, apptest.Scenario{Name: "Live", URL: "/about", ExpectedStatus: http.StatusOK, ExpectedContent: []string{"New line."}})
	})

	t.Run("ContributorAsks", func(t *testing.T) {
		b := apptest.New(t)
		c := b.SignedIn(t, b.Contributor)
		tok := c.Token()
		live := "/studio/content/" + b.Live.ID
		apptest.RunScenarios(t, c, []apptest.Scenario{
			{Name: "Card", URL: live, ExpectedStatus: http.StatusOK, ExpectedContent: []string{"Save and send for approval",
				"It is live: a gate change is published as soon as an editor approves it."}},
			{Name: "Ask", Method: "POST", URL: live + "/gates",
				Form:           apptest.WithToken(apptest.GateForm(b.NodeRev(t, b.Live.ID), "until_date", "2026-11-06", "until_time", "18:00"), tok),
				ExpectedStatus: http.StatusSeeOther},
		})
		apptest.RunScenarios(t, c, []apptest.Scenario{
			{Name: "Waiting", URL: live, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
				"Sent for approval: the new gates are published when an editor approves them.", `data-testid="gates-locked"`,
				"Locked: it is in a release that waits to be published."},
				NotExpectedContent: []string{`data-testid="gates-save"`}},
			{Name: "NoLiftForContributors", Method: "POST", URL: live + "/gates/lift",
				Form: apptest.WithToken(apptest.GateForm(b.NodeRev(t, b.Live.ID), "reason", "Early."), tok), ExpectedStatus: http.StatusForbidden},
		})
		// The approval page shows the gate change; approving publishes it.
		list, err := b.Releases.Approvals(context.Background(), b.Editor, b.Site.ID)
		if err != nil || len(list) != 1 {
			t.Fatalf("approvals %v %v", list, err)
		}
		e := b.SignedIn(t, b.Editor)
		etok := e.Token()
		res := e.Check(t, apptest.Scenario{Name: "Review", URL: "/studio/approvals/" + list[0].Request.ID, ExpectedStatus: http.StatusOK})
		if !strings.Contains(res.Body, `<th scope="row">Hide after</th><td></td><td>6 November 2026, 18:00</td>`) {
			t.Errorf("the approval diff does not show the expiry\n%s", apptest.Excerpt(res.Body))
		}
		e.Check(t, apptest.Scenario{Name: "Approve", Method: "POST", URL: "/studio/approvals/" + list[0].Request.ID + "/approve",
			Form: apptest.WithToken(url.Values{}, etok), ExpectedStatus: http.StatusSeeOther})
		e.Check(t, apptest.Scenario{Name: "Published", URL: live, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
			"Approved and published: the change is live.", "Open: visible until 6 November 2026, 18:00."}})
	})

	t.Run("Turkish", func(t *testing.T) {
		b := apptest.New(t)
		b.SetLang(t, b.Editor, "tr")
		c := b.SignedIn(t, b.Editor)
		tok := c.Token()
		draft, live := "/studio/content/"+b.Draft.ID, "/studio/content/"+b.Live.ID
		apptest.RunScenarios(t, c, []apptest.Scenario{
			{Name: "NotLive", URL: draft, ExpectedStatus: http.StatusOK, ExpectedContent: []string{`<html lang="tr">`,
				"Zamanlama", "Henüz yayında değil.", "Şu tarihten itibaren görünür…", "Şu tarihten sonra gizle…",
				"Saatler İstanbul saatine (UTC+3) göredir.", "Önizle", ">Kaydet<"}},
			{Name: "Embargo", Method: "POST", URL: live + "/gates",
				Form: apptest.WithToken(apptest.GateForm(b.NodeRev(t, b.Live.ID), "from_date", "2026-11-03", "from_time", "09:00",
					"until_date", "2026-11-06", "until_time", "18:00"), tok), ExpectedStatus: http.StatusSeeOther},
		})
		apptest.RunScenarios(t, c, []apptest.Scenario{
			{Name: "Embargoed", URL: live, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
				"Yayımlandı: yeni zamanlama yayında.", "3 Kasım 2026 09:00 tarihine kadar ambargo altında.", "Ambargoyu kaldır…",
				"Kaydet ve yayımla", "Temizle", "İçerik 3 Kasım 2026 09:00 tarihine kadar ambargo altında."}},
			{Name: "Order", Method: "POST", URL: live + "/gates",
				Form:           apptest.WithToken(apptest.GateForm(b.NodeRev(t, b.Live.ID), "until_date", "2026-11-03", "until_time", "08:00"), tok),
				ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{
					"“Şu tarihten sonra gizle” zamanı, “Şu tarihten itibaren görünür” zamanından sonra olmalı."}},
		})
		b.Clock.Set(apptest.GateUntil.Add(time.Minute))
		c.Check(t, apptest.Scenario{Name: "Expired", URL: live, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
			`data-state="expired"`, "6 Kasım 2026 18:00 tarihinde sona erdi."}})
		b.SetLang(t, b.Editor, "en")
		c.Check(t, apptest.Scenario{Name: "ExpiredEnglish", URL: live, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
			"Expired on 6 November 2026, 18:00."}})
	})
}
