package identity_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"studio/engine"
)

func TestTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	first, deploy, err := b.Identity.CreateToken(ctx, b.Editor, "deploy script", nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Clock.Advance(time.Minute)
	_, backup, err := b.Identity.CreateToken(ctx, b.Editor, "backup", nil)
	if err != nil {
		t.Fatal(err)
	}
	authors, _, err := b.Identity.CreateToken(ctx, b.Author, "author's", nil)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("ListsOnlyTheirOwnNewestFirst", func(t *testing.T) {
		list, err := b.Identity.Tokens(ctx, b.Editor)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[0].ID != backup.ID || list[1].ID != deploy.ID || list[1].Name != "deploy script" {
			t.Fatalf("tokens = %+v", list)
		}
		if list[1].LastUsed != nil {
			t.Errorf("an unused token has LastUsed %v", list[1].LastUsed)
		}
	})

	t.Run("LastUsed", func(t *testing.T) {
		if _, err := b.Identity.TokenUser(ctx, first); err != nil {
			t.Fatal(err)
		}
		list, _ := b.Identity.Tokens(ctx, b.Editor)
		if used := list[1].LastUsed; used == nil || !used.Equal(b.Eng.Now()) {
			t.Errorf("LastUsed = %v, want %v", used, b.Eng.Now())
		}
	})

	t.Run("SomeoneElsesIsNotFound", func(t *testing.T) {
		before := b.Count(t, `SELECT count(*) FROM tokens WHERE revoked_at IS NULL`)
		for _, id := range []string{deploy.ID, "tok_doesnotexist"} {
			if err := b.Identity.RevokeToken(ctx, b.Author, id); !errors.Is(err, engine.ErrNotFound) {
				t.Errorf("author revokes %s: %v, want ErrNotFound", id, err)
			}
		}
		if after := b.Count(t, `SELECT count(*) FROM tokens WHERE revoked_at IS NULL`); after != before {
			t.Errorf("%d live tokens, was %d", after, before)
		}
		if _, err := b.Identity.TokenUser(ctx, first); err != nil {
			t.Errorf("the editor's token stopped working: %v", err)
		}
	})

	t.Run("RevokedStopsAtOnce", func(t *testing.T) {
		if err := b.Identity.RevokeToken(ctx, b.Editor, deploy.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Identity.TokenUser(ctx, first); !errors.Is(err, engine.ErrNotFound) {
			t.Fatalf("a revoked token authenticates: %v", err)
		}
		list, _ := b.Identity.Tokens(ctx, b.Editor)
		if len(list) != 1 || list[0].ID != backup.ID {
			t.Errorf("tokens after revoking = %+v", list)
		}
		if _, err := b.Identity.TokenUser(ctx, authors); err != nil {
			t.Errorf("another person's token stopped working: %v", err)
		}
		if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'token.revoke' AND details LIKE ?`, "%"+deploy.ID+"%"); n != 1 {
			t.Errorf("%d audit rows for the revocation, want 1", n)
		}
	})

	t.Run("TwiceIsNoError", func(t *testing.T) {
		if err := b.Identity.RevokeToken(ctx, b.Editor, deploy.ID); err != nil {
			t.Fatal(err)
		}
		if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'token.revoke'`); n != 1 {
			t.Errorf("%d audit rows after revoking twice, want 1", n)
		}
	})
}
