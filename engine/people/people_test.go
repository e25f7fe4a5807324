package people_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/identity"
	"studio/engine/internal/enginetest"
	"studio/engine/model/release"
	"studio/engine/people"
	"studio/engine/policy"
)

func newPeople(b *enginetest.Bundle) *people.People {
	return people.New(b.Eng, b.Store, b.Identity.SignIn)
}

const password = "correct horse battery"

func TestInviteAndAccept(t *testing.T) {
	b := enginetest.New(t)
	p := newPeople(b)
	ctx := context.Background()

	// Who may invite, and what: an Owner or Administrator, a person; an
	// Administrator gives no Owner role.
	for _, u := range []engine.User{b.Editor, b.Contributor} {
		_, _, err := p.Invite(ctx, u, b.Site.ID, "new@example.com", policy.Editor)
		enginetest.WantRefusal(t, err, engine.CodeForbidden, "")
	}
	byToken := b.Admin
	byToken.Scopes = policy.RoleScopes(policy.Admin)
	_, _, err := p.Invite(ctx, byToken, b.Site.ID, "new@example.com", policy.Editor)
	enginetest.WantRefusal(t, err, engine.CodeForbidden, "")
	_, _, err = p.Invite(ctx, b.Admin, b.Site.ID, "new@example.com", policy.Owner)
	enginetest.WantRefusal(t, err, people.CodeOwnerOnly, "role")
	_, _, err = p.Invite(ctx, b.Admin, b.Site.ID, "not an email", "emperor")
	if got := engine.Refusals(err); len(got) != 2 || got[0].Field != "email" || got[1].Field != "role" {
		t.Fatalf("bad email and role: %v, want both refused", err)
	}
	_, _, err = p.Invite(ctx, b.Admin, b.Site.ID, b.Editor.Email, policy.Author)
	enginetest.WantRefusal(t, err, people.CodeAlreadyMember, "email")
	if n := b.Count(t, `SELECT count(*) FROM invitations`); n != 0 {
		t.Fatalf("refused invitations wrote %d rows", n)
	}

	first, _, err := p.Invite(ctx, b.Admin, b.Site.ID, "new@example.com", policy.Author)
	if err != nil {
		t.Fatal(err)
	}
	secret, inv, err := p.Invite(ctx, b.Admin, b.Site.ID, "new@example.com", policy.Editor)
	if err != nil {
		t.Fatal(err)
	}
	if !inv.ExpiresAt.Equal(b.Clock.Now().Add(7 * 24 * time.Hour)) {
		t.Errorf("expires %v, want in 7 days", inv.ExpiresAt)
	}
	if strings.Contains(b.Dump(t), secret) || b.Count(t, `SELECT count(*) FROM invitations WHERE hash = ?`, secret) != 0 {
		t.Fatal("the secret is stored")
	}
	if _, err := p.Open(ctx, first); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("the replaced invitation still opens: %v", err)
	}
	if open, err := p.Invitations(ctx, b.Admin, b.Site.ID); err != nil || len(open) != 1 || open[0].ID != inv.ID {
		t.Fatalf("open invitations %+v, %v; want the newer one", open, err)
	}
	o, err := p.Open(ctx, secret)
	if err != nil || o.HasAccount || o.Invitation.Role != policy.Editor {
		t.Fatalf("open: %+v, %v", o, err)
	}

	// Bad fields are refused together, and nothing is written.
	_, err = p.Accept(ctx, secret, people.AcceptInput{Name: " ", Password: "short", Lang: "tr"})
	if got := engine.Refusals(err); len(got) != 2 {
		t.Fatalf("bad name and password: %v, want both refused", err)
	}
	if n := b.Count(t, `SELECT count(*) FROM users WHERE email = 'new@example.com'`); n != 0 {
		t.Fatal("a refused acceptance made the account")
	}
	u, err := p.Accept(ctx, secret, people.AcceptInput{Name: "Nur", Password: password, Lang: "tr"})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := b.Store.MemberByID(ctx, b.Site.ID, u.ID); err != nil || m.Role != policy.Editor || m.Lang != "tr" || m.Name != "Nur" {
		t.Fatalf("member %+v, %v", m, err)
	}
	if _, err := p.Accept(ctx, secret, people.AcceptInput{Name: "Nur", Password: password}); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("the link worked twice: %v", err)
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE action IN ('member.invited', 'member.joined')`); n != 3 {
		t.Errorf("%d audit rows, want 2 invitations and 1 join", n)
	}
}

// An invitation works for seven days; one revoked works no more.
func TestInvitationExpiresAndIsRevoked(t *testing.T) {
	b := enginetest.New(t)
	p := newPeople(b)
	ctx := context.Background()
	secret, _, err := p.Invite(ctx, b.Owner, b.Site.ID, "late@example.com", policy.Contributor)
	if err != nil {
		t.Fatal(err)
	}
	b.Clock.Set(b.Clock.Now().Add(people.InvitationLife - time.Second))
	if _, err := p.Open(ctx, secret); err != nil {
		t.Fatalf("a second before it expires: %v", err)
	}
	b.Clock.Set(b.Clock.Now().Add(time.Second))
	if _, err := p.Accept(ctx, secret, people.AcceptInput{Name: "Late", Password: password}); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("an expired link: %v", err)
	}
	secret, inv, err := p.Invite(ctx, b.Owner, b.Site.ID, "late@example.com", policy.Contributor)
	if err != nil {
		t.Fatal(err)
	}
	enginetest.WantRefusal(t, p.RevokeInvitation(ctx, b.Editor, b.Site.ID, inv.ID), engine.CodeForbidden, "")
	if err := p.RevokeInvitation(ctx, b.Owner, b.Site.ID, inv.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Open(ctx, secret); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("a revoked link: %v", err)
	}
	if err := p.RevokeInvitation(ctx, b.Owner, b.Site.ID, inv.ID); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("revoked twice: %v", err)
	}
}

// Someone with an account (on another site) joins with its password.
func TestAcceptWithAnExistingAccount(t *testing.T) {
	b := enginetest.New(t)
	p := newPeople(b)
	ctx := context.Background()
	other, err := b.Eng.CreateSite(ctx, "Other", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Identity.AddUser(ctx, b.Site.ID, "deniz@example.com", "Deniz", policy.Author, password, "en"); err != nil {
		t.Fatal(err)
	}
	owner := b.Owner
	owner.SiteID = other.ID
	if err := b.Store.AddMember(ctx, other.ID, owner.ID, policy.Owner, b.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	secret, _, err := p.Invite(ctx, owner, other.ID, "deniz@example.com", policy.Editor)
	if err != nil {
		t.Fatal(err)
	}
	if o, err := p.Open(ctx, secret); err != nil || !o.HasAccount {
		t.Fatalf("open: %+v, %v; want an existing account", o, err)
	}
	_, err = p.Accept(ctx, secret, people.AcceptInput{Password: "not the password"})
	enginetest.WantRefusal(t, err, identity.CodeBadCredentials, "")
	u, err := p.Accept(ctx, secret, people.AcceptInput{Password: password})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := b.Store.Memberships(ctx, u.ID)
	if err != nil || len(ms) != 2 {
		t.Fatalf("memberships %+v, %v; want both sites", ms, err)
	}
	for _, m := range ms {
		if want := map[string]policy.Role{b.Site.ID: policy.Author, other.ID: policy.Editor}[m.SiteID]; m.Role != want {
			t.Errorf("role on %s: %s, want %s", m.SiteID, m.Role, want)
		}
	}
}

func TestSetRole(t *testing.T) {
	b := enginetest.New(t)
	p := newPeople(b)
	ctx := context.Background()
	enginetest.WantRefusal(t, p.SetRole(ctx, b.Owner, b.Site.ID, b.Owner.ID, policy.Editor), people.CodeOwnMembership, "")
	enginetest.WantRefusal(t, p.SetRole(ctx, b.Admin, b.Site.ID, b.Owner.ID, policy.Editor), people.CodeOwnerOnly, "")
	enginetest.WantRefusal(t, p.SetRole(ctx, b.Admin, b.Site.ID, b.Editor.ID, policy.Owner), people.CodeOwnerOnly, "role")
	enginetest.WantRefusal(t, p.SetRole(ctx, b.Editor, b.Site.ID, b.Contributor.ID, policy.Author), engine.CodeForbidden, "")
	enginetest.WantRefusal(t, p.SetRole(ctx, b.Admin, b.Site.ID, b.Editor.ID, "emperor"), "bad_role", "role")
	if err := p.SetRole(ctx, b.Admin, b.Site.ID, "user_nobody", policy.Editor); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("not a member: %v", err)
	}
	if err := p.SetRole(ctx, b.Admin, b.Site.ID, b.Editor.ID, policy.Contributor); err != nil {
		t.Fatal(err)
	}
	if m, err := b.Store.MemberByID(ctx, b.Site.ID, b.Editor.ID); err != nil || m.Role != policy.Contributor {
		t.Fatalf("after the change: %+v, %v", m, err)
	}
	if err := p.SetRole(ctx, b.Owner, b.Site.ID, b.Admin.ID, policy.Owner); err != nil {
		t.Fatalf("an Owner makes another: %v", err)
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'member.role_changed'`); n != 2 {
		t.Errorf("%d audit rows, want 2", n)
	}
}

