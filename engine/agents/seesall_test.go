package agents_test

import (
	"context"
	"testing"

	"studio/engine"
	"studio/engine/agents"
	"studio/engine/policy"
)

// Who sees every key of the site, and revokes any: an Owner or an
// Administrator. The Agents page says "every key of the site" by this
// answer, and Keys lists by it.
func TestSeesAll(t *testing.T) {
	for _, c := range []struct {
		role policy.Role
		want bool
	}{
		{policy.Owner, true},
		{policy.Admin, true},
		{policy.Editor, false},
		{policy.Author, false},
		{policy.Contributor, false},
	} {
		if got := agents.SeesAll(engine.User{ID: "user_x", Role: c.role}); got != c.want {
			t.Errorf("%s sees all: %v, want %v", c.role, got, c.want)
		}
	}

	// The answer is Keys' own: the whole list for those who see all, their
	// own keys for the others.
	b := newBundle(t)
	ctx := context.Background()
	b.mint(t, b.Author, agents.KeyInput{Name: "Author's", Mode: policy.ModePlan})
	b.mint(t, b.Editor, agents.KeyInput{Name: "Editor's", Mode: policy.ModePlan})
	for _, u := range []engine.User{b.Owner, b.Admin, b.Editor, b.Author} {
		ks, err := b.ag.Keys(ctx, u, b.Site.ID)
		if err != nil {
			t.Fatal(err)
		}
		all := len(ks) == 2
		if all != agents.SeesAll(u) {
			t.Errorf("%s: Keys lists %d keys, SeesAll = %v", u.Role, len(ks), agents.SeesAll(u))
		}
	}
}
