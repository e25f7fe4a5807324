package api_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"studio/handlers/internal/apptest"
)

// TestContentAddressesAPI: the API's PATCH answers 409 slug_taken (JSON,
// naming the address and its holder) and 400 slug_reserved, and changes
// nothing.
func TestContentAddressesAPI(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	token, _, err := a.Identity.CreateToken(context.Background(), a.Editor, "script", nil)
	if err != nil {
		t.Fatal(err)
	}
	before := a.Fingerprint(t)
	status, out := apptest.APICall(t, a, "PATCH", "/api/sites/"+a.Site.ID+"/entries/"+a.Draft.ID, token,
		fmt.Sprintf(`{"expectedRev":%d,"slug":"welcome"}`, a.Draft.Rev), "Content-Type", "application/json")
	e, _ := out["error"].(map[string]any)
	details, _ := e["details"].(map[string]any)
	if status != http.StatusConflict || apptest.ErrorCode(out) != "slug_taken" || details["path"] != "/posts/welcome" ||
		details["holder"] != "Welcome to the Gazette" || details["field"] != "slug" {
		t.Errorf("PATCH into a live slug: %d %v", status, out)
	}
	status, out = apptest.APICall(t, a, "PATCH", "/api/sites/"+a.Site.ID+"/pages/"+a.Page.ID, token,
		fmt.Sprintf(`{"expectedRev":%d,"slug":"api"}`, a.Page.Rev), "Content-Type", "application/json")
	if status != http.StatusBadRequest || apptest.ErrorCode(out) != "slug_reserved" {
		t.Errorf("PATCH to a reserved slug: %d %v", status, out)
	}
	status, out = apptest.APICall(t, a, "PATCH", "/api/sites/"+a.Site.ID+"/entries/"+a.Draft.ID, token,
		fmt.Sprintf(`{"expectedRev":%d,"title":"Election\u0000night \u202eevil"}`, a.Draft.Rev), "Content-Type", "application/json")
	if status != http.StatusBadRequest || apptest.ErrorCode(out) != "title_invalid" {
		t.Errorf("PATCH a title with NUL and RLO: %d %v", status, out)
	}
	status, out = apptest.APICall(t, a, "PATCH", "/api/sites/"+a.Site.ID+"/entries/"+a.Draft.ID, token,
		fmt.Sprintf(`{"expectedRev":%d,"summary":"Results\u0085as they come"}`, a.Draft.Rev), "Content-Type", "application/json")
	if status != http.StatusBadRequest || apptest.ErrorCode(out) != "summary_invalid" {
		t.Errorf("PATCH a summary with a C1 control: %d %v", status, out)
	}
	if got := a.Fingerprint(t); got != before {
		t.Errorf("refused PATCHes changed the database")
	}
}
