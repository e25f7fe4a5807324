package studio_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/ids"
	"studio/engine/model/automation"
	"studio/engine/policy"
	"studio/handlers/internal/apptest"
)

// settleRuns ticks until the automations have nothing more to do at the
// clock's time: a run takes a step a tick.
func settleRuns(a *apptest.App, t *testing.T) {
	t.Helper()
	for range 50 {
		rep, err := a.Scheduler.RunDue(context.Background(), "manual")
		if err != nil {
			t.Fatal(err)
		}
		if rep.Automations.Claimed == 0 && rep.Automations.Steps == 0 {
			return
		}
	}
	t.Fatal("the automations never settle")
}

// agendaRow is the Agenda row with this test id in body, "" when absent.
func agendaRow(body, testID string) string {
	i := strings.Index(body, `data-testid="`+testID+`"`)
	if i < 0 {
		return ""
	}
	r := body[i:]
	return r[:strings.Index(r, "</div></li>")] // the row ends with its actions
}

// TestCalendarPastOccurrenceFromItsRun: the ticker ran Monday's 09:07
// occurrence of a daily check; on Tuesday the Agenda and the Month show it
// from its run — "Succeeded" / "Başarılı" and its outcome apart, linking to
// the run's page — and its ⋯ menu offers Run now (a form posting to
// run-now) to whom the engine allows it: the owner and the editor, not an
// author, who still has History. The menu's Run now starts a run.
func TestCalendarPastOccurrenceFromItsRun(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	owner := a.AddUser(t, "owner@example.com", "Oya Owner", policy.Owner, "en")
	author := a.AddUser(t, "author@example.com", "Aras Author", policy.Author, "en")
	auto, err := a.Automations.Create(ctx, owner, a.Site.ID, automations.Input{Name: "Link check", Builtin: automation.BuiltinBrokenLinks,
		Rule: "FREQ=DAILY;BYHOUR=9;BYMINUTE=7", Start: "2026-11-02T09:07"})
	if err != nil {
		t.Fatal(err)
	}
	occ := time.Date(2026, 11, 2, 6, 7, 0, 0, time.UTC) // Monday 09:07 in Istanbul
	a.Clock.Set(occ.Add(time.Minute))
	settleRuns(a, t)
	runID := ids.RunID(auto.ID, occ)
	run, err := a.Store.Run(ctx, a.Site.ID, runID)
	if err != nil || run.State != string(automation.RunSucceeded) {
		t.Fatalf("Monday's run: %+v %v", run, err)
	}
	a.Clock.Set(time.Date(2026, 11, 3, 5, 0, 0, 0, time.UTC)) // Tuesday 08:00
	testID := "item-occ:" + auto.ID + ":2026-11-02T06:07:00.000Z"
	runNow := `action="/studio/schedules/automations/` + auto.ID + `/run-now"`
	runLink := `href="/studio/schedules/runs/` + runID + `"`

	for _, c := range []struct {
		name, lang, state string
		who               engine.User
		runNow            bool
	}{
		{"Owner", "en", `data-state="succeeded">Succeeded<`, owner, true},
		{"Editor", "en", `data-state="succeeded">Succeeded<`, a.Editor, true},
		{"Author", "en", `data-state="succeeded">Succeeded<`, author, false},
		{"OwnerTurkish", "tr", `data-state="succeeded">Başarılı<`, owner, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			a.SetLang(t, c.who, c.lang)
			cl := a.SignedIn(t, c.who)
			res := cl.Check(t, apptest.Scenario{Name: "agenda", URL: "/studio/schedules?date=2026-11-02", ExpectedStatus: http.StatusOK})
			row := agendaRow(res.Body, testID)
			if row == "" {
				t.Fatalf("no row %s", testID)
			}
			outcome := map[string]string{"en": "Nothing to do", "tr": "Yapacak iş yoktu"}[c.lang]
			if run.Outcome == string(automation.OutcomeDidWork) {
				outcome = map[string]string{"en": "Did work", "tr": "İşlem yaptı"}[c.lang]
			}
			for _, want := range []string{c.state, runLink, `data-outcome="` + run.Outcome + `">` + outcome + `<`,
				`href="/studio/schedules/history?automation=` + auto.ID + `"`} {
				if !strings.Contains(row, want) {
					t.Errorf("the row lacks %s:\n%s", want, row)
				}
			}
			if strings.Contains(row, "not_run") {
				t.Errorf("a run occurrence shown as not run:\n%s", row)
			}
			if got := strings.Contains(row, runNow); got != c.runNow {
				t.Errorf("Run now shown: %v, want %v:\n%s", got, c.runNow, row)
			}
			// The Month: the chip links to the run and says its state; the
			// day's panel has the badge and the same menu.
			word := map[string]string{"en": "succeeded", "tr": "başarılı"}[c.lang]
			cl.Check(t, apptest.Scenario{Name: "month", URL: "/studio/schedules?view=month&date=2026-11", ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{runLink, "Link check", ", " + word}})
			day := cl.Check(t, apptest.Scenario{Name: "month day", URL: "/studio/schedules/month/day?date=2026-11-02", Header: monthHX,
				ExpectedStatus: http.StatusOK, ExpectedContent: []string{runLink, c.state}})
			if got := strings.Contains(day.Body, runNow); got != c.runNow {
				t.Errorf("the day panel's Run now shown: %v, want %v", got, c.runNow)
			}
		})
	}

	t.Run("RunNowFromTheMenu", func(t *testing.T) {
		a.SetLang(t, owner, "en")
		cl := a.SignedIn(t, owner)
		res := cl.Check(t, apptest.Scenario{Name: "agenda", URL: "/studio/schedules?date=2026-11-03", ExpectedStatus: http.StatusOK})
		i := strings.Index(res.Body, runNow)
		if i < 0 {
			t.Fatal("no Run now on Tuesday's occurrences")
		}
		form := res.Body[i:]
		form = form[:strings.Index(form, "</form>")]
		if !strings.Contains(form, `name="csrf_token" value="`+cl.Token()+`"`) {
			t.Fatalf("the Run now form lacks the session's token: %s", form)
		}
		before := len(runsOf(a, t, auto.ID))
		cl.Check(t, apptest.Scenario{Name: "run now", Method: http.MethodPost, URL: "/studio/schedules/automations/" + auto.ID + "/run-now",
			Form: url.Values{"csrf_token": {cl.Token()}}, ExpectedStatus: http.StatusSeeOther})
		// A double click: the second press lands on the same run's page
		// and starts no second run.
		res = cl.Do(http.MethodPost, "/studio/schedules/automations/"+auto.ID+"/run-now", url.Values{"csrf_token": {cl.Token()}}, nil)
		runs := runsOf(a, t, auto.ID)
		if len(runs) != before+1 || runs[0].Trigger != automations.TriggerManual {
			t.Fatalf("runs after Run now twice: %d (before %d)", len(runs), before)
		}
		if loc := res.Header.Get("Location"); res.Status != http.StatusSeeOther || !strings.HasSuffix(loc, "/studio/schedules/runs/"+runs[0].ID) {
			t.Fatalf("the second press: %d to %q, want the run's page", res.Status, loc)
		}
		// It is on the Agenda at its own time, running, linking to itself.
		cl.Check(t, apptest.Scenario{Name: "agenda after", URL: "/studio/schedules?date=2026-11-03", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`href="/studio/schedules/runs/` + runs[0].ID + `"`, `data-state="running"`, "Started with Run now"}})
	})
}

