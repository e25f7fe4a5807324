package studio_test

import (
	"net/http"
	"testing"

	"studio/handlers/internal/apptest"
)

// Somebody who is no member of any site signs in and is told so, on every
// Studio page, without a word of any site.
func TestStudioWithoutAMembership(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	if _, err := a.Store.DB().Exec(`DELETE FROM memberships WHERE user_id = ?`, a.Contributor.ID); err != nil {
		t.Fatal(err)
	}
	c := a.SignedIn(t, a.Contributor)
	for _, path := range []string{"/studio/schedules", "/studio/content", "/studio/tokens"} {
		c.Check(t, apptest.Scenario{Name: path, URL: path, ExpectedStatus: http.StatusForbidden,
			ExpectedContent:    []string{"You are not a member of any site yet."},
			NotExpectedContent: []string{"Demo Gazette"}})
	}
}
