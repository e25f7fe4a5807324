package agents_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/agents"
	"studio/engine/automations"
	"studio/engine/internal/enginetest"
	"studio/engine/policy"
)

type testBundle struct {
	*enginetest.Bundle
	ag  *agents.Agents
	aut *automations.Automations
}

func newBundle(tb testing.TB) *testBundle {
	b := enginetest.New(tb)
	return &testBundle{Bundle: b, ag: agents.New(b.Store, b.Eng), aut: automations.New(b.Store, b.Eng)}
}

func (b *testBundle) mint(tb testing.TB, u engine.User, in agents.KeyInput) (agents.Key, string) {
	tb.Helper()
	k, secret, err := b.ag.Mint(context.Background(), u, b.Site.ID, in)
	if err != nil {
		tb.Fatalf("mint %+v as %s: %v", in, u.Role, err)
	}
	return k, secret
}

func (b *testBundle) setRole(tb testing.TB, u engine.User, role policy.Role) {
	tb.Helper()
	b.Exec(tb, `UPDATE memberships SET role = ? WHERE user_id = ?`, string(role), u.ID)
}

func TestMintAndAuthenticate(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	k, secret := b.mint(t, b.Editor, agents.KeyInput{Name: "  Weekly planner ", Mode: policy.ModeEdits})
	if k.Name != "Weekly planner" || !strings.HasPrefix(k.ID, "agk_") || k.OwnerID != b.Editor.ID {
		t.Fatalf("key = %+v", k)
	}
	if !strings.HasPrefix(secret, agents.SecretPrefix) || len(secret) < len(agents.SecretPrefix)+43 {
		t.Fatalf("secret %q: want sta_… with 256 bits", secret)
	}
	// Defaults for edits (§10.1): reads, schedules:write, content:write.
	want := []policy.Scope{policy.ContentRead, policy.ContentWrite, policy.SchedulesRead, policy.SchedulesWrite}
	if !slices.Equal(k.Scopes, want) {
		t.Fatalf("scopes = %v, want %v", k.Scopes, want)
	}
	// Only the hash is stored, never the secret.
	if n := b.Count(t, `SELECT count(*) FROM agent_keys WHERE hash = ? OR hash LIKE ?`, secret, "%"+secret[len(agents.SecretPrefix):]+"%"); n != 0 {
		t.Fatal("the secret is stored")
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'agent.key.create' AND details LIKE ?`, "%"+k.ID+"%"); n != 1 {
		t.Fatalf("agent.key.create audit rows = %d", n)
	}
	u, err := b.ag.Authenticate(ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	if u.ID != b.Editor.ID || u.Role != policy.Editor || u.Agent == nil || u.Agent.KeyID != k.ID || u.Agent.KeyName != k.Name ||
		u.Agent.Mode != policy.ModeEdits || u.Agent.AutomationID != "" {
		t.Fatalf("user = %+v agent %+v", u, u.Agent)
	}
	if !slices.Equal(u.Scopes, want) {
		t.Fatalf("call scopes = %v", u.Scopes)
	}
	if a := u.Actor(); a.Kind != "agent" || a.ID != k.ID {
		t.Fatalf("actor = %+v", a)
	}
	// An agent cannot mint keys.
	if _, _, err := b.ag.Mint(ctx, u, b.Site.ID, agents.KeyInput{Name: "x", Mode: policy.ModePlan}); err == nil {
		t.Fatal("an agent minted a key")
	}
}

func TestAuthenticateRefusesWithOneCode(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	k, secret := b.mint(t, b.Author, agents.KeyInput{Name: "Drafts", Mode: policy.ModeManual})
	other := b.AddUser(t, "Gone", policy.Editor)
	_, goneSecret := b.mint(t, other, agents.KeyInput{Name: "Orphan", Mode: policy.ModePlan})
	// The owner leaves the site: their key acts for nobody there.
	b.Exec(t, `DELETE FROM memberships WHERE user_id = ?`, other.ID)
	flipped := []byte(secret)
	if flipped[len(flipped)-1] == 'A' {
		flipped[len(flipped)-1] = 'B'
	} else {
		flipped[len(flipped)-1] = 'A'
	}
	cases := map[string]string{
		"empty":        "",
		"no prefix":    strings.TrimPrefix(secret, agents.SecretPrefix),
		"a token":      "studio_pat_" + secret,
		"truncated":    secret[:len(secret)-1],
		"wrong random": string(flipped),
		"unknown id":   agents.SecretPrefix + "ZZZZZZZZZZZZZZZZ" + secret[len(agents.SecretPrefix)+16:],
		"owner left":   goneSecret,
	}
	for name, s := range cases {
		_, err := b.ag.Authenticate(ctx, s)
		enginetest.WantRefusal(t, err, agents.CodeUnauthorized, "")
		_ = name
	}
	// Revoke stops it at once.
	if _, err := b.ag.Authenticate(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if err := b.ag.Revoke(ctx, b.Author, b.Site.ID, k.ID); err != nil {
		t.Fatal(err)
	}
	_, err := b.ag.Authenticate(ctx, secret)
	enginetest.WantRefusal(t, err, agents.CodeUnauthorized, "")
	// Twice is no error, and writes nothing more.
	before := b.Dump(t)
	if err := b.ag.Revoke(ctx, b.Author, b.Site.ID, k.ID); err != nil {
		t.Fatal(err)
	}
	if b.Dump(t) != before {
		t.Fatal("a second revoke wrote")
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'agent.key.revoke'`); n != 1 {
		t.Fatalf("revoke audit rows = %d", n)
	}
}

