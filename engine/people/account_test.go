package people_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"studio/engine"
	"studio/engine/agents"
	"studio/engine/identity"
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

// A reset ends everything that signs in as the account (issue 36): every
// session, every access token and every agent key the person owns, on
// every site, in one transaction with one audit row; an automation's own
// key stays. A password change ends the other sessions only.
func TestResetEndsEveryCredential(t *testing.T) {
	b := enginetest.New(t)
	p := newPeople(b)
	keys := agents.New(b.Store, b.Clock)
	ctx := context.Background()
	other := partner(t, b, map[string]policy.Role{b.Admin.ID: policy.Editor, b.Owner.ID: policy.Owner})
	var sids []string
	for _, ua := range []string{"Firefox/140.0", "Safari/604.1"} {
		sid, err := b.Identity.StartSession(ctx, b.Admin, ua)
		if err != nil {
			t.Fatal(err)
		}
		sids = append(sids, sid)
	}
	tokens := map[string]string{}
	for _, name := range []string{"Deploy script", "Feed importer"} {
		secret, tok, err := b.Identity.CreateToken(ctx, b.Admin, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		tokens[tok.ID] = secret
	}
	_, hereSecret, err := keys.Mint(ctx, b.Admin, b.Site.ID, agents.KeyInput{Name: "Desk", Mode: policy.ModePlan})
	if err != nil {
		t.Fatal(err)
	}
	_, thereSecret, err := keys.Mint(ctx, enginetest.On(b.Admin, other.ID), other.ID, agents.KeyInput{Name: "Partner desk", Mode: policy.ModePlan})
	if err != nil {
		t.Fatal(err)
	}
	_, taskSecret, err := keys.MintForNewAutomation(ctx, b.Admin, b.Site.ID, "aut_task", "Link fixer", policy.ModePlan, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Someone else's credentials stay whatever happens.
	if _, _, err := b.Identity.CreateToken(ctx, b.Editor, "Elif's script", nil); err != nil {
		t.Fatal(err)
	}

	secret, _, err := p.ResetLink(ctx, b.Owner, b.Site.ID, b.Admin.ID)
	if err != nil {
		t.Fatal(err)
	}
	// A refused password changes nothing.
	if _, _, err := p.Reset(ctx, secret, "short"); err == nil {
		t.Fatal("a short password was taken")
	}
	if n := b.Count(t, `SELECT count(*) FROM tokens WHERE revoked_at IS NOT NULL`); n != 0 {
		t.Fatalf("a refused reset revoked %d tokens", n)
	}
	u, ended, err := p.Reset(ctx, secret, "a freshly chosen secret")
	if err != nil {
		t.Fatal(err)
	}
	if ended.Sessions != 2 || len(ended.Tokens) != 2 || len(ended.AgentKeys) != 2 || u.SessionEpoch != ended.Epoch {
		t.Errorf("ended %+v (account epoch %d): want 2 sessions, 2 tokens, 2 agent keys", ended, u.SessionEpoch)
	}
	for id, s := range tokens {
		if _, err := b.Identity.TokenUser(ctx, s); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("token %s after the reset: %v", id, err)
		}
	}
	for _, s := range []string{hereSecret, thereSecret} {
		_, err := keys.Authenticate(ctx, s)
		enginetest.WantRefusal(t, err, agents.CodeUnauthorized, "")
	}
	if _, err := keys.Authenticate(ctx, taskSecret); err != nil {
		t.Errorf("the automation's own key after the reset: %v", err)
	}
	if n := b.Count(t, `SELECT count(*) FROM tokens WHERE user_id = ? AND revoked_at IS NULL`, b.Editor.ID); n != 1 {
		t.Errorf("someone else's tokens: %d live, want 1", n)
	}
	for _, sid := range sids {
		if _, err := b.Identity.SessionUser(ctx, b.Admin.ID, sid, b.Admin.SessionEpoch); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("session %s after the reset: %v", sid, err)
		}
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'account.password_reset'`); n != 1 {
		t.Errorf("%d audit rows of the reset, want 1", n)
	}
	var row struct {
		Sessions  int
		Tokens    []string
		AgentKeys []identity.RevokedKey
	}
	if err := json.Unmarshal([]byte(b.Text(t, `SELECT details FROM audit WHERE action = 'account.password_reset' AND coalesce(site_id, '') = ''`)), &row); err != nil {
		t.Fatal(err)
	}
	if row.Sessions != 2 || len(row.Tokens) != 2 || len(row.AgentKeys) != 2 || row.AgentKeys[0].SiteID == row.AgentKeys[1].SiteID {
		t.Errorf("the reset's audit row says %+v: want 2 sessions, 2 tokens and a key on each site", row)
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE action IN ('token.revoke', 'agent.key.revoke')`); n != 0 {
		t.Errorf("%d further audit rows, want the reset's one", n)
	}

	// A password change afterwards: the other sessions end, this one and
	// the new token and key stay.
	id := b.Identity
	this, err := id.StartSession(ctx, u, "Firefox/140.0")
	if err != nil {
		t.Fatal(err)
	}
	phone, err := id.StartSession(ctx, u, "Safari/604.1")
	if err != nil {
		t.Fatal(err)
	}
	newToken, _, err := id.CreateToken(ctx, enginetest.On(u, b.Site.ID), "New script", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, newKey, err := keys.Mint(ctx, enginetest.On(b.Admin, b.Site.ID), b.Site.ID, agents.KeyInput{Name: "New desk", Mode: policy.ModePlan})
	if err != nil {
		t.Fatal(err)
	}
	changed, err := id.ChangePassword(ctx, u, this, "a freshly chosen secret", "another fresh secret", "")
	if err != nil {
		t.Fatal(err)
	}
	if changed.Sessions != 1 || changed.Tokens != nil || changed.AgentKeys != nil {
		t.Errorf("a password change ended %+v, want the other session only", changed)
	}
	if _, err := id.SessionUser(ctx, u.ID, phone, u.SessionEpoch); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("the other session after the change: %v", err)
	}
	if err := id.KeepSession(ctx, u, this, changed.Epoch); err != nil {
		t.Fatal(err)
	}
	if _, err := id.SessionUser(ctx, u.ID, this, changed.Epoch); err != nil {
		t.Errorf("this session after the change: %v", err)
	}
	if _, err := id.TokenUser(ctx, newToken); err != nil {
		t.Errorf("the token after a password change: %v", err)
	}
	if _, err := keys.Authenticate(ctx, newKey); err != nil {
		t.Errorf("the agent key after a password change: %v", err)
	}
	ended2, err := id.EndOtherSessions(ctx, u, this)
	if err != nil || ended2.Sessions != 0 {
		t.Errorf("signing out everywhere else with no other session: %+v, %v", ended2, err)
	}
	if got := b.Text(t, `SELECT details FROM audit WHERE action = 'account.password_changed'`); got != `{"sessions":1}` {
		t.Errorf("the change's audit row: %s", got)
	}
}

