package releases_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/nodes"
	"studio/engine/public"
	"studio/engine/releases"
	"studio/store"
)

// TestPreviewTokens: a preview token is signed with the database's own key
// (made once, kept across restarts, shared by every process), names one
// node and works until it expires; any change to it, or another database's
// key, makes it worthless.
func TestPreviewTokens(t *testing.T) {
	t.Parallel()
	b := newBundle(t)
	ctx := context.Background()
	expires := start.Add(time.Hour)
	tok, err := public.New(b.Releases, b.Nodes, b.Store).PreviewToken(ctx, b.Article.ID, expires)
	if err != nil {
		t.Fatal(err)
	}
	if id, exp, err := public.New(b.Releases, b.Nodes, b.Store).VerifyPreview(ctx, tok, start); err != nil || id != b.Article.ID || !exp.Equal(expires) {
		t.Fatalf("VerifyPreview = %q, %v, %v", id, exp, err)
	}
	if _, _, err := public.New(b.Releases, b.Nodes, b.Store).VerifyPreview(ctx, tok, expires.Add(-time.Millisecond)); err != nil {
		t.Errorf("a millisecond before it expires: %v", err)
	}
	if _, _, err := public.New(b.Releases, b.Nodes, b.Store).VerifyPreview(ctx, tok, expires); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("at its expiry: %v, want ErrNotFound", err)
	}
	parts := strings.Split(tok, ".")
	for name, bad := range map[string]string{
		"OtherNode":   "ent_OTHER." + parts[1] + "." + parts[2],
		"Later":       parts[0] + "." + "4102444800" + "." + parts[2],
		"LeadingZero": parts[0] + ".0" + parts[1] + "." + parts[2],
		"Signature":   parts[0] + "." + parts[1] + "." + strings.Repeat("A", len(parts[2])),
		"Short":       parts[0] + "." + parts[1] + "." + parts[2][:10],
		"NoSignature": parts[0] + "." + parts[1],
		"Extra":       tok + ".x",
		"Empty":       "",
	} {
		if _, _, err := public.New(b.Releases, b.Nodes, b.Store).VerifyPreview(ctx, bad, start); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("%s: %v, want ErrNotFound", name, err)
		}
	}

	// The key outlives the process: a new store on the same file verifies.
	st, err := store.Open(ctx, b.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reopened := releases.New(engine.New(st, b.Clock, nil), st)
	if _, _, err := public.New(reopened, nodes.New(reopened, st), st).VerifyPreview(ctx, tok, start); err != nil {
		t.Errorf("after reopening: %v", err)
	}
	// Another database has another key.
	other := newBundle(t)
	if _, _, err := public.New(other.Releases, other.Nodes, other.Store).VerifyPreview(ctx, tok, start); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("another database accepted the token: %v", err)
	}
}

// TestPreviewKeyMadeOnce: processes racing on a new database agree on one key.
func TestPreviewKeyMadeOnce(t *testing.T) {
	t.Parallel()
	b := newBundle(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	tokens := make([]string, 8)
	for i := range tokens {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := store.Open(ctx, b.Path)
			if err != nil {
				t.Error(err)
				return
			}
			defer st.Close()
			eng := releases.New(engine.New(st, b.Clock, nil), st)
			tokens[i], err = public.New(eng, nodes.New(eng, st), st).PreviewToken(ctx, b.Article.ID, start.Add(time.Hour))
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, tok := range tokens[1:] {
		if tok != tokens[0] {
			t.Fatalf("two keys: %q and %q", tokens[0], tok)
		}
	}
}

// TestPreviewLink: a person who may read content mints a 24-hour link to a
// node of the site; a node of no site is not found.
func TestPreviewLink(t *testing.T) {
	t.Parallel()
	b := newBundle(t)
	ctx := context.Background()
	tok, err := public.New(b.Releases, b.Nodes, b.Store).PreviewLink(ctx, b.Contributor, b.Site.ID, b.Article.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, exp, err := public.New(b.Releases, b.Nodes, b.Store).VerifyPreview(ctx, tok, start); err != nil || !exp.Equal(start.Add(public.PreviewLifetime)) {
		t.Errorf("expires %v (%v), want a day later", exp, err)
	}
	if _, err := public.New(b.Releases, b.Nodes, b.Store).PreviewLink(ctx, b.Editor, b.Site.ID, "ent_NOTHING"); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("unknown node: %v", err)
	}
}