func TestRefusedMintChangesNothing(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	agentUser := b.Editor
	agentUser.Agent = &engine.AgentCall{KeyID: "agk_x", Mode: policy.ModeAuto}
	cases := []struct {
		name        string
		u           engine.User
		in          agents.KeyInput
		code, field string
	}{
		{"empty name", b.Editor, agents.KeyInput{Name: "  ", Mode: policy.ModePlan}, agents.CodeBadKeyName, "name"},
		{"long name", b.Editor, agents.KeyInput{Name: strings.Repeat("é", 121), Mode: policy.ModePlan}, agents.CodeBadKeyName, "name"},
		{"two lines", b.Editor, agents.KeyInput{Name: "a\nb", Mode: policy.ModePlan}, agents.CodeBadKeyName, "name"},
		{"bypass", b.Owner, agents.KeyInput{Name: "k", Mode: policy.ModeBypass}, agents.CodeBadMode, "mode"},
		{"unknown mode", b.Owner, agents.KeyInput{Name: "k", Mode: "yolo"}, agents.CodeBadMode, "mode"},
		{"no mode", b.Owner, agents.KeyInput{Name: "k"}, agents.CodeBadMode, "mode"},
		{"author auto", b.Author, agents.KeyInput{Name: "k", Mode: policy.ModeAuto}, agents.CodeModeAboveRole, "mode"},
		{"contributor auto", b.Contributor, agents.KeyInput{Name: "k", Mode: policy.ModeAuto}, agents.CodeModeAboveRole, "mode"},
		{"person scope", b.Owner, agents.KeyInput{Name: "k", Mode: policy.ModePlan, Scopes: []policy.Scope{policy.AutomationsManage}}, agents.CodeBadAgentScope, "scopes"},
		{"settings", b.Owner, agents.KeyInput{Name: "k", Mode: policy.ModePlan, Scopes: []policy.Scope{policy.SiteSettings}}, agents.CodeBadAgentScope, "scopes"},
		{"unknown scope", b.Owner, agents.KeyInput{Name: "k", Mode: policy.ModePlan, Scopes: []policy.Scope{"root"}}, agents.CodeBadAgentScope, "scopes"},
		{"author schedules:write", b.Author, agents.KeyInput{Name: "k", Mode: policy.ModeEdits, Scopes: []policy.Scope{policy.SchedulesWrite}}, agents.CodeScopeAboveRole, "scopes"},
		{"author releases:publish", b.Author, agents.KeyInput{Name: "k", Mode: policy.ModeEdits, Scopes: []policy.Scope{policy.SchedulesRead, policy.ReleasesPublish}}, agents.CodeScopeAboveRole, "scopes"},
		{"contributor publish own", b.Contributor, agents.KeyInput{Name: "k", Mode: policy.ModeEdits, Scopes: []policy.Scope{policy.ReleasesPublishOwn}}, agents.CodeScopeAboveRole, "scopes"},
		{"an agent", agentUser, agents.KeyInput{Name: "k", Mode: policy.ModePlan}, engine.CodeForbidden, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b.RefuseChange(t, c.code, c.field, func() error {
				_, s, err := b.ag.Mint(ctx, c.u, b.Site.ID, c.in)
				if s != "" {
					t.Error("a refused mint returned a secret")
				}
				return err
			})
		})
	}
}