// A removed member's waiting requests are denied at once, and what they
// approved lapses at its time (§11.8).
func TestRemoveDeniesRequestsAndApprovalsLapse(t *testing.T) {
	b := enginetest.New(t)
	p := newPeople(b)
	ctx := context.Background()
	asked := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00")
	if asked.State != release.StateAwaitingApproval {
		t.Fatalf("the contributor's release is %s, want awaiting approval", asked.State)
	}
	other := b.CreateNode(t, b.Site.ID, release.KindContentEntry,
		content.Body{Title: "Approved", Slug: "approved", Status: content.StatusDraft, Text: "x"})
	approved := b.Schedule(t, b.Editor, other, "2026-11-02", "09:00")

	enginetest.WantRefusal(t, p.Remove(ctx, b.Contributor, b.Site.ID, b.Editor.ID), engine.CodeForbidden, "")
	enginetest.WantRefusal(t, p.Remove(ctx, b.Admin, b.Site.ID, b.Admin.ID), people.CodeOwnMembership, "")
	enginetest.WantRefusal(t, p.Remove(ctx, b.Admin, b.Site.ID, b.Owner.ID), people.CodeOwnerOnly, "")
	for _, u := range []engine.User{b.Contributor, b.Editor} {
		if err := p.Remove(ctx, b.Admin, b.Site.ID, u.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Store.MemberByID(ctx, b.Site.ID, u.ID); !errors.Is(err, engine.ErrNotFound) {
			t.Fatalf("%s is still a member: %v", u.Name, err)
		}
	}
	if got := b.Release(t, asked.ID); got.State != release.StateDraft {
		t.Errorf("the removed requester's release is %s, want back to draft", got.State)
	}
	if n := b.Count(t, `SELECT count(*) FROM approvals WHERE release_id = ? AND status = 'denied'`, asked.ID); n != 1 {
		t.Errorf("%d denied requests, want 1", n)
	}
	b.Clock.Set(time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)) // 09:00 in Istanbul
	b.Tick(t)
	got := b.Release(t, approved.ID)
	if got.State != release.StateExpired || got.Outcome == nil || got.Outcome.Reason != "approval_lost" {
		t.Errorf("the removed approver's release: %s %+v, want expired approval_lost", got.State, got.Outcome)
	}
	if _, ok := b.Live(t)[other.ID]; ok {
		t.Error("the removed approver's release went live")
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'member.removed'`); n != 2 {
		t.Errorf("%d audit rows, want 2", n)
	}
}

// A reset link works once, for 24 hours, and a newer one replaces it.
func TestResetLinkExpires(t *testing.T) {
	b := enginetest.New(t)
	p := newPeople(b)
	ctx := context.Background()
	secret, _, err := p.ResetLink(ctx, b.Owner, b.Site.ID, b.Editor.ID)
	if err != nil {
		t.Fatal(err)
	}
	b.Clock.Set(b.Clock.Now().Add(people.ResetLife - time.Second))
	if u, err := p.OpenReset(ctx, secret); err != nil || u.ID != b.Editor.ID {
		t.Fatalf("a second before it expires: %+v, %v", u, err)
	}
	b.Clock.Set(b.Clock.Now().Add(time.Second))
	if _, _, err := p.Reset(ctx, secret, password); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("an expired link: %v", err)
	}
	if _, err := p.OpenReset(ctx, "studio_inv_"+secret[len("studio_rst_"):]); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("a reset secret under another prefix: %v", err)
	}
	enginetest.WantRefusal(t, func() error { _, _, err := p.ResetLink(ctx, b.Editor, b.Site.ID, b.Contributor.ID); return err }(),
		engine.CodeForbidden, "")
}
