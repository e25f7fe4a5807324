package api_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"studio/engine/policy"
	"studio/handlers/internal/apptest"
)

// Roles are per site (§10.2): the same person and the same token act with
// the role of the site in the URL, and a site they are no member of is
// answered as one that does not exist.
func TestRolesArePerSite(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	other, err := a.Engine.CreateSite(ctx, "Other Gazette", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	third, err := a.Engine.CreateSite(ctx, "Third Gazette", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	// The editor is a Contributor on the other site, the contributor an
	// Editor there; nobody of theirs is on the third.
	if err := a.Store.AddMember(ctx, other.ID, a.Editor.ID, policy.Contributor, apptest.Start); err != nil {
		t.Fatal(err)
	}
	if err := a.Store.AddMember(ctx, other.ID, a.Contributor.ID, policy.Editor, apptest.Start); err != nil {
		t.Fatal(err)
	}
	// A token's scopes are chosen within the role where it is made; each
	// call narrows them to the role on the site it acts on.
	asEditorThere := a.Contributor
	asEditorThere.Role, asEditorThere.SiteID = policy.Editor, other.ID
	editor, contributor := a.TokenFor(t, a.Editor), a.TokenFor(t, asEditorThere)

	status, out := apptest.APICall(t, a, "GET", "/api/sites", editor, "")
	var listed []string
	for _, s := range out["sites"].([]any) {
		listed = append(listed, s.(map[string]any)["id"].(string))
	}
	if status != 200 || !slices.Equal(listed, []string{a.Site.ID, other.ID}) && !slices.Equal(listed, []string{other.ID, a.Site.ID}) {
		t.Fatalf("GET /api/sites: %d %v; want the two sites the editor is a member of", status, listed)
	}

	// Approving needs releases:publish: an Editor's, not a Contributor's.
	// Past the guard an unknown request is not found.
	approve := func(siteID string) string { return "/api/sites/" + siteID + "/approvals/apr_nope/approve" }
	for _, c := range []struct {
		name, token, path string
		status            int
		code              string
	}{
		{"EditorHere", editor, approve(a.Site.ID), http.StatusNotFound, "not_found"},
		{"ContributorElsewhere", editor, approve(other.ID), http.StatusForbidden, "forbidden"},
		{"ContributorHere", contributor, approve(a.Site.ID), http.StatusForbidden, "forbidden"},
		{"EditorElsewhere", contributor, approve(other.ID), http.StatusNotFound, "not_found"},
	} {
		status, out := apptest.APICall(t, a, "POST", c.path, c.token, `{}`)
		apptest.WantError(t, c.name, status, out, c.status, c.code, "")
	}

	// No member of the third site: its releases are as not found as a
	// site's that does not exist, word for word.
	status, none := apptest.APICall(t, a, "GET", "/api/sites/site_nope/releases", editor, "")
	apptest.WantError(t, "UnknownSite", status, none, http.StatusNotFound, "not_found", "")
	status, out = apptest.APICall(t, a, "GET", "/api/sites/"+third.ID+"/releases", editor, "")
	apptest.WantError(t, "NotAMember", status, out, http.StatusNotFound, "not_found", "")
	if apptest.Message(out) != apptest.Message(none) {
		t.Errorf("a site one is no member of answers %q, an unknown one %q", apptest.Message(out), apptest.Message(none))
	}
	if status, out := apptest.APICall(t, a, "GET", "/api/sites/"+other.ID+"/releases", editor, ""); status != 200 {
		t.Errorf("the other site's releases as a Contributor there: %d %v", status, out)
	}
}
