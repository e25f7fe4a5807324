package store_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/policy"
	"studio/engine/release"
	"studio/store"
)

// TestNodeAuthorMigration: migration 0010 gives every node that existed
// before it the person who saved its first version, or else the site's
// first owner; later versions never change a node's author.
func TestNodeAuthorMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "studio.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC)
	owner := engine.User{ID: "user_owner", Email: "o@example.com", Name: "Oya", Role: policy.Owner, Lang: "en"}
	writer := engine.User{ID: "user_writer", Email: "w@example.com", Name: "Can", Role: policy.Contributor, Lang: "en"}
	for _, u := range []engine.User{owner, writer} {
		if err := st.CreateUser(ctx, u, "x", now); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.CreateSite(ctx, engine.Site{ID: "site_a", Name: "A", TimeZone: "UTC", Hash: "h"}, now); err != nil {
		t.Fatal(err)
	}
	save := func(id string, by release.Actor) {
		b := content.Body{Title: id, Slug: id, Status: content.StatusDraft}
		n := content.Node{ID: id, SiteID: "site_a", Kind: release.KindPage, Body: b, Rev: 1, Hash: content.Hash(b)}
		if err := st.SaveNode(ctx, n, 0, by, now); err != nil {
			t.Fatal(err)
		}
	}
	save("pag_bywriter", writer.Actor())
	save("pag_bysystem", release.Actor{Kind: "system", ID: "sys_import"})
	// The database as it was before 0010: no author column, 0010 not run.
	for _, q := range []string{`ALTER TABLE nodes DROP COLUMN author_id`, `DELETE FROM schema_migrations WHERE version = 10`} {
		if _, err := st.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	if st, err = store.Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for id, want := range map[string]string{"pag_bywriter": "Can", "pag_bysystem": "Oya"} {
		n, err := st.Node(ctx, "site_a", id)
		if err != nil {
			t.Fatal(err)
		}
		if n.Author.Name != want {
			t.Errorf("%s: author %+v, want %s", id, n.Author, want)
		}
	}
	// A new version by someone else keeps the author.
	n, _ := st.Node(ctx, "site_a", "pag_bywriter")
	n.Body.Title = "Edited"
	n.Hash = content.Hash(n.Body)
	if err := st.SaveNode(ctx, n, 1, owner.Actor(), now); err != nil {
		t.Fatal(err)
	}
	if n, _ = st.Node(ctx, "site_a", "pag_bywriter"); n.Author.ID != writer.ID || n.Rev != 2 {
		t.Errorf("after an edit by the owner: author %+v rev %d", n.Author, n.Rev)
	}
}
