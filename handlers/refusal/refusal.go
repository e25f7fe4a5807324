// Package refusal turns an engine refusal (an *engine.Error) into the
// sentence a person reads, in their language: the one place every surface
// (Studio's pages, the JSON API, MCP, the CLI) words a refusal, so the
// same refusal reads the same everywhere. Each surface keeps only what is its
// own: the status code, the field the sentence sits under, the layout.
package refusal

import (
	"strings"
	"time"

	"studio/engine"
	"studio/locales"
)

// Sentence is e in p's language: the message error.<code>, or
// error.<code>_at when the refusal names a time (its When argument), with
// the refusal's arguments filled in and every time shown in loc (the
// site's zone). A nil loc is UTC.
func Sentence(p *locales.Printer, loc *time.Location, e *engine.Error) string {
	key, args := keyAndArgs(p, loc, e)
	return p.T(key, args...)
}

// SentenceIn is Sentence in the words of one screen: where prefix+key
// exists (e.g. drafts.error.<code>, a sentence that names the node or offers
// Re-pin) and the refusal carries every name it uses, it replaces the
// general sentence.
func SentenceIn(p *locales.Printer, loc *time.Location, e *engine.Error, prefix string) string {
	key, args := keyAndArgs(p, loc, e)
	// A missing key comes back as itself; a name the refusal lacks (a lock
	// found only by the guarded write carries no Title) as "<no value>":
	// then the general sentence stands.
	if s, ok := p.Lookup(prefix+key, args...); ok && !strings.Contains(s, "<no value>") {
		return s
	}
	return p.T(key, args...)
}

// Key is the message key of e's general sentence.
func Key(e *engine.Error) string {
	key := "error." + e.Code
	if _, timed := e.Args["When"]; timed {
		key += "_at" // the sentence that names the time
	}
	return key
}

func hasMessage(p *locales.Printer, key string) bool {
	_, ok := p.Lookup(key)
	return ok
}

func keyAndArgs(p *locales.Printer, loc *time.Location, e *engine.Error) (string, []any) {
	if loc == nil {
		loc = time.UTC
	}
	args := make([]any, 0, 2*len(e.Args))
	for k, v := range e.Args {
		if t, ok := v.(time.Time); ok {
			v = p.DateTime(t.In(loc))
		}
		args = append(args, k, v)
	}
	// A refusal of one field may have a sentence of its own,
	// error.<code>_on_<field> (forbidden on siteId: "this key belongs to
	// another site", not "your role does not allow this").
	if e.Field != "" {
		if k := "error." + e.Code + "_on_" + e.Field; hasMessage(p, k) {
			return k, args
		}
	}
	return Key(e), args
}
