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

func TestTokenCreate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data := t.TempDir()
	if err := run(ctx, []string{"demo", "--data", data}, nil, io.Discard, nil); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(ctx, []string{"token", "create", "--user", "editor@demo.test", "--name", "deploy script", "--data", data}, nil, &out, nil); err != nil {
		t.Fatal(err)
	}
	secret := strings.SplitN(out.String(), "\n", 2)[0]
	if !strings.HasPrefix(secret, "studio_pat_") || len(secret) < 40 {
		t.Fatalf("secret = %q", secret)
	}
	st, err := store.Open(ctx, filepath.Join(data, "studio.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	u, err := identity.New(engine.New(st, systemClock{}, nil), st, nil).TokenUser(ctx, secret)
	if err != nil || u.Email != "editor@demo.test" {
		t.Fatalf("token acts as %+v (%v)", u, err)
	}
	var stored int
	if err := st.DB().QueryRow(`SELECT count(*) FROM tokens WHERE hash = ?`, secret).Scan(&stored); err != nil || stored != 0 {
		t.Fatalf("the secret itself is stored (%d, %v)", stored, err)
	}
	for _, bad := range [][]string{{"--user", "nobody@demo.test", "--name", "x"}, {"--user", "editor@demo.test", "--name", ""}} {
		if err := run(ctx, append(append([]string{"token", "create"}, bad...), "--data", data), nil, io.Discard, nil); err == nil {
			t.Errorf("token create %v: accepted", bad)
		}
	}
}