// TestAuthenticateNarrowsProperty: for every role the key was minted in,
// every scope set within it, every mode and every role the owner holds at
// the call (promotion, demotion), the call's scopes are within the key's
// and within the owner's current role, and its mode within the key's and
// the current role's cap.
func TestAuthenticateNarrowsProperty(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(13, 19))
	for _, minted := range policy.Roles {
		owner := b.AddUser(t, "Owner-"+string(minted), minted)
		offered := agents.OfferedScopes(minted)
		for i := 0; i < 12; i++ {
			var chosen []policy.Scope
			for _, s := range offered {
				if rng.IntN(2) == 0 {
					chosen = append(chosen, s)
				}
			}
			modes := agents.Modes()
			mode := modes[rng.IntN(len(modes))]
			if slices.Index(modes, mode) > slices.Index(modes, agents.ModeCap(minted)) {
				mode = agents.ModeCap(minted)
			}
			b.setRole(t, owner, minted)
			k, secret := b.mint(t, owner, agents.KeyInput{Name: fmt.Sprint("k", i), Mode: mode, Scopes: chosen})
			for _, now := range policy.Roles {
				b.setRole(t, owner, now)
				u, err := b.ag.Authenticate(ctx, secret)
				if err != nil {
					t.Fatal(err)
				}
				if u.Role != now {
					t.Fatalf("role = %s, want %s", u.Role, now)
				}
				for _, s := range u.Scopes {
					if !slices.Contains(policy.Expand(k.Scopes), s) {
						t.Fatalf("%s key %v as %s: call holds %s, not the key's", minted, k.Scopes, now, s)
					}
					if !slices.Contains(policy.Expand(policy.RoleScopes(now)), s) {
						t.Fatalf("%s key %v as %s: call holds %s, not the role's", minted, k.Scopes, now, s)
					}
				}
				// Nothing the key and the role both hold is lost.
				for _, s := range k.Scopes {
					if policy.Holds(now, s) && !slices.Contains(u.Scopes, s) {
						t.Fatalf("%s key %v as %s: call lost %s", minted, k.Scopes, now, s)
					}
				}
				m := u.Agent.Mode
				if slices.Index(modes, m) > slices.Index(modes, k.Mode) || slices.Index(modes, m) > slices.Index(modes, agents.ModeCap(now)) {
					t.Fatalf("%s key mode %s as %s: call mode %s", minted, k.Mode, now, m)
				}
			}
		}
	}
}

