package releases_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/gates"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/releases"
)

// abilityState is a release state the property test builds.
type abilityState string

const (
	stDraft     abilityState = "draft"
	stAwaiting  abilityState = "awaiting_approval"
	stScheduled abilityState = "scheduled"
	stCanceled  abilityState = "canceled"
	stPublished abilityState = "published"
	stExpired   abilityState = "expired" // nobody approved it by its time
	stMissed    abilityState = "missed"  // the ticker came more than an hour late
)

// abilityAct is one act of ReleaseAbilities and the use case that does it.
type abilityAct struct {
	name string
	flag func(releases.ReleaseAbilities) bool
	do   func(b *testBundle, u engine.User, r releases.ReleaseRow, day string) error
}

var abilityActs = []abilityAct{
	{"Change", func(a releases.ReleaseAbilities) bool { return a.Change }, func(b *testBundle, u engine.User, r releases.ReleaseRow, _ string) error {
		_, err := b.Releases.RenameRelease(context.Background(), u, b.Site.ID, r.ID, r.Rev, "Renamed")
		return err
	}},
	{"Move", func(a releases.ReleaseAbilities) bool { return a.Move }, func(b *testBundle, u engine.User, r releases.ReleaseRow, day string) error {
		_, err := b.Releases.Move(context.Background(), u, b.Site.ID, r.ID, r.Rev, day, "11:00")
		return err
	}},
	{"Unschedule", func(a releases.ReleaseAbilities) bool { return a.Unschedule }, func(b *testBundle, u engine.User, r releases.ReleaseRow, _ string) error {
		return b.Releases.Unschedule(context.Background(), u, b.Site.ID, r.ID, r.Rev)
	}},
	{"Cancel", func(a releases.ReleaseAbilities) bool { return a.Cancel }, func(b *testBundle, u engine.User, r releases.ReleaseRow, _ string) error {
		return b.Releases.Cancel(context.Background(), u, b.Site.ID, r.ID, r.Rev)
	}},
	{"PublishNow", func(a releases.ReleaseAbilities) bool { return a.PublishNow }, func(b *testBundle, u engine.User, r releases.ReleaseRow, _ string) error {
		_, err := b.Sched.PublishNow(context.Background(), u, b.Site.ID, r.ID, r.Rev)
		return err
	}},
	{"Approve", func(a releases.ReleaseAbilities) bool { return a.Approve }, func(b *testBundle, u engine.User, r releases.ReleaseRow, _ string) error {
		qs, err := b.Releases.Approvals(context.Background(), b.Owner, b.Site.ID)
		if err != nil {
			return err
		}
		for _, q := range qs {
			if q.Release.ID == r.ID {
				_, err := b.Releases.Approve(context.Background(), u, b.Site.ID, q.Request.ID)
				return err
			}
		}
		return fmt.Errorf("no waiting request")
	}},
	{"Undo", func(a releases.ReleaseAbilities) bool { return a.Undo }, func(b *testBundle, u engine.User, r releases.ReleaseRow, _ string) error {
		_, err := b.Releases.PlanUndo(context.Background(), u, b.Site.ID, r.ID)
		return err
	}},
	{"ResolveConflict", func(a releases.ReleaseAbilities) bool { return a.ResolveConflict }, func(b *testBundle, u engine.User, r releases.ReleaseRow, day string) error {
		_, err := b.Releases.Repin(context.Background(), u, b.Site.ID, r.ID, r.Rev, day, "11:00")
		return err
	}},
}

