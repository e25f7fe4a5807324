package api_test

import (
	"fmt"
	"net/http"
	"testing"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/handlers/internal/apptest"
)

// POST …/releases and POST …/releases/{id}/schedule take a time as §12's
// schedule_release does: {"at": instant}, {"localTime", "timeZone"?} (by
// D2 in gaps and overlaps) or "on-approval"; a bad one is refused with a
// code and the field, and changes nothing.
func TestAPIScheduleWhen(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	editor, contributor := a.TokenFor(t, a.Editor), a.TokenFor(t, a.Contributor)
	base := "/api/sites/" + a.Site.ID
	newDraft := func(t *testing.T, token, when string) string {
		t.Helper()
		n := a.CreateNode(t, release.KindPage, content.Body{Title: "Page " + fmt.Sprint(a.ReleaseCount(t)),
			Slug: fmt.Sprintf("page-%d", a.ReleaseCount(t)), Status: content.StatusDraft, Text: "Text."})
		body := `{"nodeIds": ["` + n.ID + `"]}`
		if when != "" {
			body = `{"nodeIds": ["` + n.ID + `"], "when": ` + when + `}`
		}
		status, out := apptest.APICall(t, a, "POST", base+"/releases", token, body)
		if status != http.StatusCreated {
			t.Fatalf("create %s: %d %v", body, status, out)
		}
		return out["id"].(string)
	}
	whenOf := func(out map[string]any) string {
		rel, ok := out["release"].(map[string]any)
		if !ok {
			rel = out
		}
		w, _ := rel["when"].(map[string]any)
		return fmt.Sprintf("%v %v %v %v", w["kind"], w["at"], w["timeZone"], w["localTime"])
	}

	t.Run("DraftWithALocalTimeInAnotherZone", func(t *testing.T) {
		id := newDraft(t, editor, `{"localTime": "2026-11-02T10:00", "timeZone": "Europe/Berlin"}`)
		status, out := apptest.APICall(t, a, "GET", base+"/releases/"+id, editor, "")
		if got, want := whenOf(out), "at 2026-11-02T09:00:00Z Europe/Berlin 2026-11-02T10:00"; status != 200 || out["state"] != "draft" || got != want {
			t.Fatalf("%d when %s, want %s: %v", status, got, want, out)
		}
		// Scheduled with no time given, it takes its own.
		status, out = apptest.APICall(t, a, "POST", base+"/releases/"+id+"/schedule", editor, `{"rev": 1}`)
		if got, want := whenOf(out), "at 2026-11-02T09:00:00Z Europe/Berlin 2026-11-02T10:00"; status != 200 || out["status"] != "scheduled" || got != want {
			t.Fatalf("schedule: %d when %s, want %s: %v", status, got, want, out)
		}
	})

	for _, c := range []struct{ Name, When, Want string }{
		{"AnInstant", `{"at": "2026-11-02T08:30:00Z"}`, "at 2026-11-02T08:30:00Z Europe/Istanbul 2026-11-02T11:30"},
		{"AnInstantWithAnOffset", `{"at": "2026-11-02T12:00:00+03:00"}`, "at 2026-11-02T09:00:00Z Europe/Istanbul 2026-11-02T12:00"},
		{"LocalTimeInTheSitesZone", `{"localTime": "2026-11-02T13:00"}`, "at 2026-11-02T10:00:00Z Europe/Istanbul 2026-11-02T13:00"},
		// D2: a time in the spring-forward gap runs at the next valid time,
		// a repeated one at its first instant.
		{"InTheGap", `{"localTime": "2027-03-28T02:30", "timeZone": "Europe/Berlin"}`, "at 2027-03-28T01:30:00Z Europe/Berlin 2027-03-28T02:30"},
		{"InTheOverlap", `{"localTime": "2027-10-31T02:30", "timeZone": "Europe/Berlin"}`, "at 2027-10-31T00:30:00Z Europe/Berlin 2027-10-31T02:30"},
	} {
		t.Run(c.Name, func(t *testing.T) {
			id := newDraft(t, editor, "")
			status, out := apptest.APICall(t, a, "POST", base+"/releases/"+id+"/schedule", editor, `{"rev": 1, "when": `+c.When+`}`)
			if got := whenOf(out); status != 200 || out["status"] != "scheduled" || got != c.Want {
				t.Fatalf("%d when %s, want %s: %v", status, got, c.Want, out)
			}
		})
	}

	t.Run("OnApprovalByAnApproverPublishesNow", func(t *testing.T) {
		id := newDraft(t, editor, "")
		status, out := apptest.APICall(t, a, "POST", base+"/releases/"+id+"/schedule", editor, `{"rev": 1, "when": "on-approval"}`)
		rel, _ := out["release"].(map[string]any)
		if status != 200 || rel["state"] != "published" || whenOf(out) != "on-approval <nil> <nil> <nil>" {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("OnApprovalWaitsForTheApprover", func(t *testing.T) {
		id := newDraft(t, contributor, `"on-approval"`)
		status, out := apptest.APICall(t, a, "POST", base+"/releases/"+id+"/schedule", contributor, `{"rev": 1}`)
		rel, _ := out["release"].(map[string]any)
		if status != 200 || out["status"] != "approval-pending" || out["approvalId"] == nil || rel["state"] != "awaiting_approval" ||
			whenOf(out) != "on-approval <nil> <nil> <nil>" {
			t.Fatalf("%d %v", status, out)
		}
		status, out = apptest.APICall(t, a, "POST", base+"/approvals/"+out["approvalId"].(string)+"/approve", editor, "")
		if status != 200 || out["state"] != "published" {
			t.Fatalf("approve: %d %v", status, out)
		}
	})

	t.Run("BadTimesChangeNothing", func(t *testing.T) {
		id := newDraft(t, editor, "")
		before := a.Fingerprint(t)
		for _, c := range []struct {
			Name, When string
			Status     int
			Code       string
			Field      string
		}{
			{"AWord", `"tomorrow"`, 400, "bad_when", "when"},
			{"ANumber", `42`, 400, "bad_when", "when"},
			{"BothForms", `{"at": "2026-11-02T08:30:00Z", "localTime": "2026-11-02T11:30"}`, 400, "bad_when", "when"},
			{"NeitherForm", `{}`, 400, "bad_when", "when"},
			{"AZoneWithAnInstant", `{"at": "2026-11-02T08:30:00Z", "timeZone": "Europe/Berlin"}`, 400, "bad_when", "when"},
			{"AKind", `{"kind": "at", "at": "2026-11-02T08:30:00Z"}`, 400, "bad_when", "when"},
			{"NotAnInstant", `{"at": "2026-11-02 08:30"}`, 400, "bad_instant", "at"},
			{"Seconds", `{"at": "2026-11-02T08:30:30Z"}`, 400, "bad_at", "at"},
			{"PastInstant", `{"at": "2026-11-01T08:30:00Z"}`, 400, "time_in_past", "at"},
			{"BadLocalTime", `{"localTime": "2026-11-02T9:00"}`, 400, "bad_wall", "localTime"},
			{"LocalTimeWithSeconds", `{"localTime": "2026-11-02T09:00:00"}`, 400, "bad_wall", "localTime"},
			{"UnknownZone", `{"localTime": "2026-11-02T12:00", "timeZone": "Mars/Olympus"}`, 400, "unknown_zone", "timeZone"},
			{"OffsetAsZone", `{"localTime": "2026-11-02T12:00", "timeZone": "+03:00"}`, 400, "unknown_zone", "timeZone"},
			{"PastLocalTime", `{"localTime": "2026-11-01T12:00"}`, 400, "time_in_past", "localTime"},
			{"TooFar", `{"localTime": "2028-01-01T12:00"}`, 400, "too_far", "localTime"},
		} {
			status, out := apptest.APICall(t, a, "POST", base+"/releases/"+id+"/schedule", editor, `{"rev": 1, "when": `+c.When+`}`)
			apptest.WantError(t, "schedule "+c.Name, status, out, c.Status, c.Code, c.Field)
			status, out = apptest.APICall(t, a, "POST", base+"/releases", editor, `{"nodeIds": ["`+a.Draft.ID+`"], "when": `+c.When+`}`)
			apptest.WantError(t, "create "+c.Name, status, out, c.Status, c.Code, c.Field)
		}
		status, out := apptest.APICall(t, a, "POST", base+"/releases/"+id+"/schedule", editor, `{"rev": 1, "when": "on-approval", "date": "2026-11-02", "time": "09:00"}`)
		apptest.WantError(t, "two forms", status, out, 400, "bad_when", "when")
		status, out = apptest.APICall(t, a, "POST", base+"/releases/"+id+"/schedule", editor, `{"rev": 1}`)
		apptest.WantError(t, "no time", status, out, 400, "no_time", "when")
		if apptest.Message(out) == "" || apptest.Message(out) == "error.no_time" {
			t.Errorf("no time: message %q", apptest.Message(out))
		}
		if after := a.Fingerprint(t); after != before {
			t.Errorf("refused times changed state:\nbefore %s\nafter  %s", before, after)
		}
	})
}
