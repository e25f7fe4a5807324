package handlers_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"studio/engine"
)

// Delete from the editor: the confirmation says what happens, a stale form
// and a held node are refused with a sentence and change nothing, and a
// delete takes the node out of Studio.
func TestDeleteFromTheEditor(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.signedIn(t, a.editor)
	token := c.token()

	c.check(t, scenario{Name: "ConfirmStep", URL: "/studio/content/" + a.live.ID + "?confirm=delete",
		ExpectedStatus: http.StatusOK, ExpectedContent: []string{`id="delete-dialog"`, "Delete “Welcome to the Gazette”?",
			"the live site with the next publish", `action="/studio/content/` + a.live.ID + `/delete"`}})

	held := a.otherDraft(t)
	rel := a.scheduleAt(t, a.editor, held, "2026-11-02", "10:00")
	heldNow, err := a.nodes.Node(context.Background(), a.editor, a.site.ID, held.ID)
	if err != nil {
		t.Fatal(err)
	}
	before := a.fingerprint(t)
	c.check(t, scenario{Name: "HeldHasNoDelete", URL: "/studio/content/" + held.ID, ExpectedStatus: http.StatusOK,
		NotExpectedContent: []string{`data-testid="delete-open"`}})
	c.check(t, scenario{Name: "HeldRefused", Method: "POST", URL: "/studio/content/" + held.ID + "/delete",
		Form:           url.Values{"csrf_token": {token}, "rev": {fmt.Sprint(heldNow.Rev)}},
		ExpectedStatus: http.StatusConflict, ExpectedContent: []string{"2 November 2026, 10:00", "/studio/releases/" + rel.ID}})
	c.check(t, scenario{Name: "Stale", Method: "POST", URL: "/studio/content/" + a.draft.ID + "/delete",
		Form:           url.Values{"csrf_token": {token}, "rev": {"7"}},
		ExpectedStatus: http.StatusConflict, ExpectedContent: []string{"This changed somewhere else meanwhile."}})
	if after := a.fingerprint(t); after != before {
		t.Fatalf("a refused delete changed state:\n%s\n%s", before, after)
	}

	c.check(t, scenario{Name: "Deleted", Method: "POST", URL: "/studio/content/" + a.draft.ID + "/delete",
		Form:           url.Values{"csrf_token": {token}, "rev": {"1"}},
		ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/content"}})
	c.check(t, scenario{Name: "Flash", URL: "/studio/content", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Deleted."}, NotExpectedContent: []string{"Election night live"}})
	if _, err := a.nodes.Node(context.Background(), a.editor, a.site.ID, a.draft.ID); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("the deleted node reads as %v", err)
	}
}