// TestReleaseAbilitiesAreTheUseCasesRule: for every role × ownership
// (the person's own nodes in a release they made, or another
// contributor's in theirs) × state × act, the flag ReleaseAbilities gives
// equals whether the use case accepts the act. Buttons are drawn from the
// flags, so a button shown and the engine's refusal can never differ.
func TestReleaseAbilitiesAreTheUseCasesRule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	roles := []policy.Role{policy.Owner, policy.Admin, policy.Editor, policy.Author, policy.Contributor}
	for _, role := range roles {
		for _, mine := range []bool{true, false} {
			for _, state := range []abilityState{stDraft, stAwaiting, stScheduled, stCanceled, stPublished, stExpired, stMissed} {
				name := fmt.Sprintf("%s/mine=%v/%s", role, mine, state)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					b := newBundle(t)
					u := b.AddUser(t, "Tester", role)
					other := b.AddUser(t, "Deniz", policy.Contributor)
					maker, author := other, other
					if mine {
						maker, author = u, u
					}
					for i, act := range abilityActs {
						r, ok := b.releaseIn(t, maker, author, state, i)
						if !ok {
							t.Skipf("%s cannot bring a release of their own to %s", role, state)
						}
						got, err := b.Releases.AbilitiesOfRelease(ctx, u, r)
						if err != nil {
							t.Fatal(err)
						}
						byID, err := b.Releases.ReleaseAbilitiesByID(ctx, u, b.Site.ID, []string{r.ID})
						if err != nil || byID[r.ID] != got {
							t.Fatalf("by id %+v, one %+v (%v)", byID[r.ID], got, err)
						}
						day := b.Clock.Now().Add(72 * time.Hour).In(istanbul(t)).Format("2006-01-02")
						err = act.do(b, u, r, day)
						if act.flag(got) != (err == nil) {
							t.Errorf("%s: ability %v, use case answered %v", act.name, act.flag(got), err)
						}
					}
				})
			}
		}
	}
}

// TestConflictedReleaseAbilitiesAreTheUseCasesRule is the same property
// for a release that met a conflict at its time (§6.4): an editor's release
// of the contributor's article, whose live version an Undo changed.
func TestConflictedReleaseAbilitiesAreTheUseCasesRule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, role := range []policy.Role{policy.Owner, policy.Admin, policy.Editor, policy.Author, policy.Contributor} {
		for _, act := range abilityActs {
			t.Run(fmt.Sprintf("%s/%s", role, act.name), func(t *testing.T) {
				t.Parallel()
				b := newBundle(t)
				u := b.AddUser(t, "Tester", role)
				r := b.conflict(t, true, b.Editor, nil).second
				got, err := b.Releases.AbilitiesOfRelease(ctx, u, r)
				if err != nil {
					t.Fatal(err)
				}
				day := b.Clock.Now().Add(72 * time.Hour).In(istanbul(t)).Format("2006-01-02")
				err = act.do(b, u, r, day)
				if act.flag(got) != (err == nil) {
					t.Errorf("%s: ability %v, use case answered %v", act.name, act.flag(got), err)
				}
			})
		}
	}
}