// A reset link is checked again as it is used, on the account as it is
// then (issue 36): an Administrator's link for someone who worked only here
// stops working once that person becomes the Owner of another site, and a
// link made before the person changed their password no longer works
// either. Nothing of the account changes.
func TestResetLinkIsCheckedWhenUsed(t *testing.T) {
	b := enginetest.New(t)
	p := newPeople(b)
	ctx := context.Background()
	secret, _, err := p.ResetLink(ctx, b.Admin, b.Site.ID, b.Contributor.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.OpenReset(ctx, secret); err != nil {
		t.Fatalf("the link while the rule holds: %v", err)
	}
	partner(t, b, map[string]policy.Role{b.Contributor.ID: policy.Owner})
	before := accountState(t, b, b.Contributor.ID)
	if _, err := p.OpenReset(ctx, secret); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("opening the link after its person became an Owner elsewhere: %v", err)
	}
	if _, _, err := p.Reset(ctx, secret, "a brand new passphrase"); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("using it: %v", err)
	}
	if after := accountState(t, b, b.Contributor.ID); after != before {
		t.Fatalf("a refused reset changed the account:\n%s\n%s", before, after)
	}

	// A link for Ali, who then changes his own password: spent.
	secret, _, err = p.ResetLink(ctx, b.Admin, b.Site.ID, b.Author.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The store's write of a password change (ChangePassword's, once the
	// current password is right).
	if _, err := b.Store.EndSessions(ctx, identity.SessionsEnd{UserID: b.Author.ID, Hash: "$2a$new", At: b.Clock.Now(),
		Since: b.Clock.Now(), Audit: func(identity.Ended) engine.AuditEntry {
			return engine.AuditEntry{Action: "account.password_change", Actor: b.Author.Actor(), At: b.Clock.Now()}
		}}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.OpenReset(ctx, secret); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("a link made before its person changed their password: %v", err)
	}
}
