package api_test

import (
	"testing"

	"studio/handlers/internal/apptest"
)

// The check sees the releases the API answers, in a list, alone and inside
// another answer.
func TestReleaseSchemaCheckSeesReleases(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	rel := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	token := a.TokenFor(t, a.Editor)
	base := "/api/sites/" + a.Site.ID
	for _, path := range []string{base + "/releases", base + "/releases/" + rel.ID, base + "/releases/" + rel.ID + "/diff"} {
		before := a.ReleasesChecked.Load()
		if status, out := apptest.APICall(t, a, "GET", path, token, ""); status != 200 {
			t.Fatalf("%s: %d %v", path, status, out)
		}
		if a.ReleasesChecked.Load() != before+1 {
			t.Errorf("%s: %d releases checked, want 1", path, a.ReleasesChecked.Load()-before)
		}
	}
}
