package studio

import (
	"context"
	"errors"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/releases"
	refusals "studio/handlers/refusal"
	"studio/locales"
)

// sameRefusals are refusals of every shape: plain, on a field, naming a
// time, naming a node (a drafts sentence exists), naming what a drafts
// sentence needs only in part.
var sameRefusals = []*engine.Error{
	{Code: engine.CodeStale},
	{Code: releases.CodeUnknownZone, Field: "timeZone"},
	{Code: engine.CodeScheduledLocked, Args: map[string]any{"When": time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)}},
	{Code: engine.CodeScheduledLocked, Args: map[string]any{"Title": "Sonbahar", "Release": "rel_X",
		"When": time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)}},
	{Code: releases.CodeTooManyReleases, Args: map[string]any{"Count": 200}},
	{Code: releases.CodeNodeDeleted, Args: map[string]any{"Node": "ent_a", "Title": "Sonbahar"}},
}

// TestStudioSaysRefusalsAsTheRenderer: Studio's pages and its draft pages
// word every refusal exactly as the one renderer does (the API's test
// checks its side against the same renderer), with the time in the site's
// zone.
func TestStudioSaysRefusalsAsTheRenderer(t *testing.T) {
	site := engine.Site{ID: "site_x", TimeZone: "Europe/Istanbul"}
	for _, lang := range locales.Languages {
		ctx := context.WithValue(locales.With(context.Background(), lang), stateKey{}, &state{site: site})
		p := locales.For(lang)
		for _, e := range sameRefusals {
			want := refusals.Sentence(p, siteLoc(site), e)
			wantDraft := refusals.SentenceIn(p, siteLoc(site), e, "drafts.")
			for _, c := range []struct {
				name string
				fn   func(context.Context, error) (string, map[string]string, bool)
				want string
			}{
				{"refusal", func(ctx context.Context, err error) (string, map[string]string, bool) {
					m, f, _, ok := refusal(ctx, err)
					return m, f, ok
				}, want},
				{"draftRefusal", func(ctx context.Context, err error) (string, map[string]string, bool) {
					m, f, _, ok := draftRefusal(ctx, err)
					return m, f, ok
				}, wantDraft},
			} {
				msg, fields, ok := c.fn(ctx, e)
				if !ok {
					t.Fatalf("%s(%s) is no refusal", c.name, e.Code)
				}
				if e.Field != "" {
					msg = fields[e.Field]
				}
				if msg != c.want || msg == "" {
					t.Errorf("%s %s(%s) = %q, want the renderer's %q", lang, c.name, e.Code, msg, c.want)
				}
			}
		}
	}
	if _, _, _, ok := refusal(context.Background(), errors.New("disk full")); ok {
		t.Error("an internal error counts as a refusal")
	}
}