func TestDemotedOwnerNarrowsOnNextCall(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	_, secret := b.mint(t, b.Editor, agents.KeyInput{Name: "Auto", Mode: policy.ModeAuto})
	u, err := b.ag.Authenticate(ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	if u.Agent.Mode != policy.ModeAuto || !slices.Contains(u.Scopes, policy.SchedulesWrite) || !slices.Contains(u.Scopes, policy.ReleasesPublish) {
		t.Fatalf("editor call = %v %s", u.Scopes, u.Agent.Mode)
	}
	b.setRole(t, b.Editor, policy.Author)
	u, err = b.ag.Authenticate(ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	want := []policy.Scope{policy.ContentRead, policy.ContentWrite, policy.SchedulesRead, policy.SchedulesWriteOwn, policy.ReleasesPublishOwn}
	if !slices.Equal(u.Scopes, want) || u.Agent.Mode != policy.ModeEdits || u.Role != policy.Author {
		t.Fatalf("after demotion: %v %s, want %v edits", u.Scopes, u.Agent.Mode, want)
	}
	if u.Passes(policy.SchedulesWrite) && u.Level(policy.SchedulesWrite) == policy.LevelAny {
		t.Fatal("a demoted owner's key still writes any schedule")
	}
}

func TestDefaultScopes(t *testing.T) {
	cases := []struct {
		role policy.Role
		mode policy.Mode
		want []policy.Scope
	}{
		{policy.Editor, policy.ModePlan, []policy.Scope{policy.ContentRead, policy.SchedulesRead}},
		{policy.Editor, policy.ModeManual, []policy.Scope{policy.ContentRead, policy.SchedulesRead, policy.SchedulesWrite}},
		{policy.Author, policy.ModeManual, []policy.Scope{policy.ContentRead, policy.SchedulesRead, policy.SchedulesWriteOwn}},
		{policy.Author, policy.ModeEdits, []policy.Scope{policy.ContentRead, policy.ContentWrite, policy.SchedulesRead, policy.SchedulesWriteOwn}},
		{policy.Owner, policy.ModeAuto, []policy.Scope{policy.ContentRead, policy.ContentWrite, policy.SchedulesRead, policy.SchedulesWrite, policy.ReleasesPublish}},
	}
	for _, c := range cases {
		if got := policy.DefaultAgentScopes(c.mode, c.role); !slices.Equal(got, c.want) {
			t.Errorf("%s %s: %v, want %v", c.role, c.mode, got, c.want)
		}
	}
	for _, r := range policy.Roles {
		for _, m := range agents.Modes() {
			for _, s := range policy.DefaultAgentScopes(m, r) {
				if !slices.Contains(agents.OfferedScopes(r), s) {
					t.Errorf("%s %s default %s is not offered", r, m, s)
				}
			}
		}
	}
}

func TestLastUsedAtMostOnceAMinute(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	k, secret := b.mint(t, b.Author, agents.KeyInput{Name: "k", Mode: policy.ModePlan})
	used := func() string {
		return b.Text(t, `SELECT COALESCE(last_used_at, '-') FROM agent_keys WHERE id = ?`, k.ID)
	}
	if _, err := b.ag.Authenticate(ctx, secret); err != nil {
		t.Fatal(err)
	}
	first := used()
	if first == "-" {
		t.Fatal("last use not recorded")
	}
	b.Clock.Advance(30 * time.Second)
	if _, err := b.ag.Authenticate(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if used() != first {
		t.Fatal("last use written twice within a minute")
	}
	b.Clock.Advance(31 * time.Second)
	if _, err := b.ag.Authenticate(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if used() == first {
		t.Fatal("last use not written after a minute")
	}
}

func TestKeysAndRevokeWho(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	ka, _ := b.mint(t, b.Author, agents.KeyInput{Name: "Author's", Mode: policy.ModePlan})
	ke, _ := b.mint(t, b.Editor, agents.KeyInput{Name: "Editor's", Mode: policy.ModePlan})
	list := func(u engine.User) []string {
		ks, err := b.ag.Keys(ctx, u, b.Site.ID)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, k := range ks {
			out = append(out, k.ID)
		}
		return out
	}
	if got := list(b.Author); !slices.Equal(got, []string{ka.ID}) {
		t.Fatalf("author sees %v", got)
	}
	if got := list(b.Admin); len(got) != 2 {
		t.Fatalf("admin sees %v", got)
	}
	// Someone else's key is not found, and nothing changes.
	before := b.Dump(t)
	for _, err := range []error{b.ag.Revoke(ctx, b.Author, b.Site.ID, ke.ID), b.ag.Revoke(ctx, b.Editor, b.Site.ID, "agk_nothing")} {
		if !errors.Is(err, engine.ErrNotFound) {
			t.Fatalf("revoke someone else's or none: %v, want not found", err)
		}
	}
	if b.Dump(t) != before {
		t.Fatal("a refused revoke changed the database")
	}
	// An Administrator revokes anyone's.
	if err := b.ag.Revoke(ctx, b.Admin, b.Site.ID, ke.ID); err != nil {
		t.Fatal(err)
	}
	ks, _ := b.ag.Keys(ctx, b.Editor, b.Site.ID)
	if len(ks) != 1 || !ks[0].Revoked() {
		t.Fatalf("editor's keys after revoke = %+v", ks)
	}
}

func TestAutomationKey(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	au, err := b.aut.CreateAutomation(ctx, b.Editor, b.Site.ID, "Weekly drafts", automations.JobAgentTask, "FREQ=WEEKLY;BYDAY=MO", "2026-11-09T09:00")
	if err != nil {
		t.Fatal(err)
	}
	builtin, err := b.aut.CreateAutomation(ctx, b.Editor, b.Site.ID, "Links", "builtin:broken-links", "FREQ=DAILY", "2026-11-03T03:00")
	if err != nil {
		t.Fatal(err)
	}
	b.RefuseChange(t, agents.CodeNotAgentTask, "", func() error {
		_, _, err := b.ag.MintForAutomation(ctx, b.Editor, b.Site.ID, builtin.ID, policy.ModeEdits, nil)
		return err
	})
	b.RefuseChange(t, engine.CodeForbidden, "", func() error {
		_, _, err := b.ag.MintForAutomation(ctx, b.Author, b.Site.ID, au.ID, policy.ModeEdits, nil)
		return err
	})
	k1, s1, err := b.ag.MintForAutomation(ctx, b.Editor, b.Site.ID, au.ID, policy.ModeEdits, nil)
	if err != nil {
		t.Fatal(err)
	}
	if k1.AutomationID != au.ID || k1.Name != "Weekly drafts" {
		t.Fatalf("key = %+v", k1)
	}
	u, err := b.ag.Authenticate(ctx, s1)
	if err != nil || u.Agent.AutomationID != au.ID {
		t.Fatalf("authenticate: %+v %v", u.Agent, err)
	}
	// Minting again (a take-over) revokes the old key: one key, one automation.
	k2, s2, err := b.ag.MintForAutomation(ctx, b.Admin, b.Site.ID, au.ID, policy.ModeManual, []policy.Scope{policy.SchedulesRead})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.ag.Authenticate(ctx, s1)
	enginetest.WantRefusal(t, err, agents.CodeUnauthorized, "")
	if n := b.Count(t, `SELECT count(*) FROM agent_keys WHERE automation_id = ? AND revoked_at IS NULL`, au.ID); n != 1 {
		t.Fatalf("live keys of the automation = %d", n)
	}
	if _, err := b.ag.Authenticate(ctx, s2); err != nil {
		t.Fatal(err)
	}
	// Revoking the automation's key makes it broken (key-revoked), in the same act.
	if err := b.ag.Revoke(ctx, b.Admin, b.Site.ID, k2.ID); err != nil {
		t.Fatal(err)
	}
	got, err := b.aut.Get(ctx, b.Editor, b.Site.ID, au.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != automations.AutomationBroken || got.PausedReason != "key-revoked" || got.Rev != au.Rev+1 || got.DueAt != nil {
		t.Fatalf("automation after revoke = %s %s rev %d due %v", got.State, got.PausedReason, got.Rev, got.DueAt)
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'automation.broken'`); n != 1 {
		t.Fatalf("automation.broken rows = %d", n)
	}
	_, err = b.ag.Authenticate(ctx, s2)
	enginetest.WantRefusal(t, err, agents.CodeUnauthorized, "")
}

// TestOwnerRemoved: removing a key's owner (§11.8) revokes every key they
// own, breaks their agent task (owner-removed) in the same act, and leaves
// other people's keys alone; only an Owner or Administrator may.
func TestOwnerRemoved(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	au, err := b.aut.CreateAutomation(ctx, b.Editor, b.Site.ID, "Weekly drafts", automations.JobAgentTask, "FREQ=WEEKLY;BYDAY=MO", "2026-11-09T09:00")
	if err != nil {
		t.Fatal(err)
	}
	_, taskSecret, err := b.ag.MintForAutomation(ctx, b.Editor, b.Site.ID, au.ID, policy.ModeEdits, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, deskSecret := b.mint(t, b.Editor, agents.KeyInput{Name: "Desk", Mode: policy.ModeManual})
	_, otherSecret := b.mint(t, b.Admin, agents.KeyInput{Name: "Admin's", Mode: policy.ModeManual})
	b.RefuseChange(t, engine.CodeForbidden, "", func() error { return b.ag.OwnerRemoved(ctx, b.Editor, b.Site.ID, b.Editor.ID) })
	if err := b.ag.OwnerRemoved(ctx, b.Admin, b.Site.ID, b.Editor.ID); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{taskSecret, deskSecret} {
		_, err := b.ag.Authenticate(ctx, s)
		enginetest.WantRefusal(t, err, agents.CodeUnauthorized, "")
	}
	if _, err := b.ag.Authenticate(ctx, otherSecret); err != nil {
		t.Fatalf("another person's key: %v", err)
	}
	got, err := b.aut.Get(ctx, b.Admin, b.Site.ID, au.ID)
	if err != nil || got.State != automations.AutomationBroken || got.PausedReason != "owner-removed" {
		t.Fatalf("the removed owner's task: %s %s %v", got.State, got.PausedReason, err)
	}
}
