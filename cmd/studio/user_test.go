package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"studio/store"
)

// TestUserAddRefusesTrivialPasswords: `studio user add` refuses a trivial
// password with a sentence in the account's language and creates nothing
// (issue 10 item 4); the demo's password still passes.
func TestUserAddRefusesTrivialPasswords(t *testing.T) {
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