func istanbul(t *testing.T) *time.Location {
	loc, err := time.LoadLocation("Europe/Istanbul")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// releaseIn makes a one-article release by maker of an article by author
// and brings it to state; false when maker cannot (an approver's own
// schedule never waits for approval).
func (b *testBundle) releaseIn(t *testing.T, maker, author engine.User, state abilityState, i int) (releases.ReleaseRow, bool) {
	t.Helper()
	ctx := context.Background()
	n, err := b.Nodes.CreateNode(ctx, author, b.Site.ID, release.KindContentEntry, content.Body{
		Title: fmt.Sprintf("Article %d", i), Slug: fmt.Sprintf("article-%d-%d", len(state), i), Status: content.StatusDraft, Text: "Text."})
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.Releases.NewRelease(ctx, maker, b.Site.ID, "", []string{n.ID})
	if err != nil {
		t.Fatalf("draft by %s: %v", maker.Role, err)
	}
	if state == stDraft {
		return r, true
	}
	if state == stCanceled {
		if err := b.Releases.Cancel(ctx, maker, b.Site.ID, r.ID, r.Rev); err != nil {
			t.Fatal(err)
		}
		return b.Release(t, r.ID), true
	}
	at := b.Clock.Now().Add(48 * time.Hour).In(istanbul(t))
	r, err = b.Releases.ScheduleRelease(ctx, maker, b.Site.ID, r.ID, r.Rev, at.Format("2006-01-02"), "09:00")
	if err != nil {
		t.Fatal(err)
	}
	if state == stAwaiting {
		return r, r.State == release.StateAwaitingApproval
	}
	// A release whose time passes: the clock moves on, and the releases of
	// the acts before, already judged, run or fail with it.
	runLate := func(late time.Duration, want release.State) (releases.ReleaseRow, bool) {
		b.Clock.Set(*r.ExecuteAt)
		b.Clock.Advance(late)
		b.Tick(t)
		r := b.Release(t, r.ID)
		if r.State != want {
			t.Fatalf("state %s, want %s", r.State, want)
		}
		return r, true
	}
	if state == stExpired {
		if r.State != release.StateAwaitingApproval {
			return r, false
		}
		return runLate(time.Minute, release.StateExpired)
	}
	if r.State == release.StateAwaitingApproval {
		q := b.waitingRequest(t, r.ID)
		if r, err = b.Releases.Approve(ctx, b.Owner, b.Site.ID, q.ID); err != nil {
			t.Fatal(err)
		}
	}
	if state == stScheduled {
		return r, true
	}
	if state == stMissed {
		return runLate(release.LateLimit+time.Minute, release.StateMissed)
	}
	if _, err := b.Sched.PublishNow(ctx, b.Owner, b.Site.ID, r.ID, r.Rev); err != nil {
		t.Fatal(err)
	}
	r = b.Release(t, r.ID)
	if r.State != release.StatePublished {
		t.Fatalf("state %s, want published", r.State)
	}
	return r, true
}

// TestNodeAbilitiesAreTheUseCasesRule: for every role × whose node, the
// node's flags equal whether saving, scheduling, gating and deleting it
// are accepted.
func TestNodeAbilitiesAreTheUseCasesRule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, role := range []policy.Role{policy.Owner, policy.Admin, policy.Editor, policy.Author, policy.Contributor} {
		for _, mine := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/mine=%v", role, mine), func(t *testing.T) {
				t.Parallel()
				b := newBundle(t)
				u := b.AddUser(t, "Tester", role)
				author := b.AddUser(t, "Deniz", policy.Contributor)
				if mine {
					author = u
				}
				fresh := func(i int) releases.NodeDetail {
					n, err := b.Nodes.CreateNode(ctx, author, b.Site.ID, release.KindContentEntry, content.Body{
						Title: "Node", Slug: fmt.Sprintf("node-%d", i), Status: content.StatusDraft})
					if err != nil {
						t.Fatal(err)
					}
					return b.Node(t, n.ID)
				}
				day := b.Clock.Now().Add(48 * time.Hour).In(istanbul(t)).Format("2006-01-02")
				acts := []struct {
					name string
					flag func(releases.NodeAbilities) bool
					do   func(d releases.NodeDetail) error
				}{
					{"Edit", func(a releases.NodeAbilities) bool { return a.Edit }, func(d releases.NodeDetail) error {
						_, err := b.Nodes.EditNode(ctx, u, b.Site.ID, d.ID, d.Rev, content.Edit{Title: "Edited", Slug: d.Body.Slug, Status: content.StatusDraft})
						return err
					}},
					{"Schedule", func(a releases.NodeAbilities) bool { return a.Schedule }, func(d releases.NodeDetail) error {
						_, err := b.Releases.ScheduleNode(ctx, u, releases.ScheduleInput{SiteID: b.Site.ID, NodeID: d.ID, ExpectedRev: d.Rev, Date: day, Time: "09:00"})
						return err
					}},
					{"Gate", func(a releases.NodeAbilities) bool { return a.Gate }, func(d releases.NodeDetail) error {
						until := b.Clock.Now().Add(96 * time.Hour)
						_, err := b.Gates.PlanGates(ctx, u, gates.GateInput{SiteID: b.Site.ID, NodeID: d.ID, ExpectedRev: d.Rev,
							Until: gates.GateTime{Change: true, At: &until}, Apply: gates.GateApplyWithNextPublish})
						return err
					}},
					{"Delete", func(a releases.NodeAbilities) bool { return a.Delete }, func(d releases.NodeDetail) error {
						return b.Nodes.DeleteNode(ctx, u, b.Site.ID, d.ID, d.Rev)
					}},
				}
				for i, act := range acts {
					d := fresh(i)
					got := b.Releases.NodeAbilities(u, d)
					err := act.do(d)
					if act.flag(got) != (err == nil) {
						t.Errorf("%s: ability %v, use case answered %v", act.name, act.flag(got), err)
					}
				}
			})
		}
	}
}

