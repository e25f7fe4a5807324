package apptest

import (
	"slices"
	"testing"
)

// TestRawKeys: a key shown in a page's text or in what a screen reader
// says is found; addresses, e-mails, file names, scripts and code are not
// keys.
func TestRawKeys(t *testing.T) {
	page := `<html><head><title>Agents</title><style>.agents.scope_x{}</style><script>agents.scope_js()</script></head><body>
		<p>agents.scope_analytics_read</p><button aria-label="nav.schedules">x</button>
		<p>Write to owner@site.example or open https://site.example/agents.md, studio.css, /static/content.js.</p>
		<a href="/studio/agents.scope_x">Keys</a><p>See error.forbidden.</p><input type="hidden" value="agenda.same_minute">
		<p>The answer names <code>site.id</code>.</p><pre><code>site.name</code> site.lang</pre><p>nav.agents</p></body></html>`
	got := RawKeys(page)
	want := []string{"agents.scope_analytics_read", "nav.schedules", "error.forbidden", "nav.agents"}
	if !slices.Equal(got, want) {
		t.Fatalf("RawKeys = %v, want %v", got, want)
	}
}
