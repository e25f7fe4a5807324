package api

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/localtime"
	"studio/engine/releases"
	"studio/handlers/refusal"
	"studio/locales"
)

// TestAPISaysRefusalsAsTheRenderer: the API's message for every shape of
// refusal is the one renderer's sentence, general or in the words of a
// draft, with times in the site's zone; only the status and details are
// the API's own. (Studio's test checks its side against the same renderer.)
func TestAPISaysRefusalsAsTheRenderer(t *testing.T) {
	when := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)
	refusals := []*engine.Error{
		{Code: engine.CodeStale},
		{Code: releases.CodeUnknownZone, Field: "timeZone"},
		{Code: engine.CodeScheduledLocked, Args: map[string]any{"When": when}},
		{Code: engine.CodeScheduledLocked, Args: map[string]any{"Title": "Sonbahar", "Release": "rel_X", "When": when}},
		{Code: releases.CodeTooManyReleases, Args: map[string]any{"Count": 200}},
		{Code: releases.CodeNodeDeleted, Args: map[string]any{"Node": "ent_a", "Title": "Sonbahar"}},
	}
	site := engine.Site{ID: "site_x", TimeZone: "Europe/Istanbul"}
	loc, err := localtime.LoadZone(site.TimeZone)
	if err != nil {
		t.Fatal(err)
	}
	h := &Handler{log: slog.New(slog.DiscardHandler)}
	for _, lang := range locales.Languages {
		ctx := context.WithValue(locales.With(context.Background(), lang), siteKey{}, site)
		p := locales.For(lang)
		for _, e := range refusals {
			for _, c := range []struct {
				name string
				fail func(*httptest.ResponseRecorder)
				want string
			}{
				{"fail", func(w *httptest.ResponseRecorder) { h.fail(w, ctx, e) }, refusal.Sentence(p, loc, e)},
				{"failDraft", func(w *httptest.ResponseRecorder) { h.failDraft(w, ctx, e) }, refusal.SentenceIn(p, loc, e, "drafts.")},
			} {
				w := httptest.NewRecorder()
				c.fail(w)
				var body struct {
					Error struct{ Code, Message string }
				}
				if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
					t.Fatal(err)
				}
				if body.Error.Code != e.Code || body.Error.Message != c.want || c.want == "" {
					t.Errorf("%s %s(%s) = %s %q, want the renderer's %q", lang, c.name, e.Code, body.Error.Code, body.Error.Message, c.want)
				}
			}
		}
	}
}
