package handlers_test

import (
	"database/sql"
	"errors"
	"net/http"
	"testing"
	"time"

	"studio/handlers/internal/apptest"
)

// A path no route matches is the public site's 404 page, counted for
// broken-links' top 404 paths (path only, query dropped); Studio's and the
// API's unknown paths are their own 404s and are not counted.
func TestUnmatchedPathsAreTheSitesCounted404(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.Client(t, "en")
	c.Check(t, apptest.Scenario{Name: "Deep", URL: "/blog/2019/old-post?utm=x", ExpectedStatus: http.StatusNotFound,
		ExpectedHeaders: map[string]string{"Cache-Control": "no-store"}, ExpectedContent: []string{"<html"}})
	c.Check(t, apptest.Scenario{Name: "Again", URL: "/blog/2019/old-post", ExpectedStatus: http.StatusNotFound})
	c.Check(t, apptest.Scenario{Name: "API", URL: "/api/nothing/here", ExpectedStatus: http.StatusNotFound})
	c.Check(t, apptest.Scenario{Name: "Studio", URL: "/studio/nothing/here", ExpectedStatus: http.StatusNotFound})
	// They are written together a few seconds later (handlers/site's
	// notfound.go), not one write per visitor's 404.
	var path string
	var hits, rows int
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		err := a.Store.DB().QueryRow(`SELECT path, hits, (SELECT count(*) FROM site_not_found) FROM site_not_found`).Scan(&path, &hits, &rows)
		if err == nil {
			break
		}
		if !errors.Is(err, sql.ErrNoRows) || time.Now().After(deadline) {
			t.Fatalf("the 404s were not written: %v", err)
		}
	}
	if path != "/blog/2019/old-post" || hits != 2 || rows != 1 {
		t.Errorf("counted %q × %d in %d rows, want /blog/2019/old-post × 2 in 1", path, hits, rows)
	}
}
