package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"studio/engine"
	"studio/engine/identity"
	"studio/store"
)

// TestUserAddRefusesTrivialPasswords: `studio user add` refuses a trivial
// password with a sentence in the account's language and creates nothing
// (issue 10 item 4); the demo's password still passes.
func TestUserAddRefusesTrivialPasswords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data := t.TempDir()
	addSite(t, data)
	for _, tc := range []struct{ password, lang, want string }{
		{"şifreşifr", "en", "Choose a password of at least 10 characters."}, // 11 bytes, 9 characters
		{"aaaaaaaaaaaaaa", "en", "One character repeated is easy to guess."},
		{"Password123", "en", "This password is on the list of common passwords"},
		{"qwertyuiop", "tr", "Bu parola, ilk denenen yaygın parolalar listesinde."},
		{"kısa", "tr", "En az 10 karakterlik bir parola seçin."},
		{strings.Repeat("ğü", 19), "en", "at most 72 bytes"},
	} {
		err := run(ctx, []string{"user", "add", "--email", "new@example.com", "--name", "New", "--lang", tc.lang,
			"--password-stdin", "--data", data}, strings.NewReader(tc.password+"\n"), io.Discard, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("user add with %q: %v, want %q", tc.password, err, tc.want)
		}
	}
	st, err := store.Open(ctx, filepath.Join(data, "studio.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.UserByEmail(ctx, "new@example.com"); err == nil {
		t.Error("an account with a trivial password was created")
	}
	st.Close()
	if err := run(ctx, []string{"user", "add", "--email", "demo@example.com", "--name", "Demo", "--password-stdin", "--data", data},
		strings.NewReader(demoPassword+"\n"), io.Discard, nil); err != nil {
		t.Errorf("the demo password is refused: %v", err)
	}
}

// TestUserAddToASecondSite: `studio user add --site` of someone who has an
// account for another site makes them a member with the role given, asks
// no password and keeps theirs; a second time it says they are a member.
func TestUserAddToASecondSite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data := t.TempDir()
	addSite(t, data)
	if err := run(ctx, []string{"site", "add", "--name", "Güney Haber", "--zone", "Europe/Istanbul", "--host", "guney.example", "--data", data},
		nil, io.Discard, nil); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(data, "studio.db"))
	if err != nil {
		t.Fatal(err)
	}
	sites, err := st.Sites(ctx)
	st.Close()
	if err != nil || len(sites) != 2 {
		t.Fatal(sites, err)
	}
	add := func(site, role string, stdin io.Reader) (string, error) {
		var out strings.Builder
		err := run(ctx, []string{"user", "add", "--email", "ece@example.com", "--name", "Ece", "--role", role, "--site", site,
			"--password-stdin", "--data", data}, stdin, &out, nil)
		return out.String(), err
	}
	if _, err := add(sites[0].ID, "editor", strings.NewReader(demoPassword+"\n")); err != nil {
		t.Fatal(err)
	}
	// No password on standard input: none is asked.
	out, err := add(sites[1].ID, "author", strings.NewReader(""))
	if err != nil || !strings.Contains(out, "as author of Güney Haber; their password is unchanged") {
		t.Fatalf("the second site: %q, %v", out, err)
	}
	if _, err := add(sites[1].ID, "owner", strings.NewReader("")); err == nil || !strings.Contains(err.Error(), "already a member") {
		t.Errorf("a member again: %v", err)
	}
	st, err = store.Open(ctx, filepath.Join(data, "studio.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	u, _, err := st.UserByEmail(ctx, "ece@example.com")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := st.Memberships(ctx, u.ID)
	if err != nil || len(ms) != 2 {
		t.Fatalf("memberships %+v %v", ms, err)
	}
	roles := map[string]string{}
	for _, m := range ms {
		roles[m.SiteID] = string(m.Role)
	}
	if roles[sites[0].ID] != "editor" || roles[sites[1].ID] != "author" {
		t.Errorf("roles %v", roles)
	}
	if _, err := identity.New(engine.New(st, systemClock{}, nil), st, nil).SignIn(ctx,
		identity.SignInTry{Email: "ece@example.com", Password: demoPassword}); err != nil {
		t.Errorf("the first password no longer signs in: %v", err)
	}
}
