package studio_test

import (
	"net/http"
	"testing"

	"studio/handlers/internal/apptest"
)

// TestUploadScreensSayTheSameLimits: the editor's image upload and the
// media file's form state the same types and limits (issue 39), the ones
// the engine checks, in English and Turkish.
func TestUploadScreensSayTheSameLimits(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	for _, lang := range []struct{ code, limits string }{
		{"en", "JPEG, PNG, WebP or GIF, at most 10 MB and 40 megapixels"},
		{"tr", "JPEG, PNG, WebP ya da GIF, en fazla 10 MB ve 40 megapiksel"},
	} {
		a.SetLang(t, a.Editor, lang.code)
		for _, kind := range []string{"contentEntry", "asset"} {
			c.Check(t, apptest.Scenario{Name: lang.code + "-" + kind, URL: "/studio/content/new?kind=" + kind, ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{lang.limits}})
		}
	}
}
