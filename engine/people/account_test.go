package people_test

import (
	"context"
	"errors"
	"testing"

	"studio/engine"
	"studio/engine/internal/enginetest"
	"studio/engine/people"
	"studio/engine/policy"
)

// partner is a second site, on which the bundle's people hold the roles
// given (and nothing else).
func partner(t *testing.T, b *enginetest.Bundle, roles map[string]policy.Role) engine.Site {
	t.Helper()
	ctx := context.Background()
	site, err := b.Eng.CreateSite(ctx, "Partner Post", "Europe/Istanbul")
	if err != nil {
		t.Fatal(err)
	}
	for id, role := range roles {
		if err := b.Store.AddMember(ctx, site.ID, id, role, b.Clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	return site
}

// accountState is everything of an account a reset link could change:
// its password hash and epoch, its reset links, sessions, tokens and agent
// keys.
func accountState(t *testing.T, b *enginetest.Bundle, userID string) string {
	t.Helper()
	return b.Text(t, `SELECT
		(SELECT password_hash || ':' || session_epoch FROM users WHERE id = ?1) || ' | ' ||
		(SELECT count(*) || ':' || count(used_at) FROM password_resets WHERE user_id = ?1) || ' | ' ||
		(SELECT count(*) || ':' || count(ended_at) FROM user_sessions WHERE user_id = ?1) || ' | ' ||
		(SELECT count(*) || ':' || count(revoked_at) FROM tokens WHERE user_id = ?1) || ' | ' ||
		(SELECT count(*) || ':' || count(revoked_at) FROM agent_keys WHERE owner_id = ?1)`, userID)
}

// A password reset link opens the whole account, with its roles on every
// site: only someone who manages the person on every one of their sites
// makes one (issue 36). Elsewhere it is refused with member_elsewhere,
// audited on the site, and nothing of the account changes; the People
// page's abilities say the same. Role changes stay per site.
func TestResetLinkNeedsTheAccountManagedEverywhere(t *testing.T) {
	b := enginetest.New(t)
	p := newPeople(b)
	ctx := context.Background()
	// On Partner Post: Elif (an Editor here) is the Owner; Aras (an Author
	// here) an Administrator; Can (a Contributor here) an Editor. Oya, the
	// Owner here, is an Administrator there; Ali is not there at all.
	other := partner(t, b, map[string]policy.Role{b.Editor.ID: policy.Owner, b.Author.ID: policy.Admin,
		b.Contributor.ID: policy.Editor, b.Owner.ID: policy.Admin})
	if _, err := b.Identity.StartSession(ctx, b.Editor, "Firefox/140.0"); err != nil {
		t.Fatal(err)
	}

	refused := []struct {
		name      string
		by        engine.User
		target    engine.User
		code      string
		elsewhere bool
	}{
		{"AdministratorOfTheOwnerThere", b.Admin, b.Editor, people.CodeMemberElsewhere, true},
		{"OwnerOfTheOwnerThere", b.Owner, b.Editor, people.CodeMemberElsewhere, true},
		{"AdministratorOfAnAdministratorThere", b.Admin, b.Author, people.CodeMemberElsewhere, true},
		{"AdministratorOfAnEditorThere", b.Admin, b.Contributor, people.CodeMemberElsewhere, true},
		{"AdministratorOfAnOwner", b.Admin, b.Owner, people.CodeOwnerOnly, false},
		{"OwnOne", b.Admin, b.Admin, people.CodeOwnMembership, false},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			before := accountState(t, b, c.target.ID)
			audited := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'member.password_reset_refused'`)
			_, _, err := p.ResetLink(ctx, c.by, b.Site.ID, c.target.ID)
			enginetest.WantRefusal(t, err, c.code, "")
			if after := accountState(t, b, c.target.ID); after != before {
				t.Errorf("a refused reset link changed the account:\n%s\n%s", before, after)
			}
			if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'member.password_reset_refused' AND site_id = ?
				AND json_extract(actor, '$.id') = ? AND json_extract(details, '$.userId') = ? AND json_extract(details, '$.refusal') = ?`,
				b.Site.ID, c.by.ID, c.target.ID, c.code); n != 1 {
				t.Errorf("%d audit rows of the refusal on the site, want 1", n)
			}
			if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'member.password_reset_refused'`); n != audited+1 {
				t.Errorf("%d refusal rows after, %d before: want one more", n, audited)
			}
			// The page offers what the use case allows.
			can := abilitiesOf(t, p, c.by, b.Site.ID, c.target.ID)
			if can.ResetPassword || can.Elsewhere != c.elsewhere {
				t.Errorf("abilities %+v: want no reset, elsewhere %v", can, c.elsewhere)
			}
		})
	}

	// Role changes stay per site: the Administrator still changes the role
	// of the Owner of Partner Post here.
	if err := p.SetRole(ctx, b.Admin, b.Site.ID, b.Editor.ID, policy.Author); err != nil {
		t.Fatalf("a role change of a member of another site: %v", err)
	}
	if can := abilitiesOf(t, p, b.Admin, b.Site.ID, b.Editor.ID); !can.Manage {
		t.Errorf("abilities %+v: want the role change offered", can)
	}

	// Who manages the person everywhere makes the link: Oya, an
	// Administrator on Partner Post, resets Can (an Editor there) and Aras
	// (an Administrator there).
	for _, target := range []engine.User{b.Contributor, b.Author} {
		if can := abilitiesOf(t, p, b.Owner, b.Site.ID, target.ID); !can.ResetPassword || can.Elsewhere {
			t.Errorf("%s: abilities %+v, want the reset offered", target.Name, can)
		}
		if _, _, err := p.ResetLink(ctx, b.Owner, b.Site.ID, target.ID); err != nil {
			t.Fatalf("%s: %v", target.Name, err)
		}
	}
	// The Owner there needs an Owner there: once Oya is one, she resets Elif.
	elifThere := enginetest.On(b.Editor, other.ID)
	elifThere.Role = policy.Owner
	if err := p.SetRole(ctx, elifThere, other.ID, b.Owner.ID, policy.Owner); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.ResetLink(ctx, b.Owner, b.Site.ID, b.Editor.ID); err != nil {
		t.Fatalf("an Owner on both sites: %v", err)
	}
	// And a member of this site only is the Administrator's to reset, as before.
	if _, _, err := p.ResetLink(ctx, b.Admin, b.Site.ID, b.AddUser(t, "Nur", policy.Editor).ID); err != nil {
		t.Fatalf("a member of one site: %v", err)
	}
	if n := b.Count(t, `SELECT count(*) FROM password_resets`); n != 4 {
		t.Errorf("%d reset links, want 4", n)
	}
	// Someone not a member of the site is not found, and not audited.
	stranger := partner(t, b, nil)
	if _, err := b.Eng.Site(ctx, stranger.ID); err != nil {
		t.Fatal(err)
	}
	before := b.Count(t, `SELECT count(*) FROM audit`)
	if _, _, err := p.ResetLink(ctx, b.Admin, b.Site.ID, "user_nobody"); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("not a member: %v", err)
	}
	if n := b.Count(t, `SELECT count(*) FROM audit`); n != before {
		t.Errorf("an unknown member wrote %d audit rows", n-before)
	}
}

func abilitiesOf(t *testing.T, p *people.People, u engine.User, siteID, userID string) people.MemberAbilities {
	t.Helper()
	members, err := p.Members(context.Background(), u, siteID)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range members {
		if m.User.ID == userID {
			return m.Can
		}
	}
	t.Fatalf("%s is not listed", userID)
	return people.MemberAbilities{}
}
