package api_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"studio/engine/automations"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/handlers/internal/apptest"
)

// TestAPISchedule is GET …/schedule (§12 list_schedule, §13): the calendar
// items of a range, facets as comma-separated values, pages by cursor, and
// every bad parameter a 400 in the person's language that changes nothing.
func TestAPISchedule(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	editor, contributor := a.TokenFor(t, a.Editor), a.TokenFor(t, a.Contributor)
	scheduled := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	waiting := a.ScheduleAt(t, a.Contributor, a.CreateNode(t, release.KindPage,
		content.Body{Title: "Press", Slug: "press", Status: content.StatusDraft}), "2026-11-03", "11:00")
	canceled := a.ScheduleAt(t, a.Editor, a.CreateNode(t, release.KindPage,
		content.Body{Title: "Jobs", Slug: "jobs", Status: content.StatusDraft}), "2026-11-04", "12:00")
	if err := a.Releases.Cancel(ctx, a.Editor, a.Site.ID, canceled.ID, canceled.Rev); err != nil {
		t.Fatal(err)
	}
	sweep, err := automations.New(a.Store, a.Engine).CreateAutomation(ctx, a.Editor, a.Site.ID, "Broken-link sweep", "builtin:broken-links",
		"FREQ=WEEKLY;BYDAY=MO;BYHOUR=7;BYMINUTE=0", "2026-11-09T07:00")
	if err != nil {
		t.Fatal(err)
	}
	base := "/api/sites/" + a.Site.ID + "/schedule?"
	get := func(token string, params url.Values) (int, map[string]any) {
		t.Helper()
		return apptest.APICall(t, a, "GET", base+params.Encode(), token, "")
	}
	week := url.Values{"from": {"2026-11-02T00:00:00+03:00"}, "to": {"2026-11-09T00:00:00+03:00"}}
	with := func(extra ...string) url.Values {
		v := url.Values{}
		for k, vs := range week {
			v[k] = vs
		}
		for i := 0; i+1 < len(extra); i += 2 {
			v.Set(extra[i], extra[i+1])
		}
		return v
	}
	itemIDs := func(out map[string]any) []string {
		items, _ := out["items"].([]any)
		var ids []string
		for _, it := range items {
			ids = append(ids, it.(map[string]any)["id"].(string))
		}
		return ids
	}

	t.Run("TitleSearch", func(t *testing.T) {
		// "ELECTION" and "nıght" (dotless i) find "Election night live":
		// case and the Turkish i's fold; "press" finds only Press.
		for q, want := range map[string]string{"ELECTION": scheduled.ID, "nıght": scheduled.ID, "press": waiting.ID, "budget": ""} {
			status, out := get(contributor, with("q", q))
			if got := strings.Join(itemIDs(out), " "); status != http.StatusOK || got != want {
				t.Errorf("q=%s: %d %q, want %q", q, status, got, want)
			}
		}
		status, out := get(contributor, with("q", strings.Repeat("x", 101)))
		if status != http.StatusBadRequest && status != http.StatusUnprocessableEntity {
			t.Fatalf("a 101-character search: %d %v", status, out)
		}
	})

	t.Run("Week", func(t *testing.T) {
		status, out := get(contributor, week)
		if status != http.StatusOK || out["timeZone"] != "Europe/Istanbul" || out["nextCursor"] != nil {
			t.Fatalf("%d %v", status, out)
		}
		if got := strings.Join(itemIDs(out), " "); got != scheduled.ID+" "+waiting.ID {
			t.Fatalf("items %s", got)
		}
		first := out["items"].([]any)[0].(map[string]any)
		for k, want := range map[string]any{"kind": "publish", "at": "2026-11-02T06:00:00Z", "title": "Election night live",
			"target": scheduled.ID, "origin": "person", "approval": "approved", "state": "scheduled",
			"collection": "contentEntry", "rev": float64(scheduled.Rev)} {
			if first[k] != want {
				t.Errorf("%s = %v, want %v", k, first[k], want)
			}
		}
		second := out["items"].([]any)[1].(map[string]any)
		if second["approval"] != "pending" || second["requestId"] == nil || second["requestId"] == "" {
			t.Errorf("waiting item %v", second)
		}
	})

	t.Run("DatesAreTheSiteDays", func(t *testing.T) {
		status, out := get(editor, url.Values{"from": {"2026-11-09"}, "to": {"2026-11-10"}})
		if status != http.StatusOK || strings.Join(itemIDs(out), " ") != "occ:"+sweep.ID+":2026-11-09T04:00:00.000Z" {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("Facets", func(t *testing.T) {
		for _, c := range []struct {
			params url.Values
			want   string
		}{
			{with("state", "waiting"), waiting.ID},
			{with("state", "canceled"), canceled.ID},
			{with("state", "scheduled,canceled"), scheduled.ID + " " + canceled.ID},
			{with("approval", "pending"), waiting.ID},
			{with("kind", "automation", "to", "2026-11-10T00:00:00+03:00"), "occ:" + sweep.ID + ":2026-11-09T04:00:00.000Z"},
			{with("collection", "page"), waiting.ID},
			{with("origin", "agent"), ""},
			{with("mine", "1"), waiting.ID},
		} {
			status, out := get(contributor, c.params)
			if got := strings.Join(itemIDs(out), " "); status != http.StatusOK || got != c.want {
				t.Errorf("%s: %d %q, want %q", c.params.Encode(), status, got, c.want)
			}
		}
	})

	t.Run("Pages", func(t *testing.T) {
		var got []string
		params := with("limit", "1", "state", "scheduled,waiting,canceled")
		for range 5 {
			status, out := get(editor, params)
			if status != http.StatusOK || len(itemIDs(out)) > 1 {
				t.Fatalf("%d %v", status, out)
			}
			got = append(got, itemIDs(out)...)
			next, _ := out["nextCursor"].(string)
			if next == "" {
				break
			}
			params.Set("cursor", next)
		}
		if want := scheduled.ID + " " + waiting.ID + " " + canceled.ID; strings.Join(got, " ") != want {
			t.Errorf("pages gave %v, want %s", got, want)
		}
	})

	t.Run("BadParameters", func(t *testing.T) {
		before := a.Fingerprint(t)
		for _, c := range []struct {
			name        string
			params      url.Values
			code, field string
			extra       string
			extraV      any
		}{
			{"NoFrom", url.Values{"to": {"2026-11-09T00:00:00Z"}}, "bad_instant", "from", "", nil},
			{"BadTo", with("to", "next week"), "bad_instant", "to", "", nil},
			{"NoSuchDay", with("to", "2026-11-31"), "bad_instant", "to", "", nil},
			{"Backwards", with("to", "2026-11-01T00:00:00Z"), "bad_range", "to", "", nil},
			{"TooLong", with("to", "2027-01-04T00:00:00+03:00"), "range_too_long", "to", "maxDays", float64(62)},
			{"UnknownKind", with("kind", "publish,meeting"), "bad_filter", "kind", "value", "meeting"},
			{"UnknownState", with("state", "awaiting_approval"), "bad_filter", "state", "value", "awaiting_approval"},
			{"BadLimit", with("limit", "201"), "bad_filter", "limit", "value", "201"},
			{"BadMine", with("mine", "maybe"), "bad_filter", "mine", "value", "maybe"},
			{"BadCursor", with("cursor", "not-a-cursor"), "bad_cursor", "cursor", "", nil},
		} {
			status, out := get(editor, c.params)
			apptest.WantError(t, c.name, status, out, http.StatusBadRequest, c.code, c.field)
			if c.extra != "" {
				if got := apptest.Details(out)[c.extra]; got != c.extraV {
					t.Errorf("%s: details %v", c.name, apptest.Details(out))
				}
			}
		}
		if after := a.Fingerprint(t); after != before {
			t.Errorf("bad requests changed state")
		}
	})

	t.Run("Turkish", func(t *testing.T) {
		a.SetLang(t, a.Contributor, "tr")
		status, out := get(contributor, with("to", "2027-01-04T00:00:00+03:00"))
		apptest.WantError(t, "too long", status, out, http.StatusBadRequest, "range_too_long", "to")
		if m := apptest.Message(out); m != "En fazla 62 günlük bir aralık seçin." {
			t.Errorf("message %q", m)
		}
		status, out = get(contributor, with("kind", "x"))
		if m := apptest.Message(out); status != http.StatusBadRequest || !strings.Contains(m, "filtre") {
			t.Errorf("%d message %q", status, m)
		}
	})
}
