package studio_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"studio/engine"
	"studio/handlers/internal/apptest"
)

// Delete from the editor: the confirmation says what happens, a stale form
// and a held node are refused with a sentence and change nothing, and a
// delete takes the node out of Studio.
func TestDeleteFromTheEditor(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	token := c.Token()

	c.Check(t, apptest.Scenario{Name: "ConfirmStep", URL: "/studio/content/" + a.Live.ID + "?confirm=delete",
		ExpectedStatus: http.StatusOK, ExpectedContent: []string{`id="delete-dialog"`, "Delete “Welcome to the Gazette”?",
			"the live site with the next publish", `action="/studio/content/` + a.Live.ID + `/delete"`}})

	held := a.OtherDraft(t)
	rel := a.ScheduleAt(t, a.Editor, held, "2026-11-02", "10:00")
	heldNow, err := a.Nodes.Node(context.Background(), a.Editor, a.Site.ID, held.ID)
	if err != nil {
		t.Fatal(err)
	}
	before := a.Fingerprint(t)
	c.Check(t, apptest.Scenario{Name: "HeldHasNoDelete", URL: "/studio/content/" + held.ID, ExpectedStatus: http.StatusOK,
		NotExpectedContent: []string{`data-testid="delete-open"`}})
	c.Check(t, apptest.Scenario{Name: "HeldRefused", Method: "POST", URL: "/studio/content/" + held.ID + "/delete",
		Form:           url.Values{"csrf_token": {token}, "rev": {fmt.Sprint(heldNow.Rev)}},
		ExpectedStatus: http.StatusConflict, ExpectedContent: []string{"2 November 2026, 10:00", "/studio/releases/" + rel.ID}})
	c.Check(t, apptest.Scenario{Name: "Stale", Method: "POST", URL: "/studio/content/" + a.Draft.ID + "/delete",
		Form:           url.Values{"csrf_token": {token}, "rev": {"7"}},
		ExpectedStatus: http.StatusConflict, ExpectedContent: []string{"This changed somewhere else meanwhile."}})
	if after := a.Fingerprint(t); after != before {
		t.Fatalf("a refused delete changed state:\n%s\n%s", before, after)
	}

	c.Check(t, apptest.Scenario{Name: "Deleted", Method: "POST", URL: "/studio/content/" + a.Draft.ID + "/delete",
		Form:           url.Values{"csrf_token": {token}, "rev": {"1"}},
		ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/content"}})
	c.Check(t, apptest.Scenario{Name: "Flash", URL: "/studio/content", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Deleted."}, NotExpectedContent: []string{"Election night live"}})
	if _, err := a.Nodes.Node(context.Background(), a.Editor, a.Site.ID, a.Draft.ID); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("the deleted node reads as %v", err)
	}
}