// runsOf lists an automation's runs, newest first.
func runsOf(a *apptest.App, t *testing.T, id string) []automations.Run {
	t.Helper()
	runs, err := a.Store.Runs(context.Background(), automations.RunFilter{SiteID: a.Site.ID, AutomationID: id, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// TestCalendarPastRunsFold: on a past day, the occurrences whose runs went
// as planned fold into "+ 2 automation runs", as the runs to come of
// recurring automations do; one that did not run stays in view.
func TestCalendarPastRunsFold(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	var ids []string
	for _, name := range []string{"Link check", "Stale review", "Paused check"} {
		au, err := a.Automations.Create(ctx, a.Editor, a.Site.ID, automations.Input{Name: name, Builtin: automation.BuiltinBrokenLinks,
			Rule: "FREQ=DAILY;BYHOUR=9;BYMINUTE=7", Start: "2026-11-02T09:07"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, au.ID)
		if name == "Paused check" {
			if _, err := a.Automations.Pause(ctx, a.Editor, a.Site.ID, au.ID, au.Rev); err != nil {
				t.Fatal(err)
			}
		}
	}
	a.Clock.Set(time.Date(2026, 11, 2, 6, 8, 0, 0, time.UTC))
	settleRuns(a, t)
	a.Clock.Set(time.Date(2026, 11, 3, 5, 0, 0, 0, time.UTC))
	res := a.SignedIn(t, a.Editor).Check(t, apptest.Scenario{Name: "agenda", URL: "/studio/schedules?date=2026-11-02", ExpectedStatus: http.StatusOK})
	day := res.Body[strings.Index(res.Body, `data-date="2026-11-02"`):]
	day = day[:strings.Index(day, "</section>")]
	fold := strings.Index(day, `data-testid="automation-runs"`)
	if fold < 0 || !strings.Contains(day[fold:], "+ 2 automation runs") {
		t.Fatalf("Monday has no fold of its two runs:\n%s", day)
	}
	for i, id := range ids {
		at := strings.Index(day, `data-testid="item-occ:`+id+`:`)
		if at < 0 {
			t.Fatalf("no row of %s", id)
		}
		if folded := at > fold; folded != (i < 2) {
			t.Errorf("automation %d folded: %v", i, folded)
		}
	}
}