// TestOwnLevelByRole is §10.2's own column per role: Authors and
// Contributors schedule only their own nodes; an Author approves their
// own work; nobody's level changes for their own content.
func TestOwnLevelByRole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	other := b.AddUser(t, "Deniz", policy.Contributor)
	for i, tc := range []struct {
		u           engine.User
		own, others release.State // "" = refused
	}{
		{b.Owner, release.StateScheduled, release.StateScheduled},
		{b.Editor, release.StateScheduled, release.StateScheduled},
		{b.Author, release.StateScheduled, ""},
		{b.Contributor, release.StateAwaitingApproval, ""},
	} {
		t.Run(string(tc.u.Role), func(t *testing.T) {
			mk := func(by engine.User, slug string) content.Node {
				n, err := b.Nodes.CreateNode(ctx, by, b.Site.ID, release.KindContentEntry, content.Body{Title: slug, Slug: slug, Status: content.StatusDraft})
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			for _, c := range []struct {
				by   engine.User
				want release.State
			}{{tc.u, tc.own}, {other, tc.others}} {
				n := mk(c.by, fmt.Sprintf("n-%d-%s", i, strings.ToLower(c.by.Name)))
				r, err := b.Releases.ScheduleNode(ctx, tc.u, releases.ScheduleInput{SiteID: b.Site.ID, NodeID: n.ID, ExpectedRev: n.Rev, Date: "2026-11-04", Time: "09:00"})
				if c.want == "" {
					wantRefusal(t, err, engine.CodeForbidden, "")
					if _, err := b.Releases.NewRelease(ctx, tc.u, b.Site.ID, "", []string{n.ID}); err == nil {
						t.Error("a draft of someone else's node was accepted")
					}
					continue
				}
				if err != nil || r.State != c.want {
					t.Fatalf("schedule %s's node: %s %v, want %s", c.by.Name, r.State, err, c.want)
				}
			}
		})
	}
}

// TestTokenScopesNarrowedOnEveryCall: a token holds the scopes chosen at
// creation, within the role; a scope above the role is refused; when the
// person is demoted the token loses scopes at once.
func TestTokenScopesNarrowedOnEveryCall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	if _, _, err := b.Identity.CreateToken(ctx, b.Author, "too much", []policy.Scope{policy.SchedulesWrite}); err == nil {
		t.Fatal("an Author's token got schedules:write (any)")
	}
	if _, _, err := b.Identity.CreateToken(ctx, b.Editor, "none", []policy.Scope{}); err == nil {
		t.Fatal("a token without scopes was made")
	}
	if _, _, err := b.Identity.CreateToken(ctx, b.Editor, "person only", []policy.Scope{policy.AutomationsManage}); err == nil {
		t.Fatal("a token got a person-only scope")
	}
	secret, tok, err := b.Identity.CreateToken(ctx, b.Editor, "read and schedule", []policy.Scope{policy.SchedulesRead, policy.SchedulesWrite, policy.ContentRead})
	if err != nil {
		t.Fatal(err)
	}
	if len(tok.Scopes) != 3 {
		t.Fatalf("scopes %v", tok.Scopes)
	}
	u, err := b.Identity.TokenUser(ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	if u.Level(policy.SchedulesWrite) != policy.LevelAny || u.Passes(policy.ContentWrite) || u.Passes(policy.ReleasesPublish) {
		t.Fatalf("token levels: write %s, content:write %v, publish %v", u.Level(policy.SchedulesWrite),
			u.Passes(policy.ContentWrite), u.Passes(policy.ReleasesPublish))
	}
	// The token may not edit: content:write was not chosen.
	if _, err := b.Nodes.EditNode(ctx, u, b.Site.ID, b.Article.ID, b.Article.Rev, content.Edit{Title: "x", Slug: "x", Status: content.StatusDraft}); err == nil {
		t.Fatal("a token without content:write edited")
	}
	// The editor is demoted to Contributor: the same token now schedules
	// at the own level only.
	if _, err := b.Store.DB().ExecContext(ctx, `UPDATE memberships SET role = 'contributor' WHERE user_id = ?`, b.Editor.ID); err != nil {
		t.Fatal(err)
	}
	if u, err = b.Identity.TokenUser(ctx, secret); err == nil {
		u, err = b.Identity.OnSite(ctx, u, b.Site.ID) // as the API acts on the site of its URL
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := u.Level(policy.SchedulesWrite); got != policy.LevelOwn {
		t.Fatalf("after the demotion schedules:write is %q, want own", got)
	}
	_, err = b.Releases.ScheduleNode(ctx, u, releases.ScheduleInput{SiteID: b.Site.ID, NodeID: b.Article.ID, ExpectedRev: b.Article.Rev, Date: "2026-11-04", Time: "09:00"})
	wantRefusal(t, err, engine.CodeForbidden, "")
}
