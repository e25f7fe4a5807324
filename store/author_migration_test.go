package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/policy"
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
	// The database as it was before 0010: no author column, 0010 not run,
	// and the global role 0025 moved to memberships.
	for _, q := range []string{`ALTER TABLE nodes DROP COLUMN author_id`, `DELETE FROM schema_migrations WHERE version = 10`,
		`ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT 'contributor'`, `UPDATE users SET role = 'owner' WHERE id = 'user_owner'`} {
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

// TestMembershipsMigration: migration 0025 gives everybody, on every site,
// the global role they held, and the global role is gone.
func TestMembershipsMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "studio.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC)
	for _, id := range []string{"site_a", "site_b"} {
		if err := st.CreateSite(ctx, engine.Site{ID: id, Name: id, TimeZone: "UTC", Hash: "h"}, now); err != nil {
			t.Fatal(err)
		}
	}
	roles := map[string]policy.Role{"user_oya": policy.Owner, "user_elif": policy.Editor, "user_can": policy.Contributor}
	for id := range roles {
		if err := st.CreateUser(ctx, engine.User{ID: id, Email: id + "@example.com", Name: id, Lang: "en"}, "x", now); err != nil {
			t.Fatal(err)
		}
	}
	// The database as it was before 0025: a global role, no memberships.
	qs := []string{`DROP TABLE memberships`, `DELETE FROM schema_migrations WHERE version = 25`,
		`ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT ''`}
	for _, q := range qs {
		if _, err := st.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for id, role := range roles {
		if _, err := st.DB().ExecContext(ctx, `UPDATE users SET role = ? WHERE id = ?`, string(role), id); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	if st, err = store.Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for id, role := range roles {
		for _, site := range []string{"site_a", "site_b"} {
			u, err := st.MemberByID(ctx, site, id)
			if err != nil || u.Role != role || u.SiteID != site {
				t.Errorf("%s on %s: %+v, %v; want %s", id, site, u, err, role)
			}
		}
		if ms, err := st.Memberships(ctx, id); err != nil || len(ms) != 2 {
			t.Errorf("%s: memberships %+v, %v; want both sites", id, ms, err)
		}
	}
	var n int
	if err := st.DB().QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('users') WHERE name = 'role'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("users.role still there (%d, %v)", n, err)
	}
	// Someone who joined no site has no role, and is no member of any.
	if err := st.CreateUser(ctx, engine.User{ID: "user_new", Email: "new@example.com", Name: "New", Lang: "en"}, "x", now); err != nil {
		t.Fatal(err)
	}
	if u, err := st.UserByID(ctx, "user_new"); err != nil || u.Role != "" {
		t.Errorf("new account: %+v, %v; want no role", u, err)
	}
	if _, err := st.MemberByID(ctx, "site_a", "user_new"); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("new account on site_a: %v, want not found", err)
	}
	if _, err := st.DB().ExecContext(ctx, `UPDATE memberships SET role = 'contributor' WHERE user_id = 'user_elif' AND site_id = 'site_a'`); err != nil {
		t.Fatal(err)
	}
	if u, err := st.UserByID(ctx, "user_elif"); err != nil || u.Role != policy.Editor || u.SiteID != "" {
		t.Errorf("account read without a site: %+v, %v; want its highest role", u, err)
	}
}

// TestExpiredCreatorRemovedMigration: 0038 rewrites a stored outcome's
// reason key_lost to §4.2's creator_removed, and leaves other outcomes be.
func TestExpiredCreatorRemovedMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "studio.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC)
	if err := st.CreateSite(ctx, engine.Site{ID: "site_a", Name: "A", TimeZone: "UTC", Hash: "h"}, now); err != nil {
		t.Fatal(err)
	}
	outcomes := map[string]string{
		"rel_lost": `{"kind":"expired","at":"2026-11-02T05:00:00.000Z","reason":"key_lost"}`,
		"rel_late": `{"kind":"expired","at":"2026-11-02T05:00:00.000Z","reason":"auto_window_ended"}`,
	}
	for id, o := range outcomes {
		if _, err := st.DB().ExecContext(ctx, `INSERT INTO releases (id, site_id, state, hash, outcome, created_by, rev, created_at, updated_at)
			VALUES (?, 'site_a', 'expired', 'rl1:x', ?, '{}', 1, '2026-11-02T05:00:00.000Z', '2026-11-02T05:00:00.000Z')`, id, o); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.DB().ExecContext(ctx, `DELETE FROM schema_migrations WHERE version = 38`); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if st, err = store.Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for id, want := range map[string]string{"rel_lost": "creator_removed", "rel_late": "auto_window_ended"} {
		var got string
		if err := st.DB().QueryRowContext(ctx, `SELECT json_extract(outcome, '$.reason') FROM releases WHERE id = ?`, id).Scan(&got); err != nil || got != want {
			t.Errorf("%s: reason %q (%v), want %s", id, got, err, want)
		}
	}
}
