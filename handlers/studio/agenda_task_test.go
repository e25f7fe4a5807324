package studio_test

import (
	"context"
	"net/http"
	"testing"

	"studio/engine/automations"
	"studio/engine/policy"
	"studio/handlers/internal/apptest"
)

// TestAgentTaskIsItsOwnersOnTheCalendar: an agent task's occurrences are
// its owner's task, shown "by" them on the Agenda and the Month, never
// "proposed by" them as an agent's proposal is (issue 39).
func TestAgentTaskIsItsOwnersOnTheCalendar(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	no := false
	if _, err := a.Automations.Create(context.Background(), a.Editor, a.Site.ID, automations.Input{Name: "Morning planner", Preset: "daily",
		Start: "2026-11-03T09:00", Task: &automations.TaskInput{Instructions: "Plan.", ModeCap: policy.ModeManual,
			ReadsUntrustedText: &no, WindowMinutes: 30}}); err != nil {
		t.Fatal(err)
	}
	c := a.SignedIn(t, a.Editor)
	c.Check(t, apptest.Scenario{Name: "Agenda", URL: "/studio/schedules?date=2026-11-02", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Morning planner", "by Elif Editor"}, NotExpectedContent: []string{"proposed by Elif Editor"}})
	c.Check(t, apptest.Scenario{Name: "Month", URL: "/studio/schedules?view=month&date=2026-11", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Morning planner", "by Elif Editor"}, NotExpectedContent: []string{"proposed by Elif Editor"}})
}
