package people_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"studio/engine"
	"studio/engine/internal/enginetest"
	"studio/engine/people"
	"studio/engine/policy"
)

// The roles a person may give are the People page's choices and Invite's
// rule at once: an Owner gives every role, anyone else all but Owner.
func TestGivableRoles(t *testing.T) {
	below := []policy.Role{policy.Admin, policy.Editor, policy.Author, policy.Contributor}
	for _, c := range []struct {
		role policy.Role
		want []policy.Role
	}{
		{policy.Owner, append([]policy.Role{policy.Owner}, below...)},
		{policy.Admin, below},
		{policy.Editor, below},
		{policy.Author, below},
		{policy.Contributor, below},
	} {
		if got := people.GivableRoles(engine.User{ID: "user_x", Role: c.role}); !slices.Equal(got, c.want) {
			t.Errorf("%s gives %v, want %v", c.role, got, c.want)
		}
	}

	// What the page offers is what Invite accepts, and nothing else.
	b := enginetest.New(t)
	p := newPeople(b)
	ctx := context.Background()
	for _, u := range []engine.User{b.Owner, b.Admin} {
		givable := people.GivableRoles(u)
		for i, role := range policy.Roles {
			_, _, err := p.Invite(ctx, u, b.Site.ID, fmt.Sprintf("%s-%d@example.com", u.Role, i), role)
			if slices.Contains(givable, role) {
				if err != nil {
					t.Errorf("%s invites as %s: %v", u.Role, role, err)
				}
				continue
			}
			enginetest.WantRefusal(t, err, people.CodeOwnerOnly, "role")
		}
	}
}
