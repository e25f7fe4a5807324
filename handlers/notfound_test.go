package handlers_test

import (
	"net/http"
	"testing"
)

// The router's own answers (a path no route has, a method no route takes)
// are never cacheable, like the site's 404 (§7.2).
func TestRouterAnswersAreNotStored(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.client(t, "")
	for _, sc := range []scenario{
		{Name: "ExtraSegments", URL: "/posts/welcome/extra/segments", ExpectedStatus: http.StatusNotFound,
			ExpectedHeaders: map[string]string{"Cache-Control": "no-store"}},
		{Name: "WrongMethod", Method: http.MethodPost, URL: "/rss.xml", ExpectedStatus: http.StatusMethodNotAllowed,
			ExpectedHeaders: map[string]string{"Cache-Control": "no-store"}},
	} {
		t.Run(sc.Name, func(t *testing.T) { c.check(t, sc) })
	}
}
