package setup_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/fakeclock"
	"studio/engine/identity"
	"studio/engine/policy"
	"studio/engine/releases"
	"studio/engine/setup"
	"studio/store"
	"studio/store/storetest"
)

var start = time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)

type bundle struct {
	store *store.Store
	eng   *engine.Engine
	setup *setup.Setup
}

// empty is a real database with no site and no person: a first run.
func empty(t *testing.T) bundle {
	t.Helper()
	st, err := store.Open(context.Background(), storetest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	eng := engine.New(st, fakeclock.New(start), nil)
	return bundle{store: st, eng: eng, setup: setup.New(eng, st)}
}

func (b bundle) count(t *testing.T, table string) int {
	t.Helper()
	var n int
	if err := b.store.DB().QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func good() setup.Input {
	return setup.Input{SiteName: "Kuzey Haber", PublicURL: "https://kuzeyhaber.example", TimeZone: "Europe/Istanbul",
		SiteLang: "tr", OwnerName: "Zeynep Kaya", Email: "zeynep@kuzeyhaber.example", Password: "kestane kebap 1923", OwnerLang: "tr"}
}

func offer(t *testing.T, b bundle) string {
	t.Helper()
	token, err := b.setup.Offer(context.Background())
	if err != nil || len(token) < 40 {
		t.Fatalf("offer = %q, %v; want a long random token", token, err)
	}
	return token
}

// The whole first run: offered once, opened only by its token, every bad
// field refused together with nothing written, then set up once, after
// which the link opens nothing and is not offered again.
func TestFirstRunSetsUpTheSiteAndItsOwnerOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := empty(t)
	token := offer(t, b)
	if again := offer(t, b); again != token {
		t.Fatalf("a second offer made a new token: %q, then %q", token, again)
	}
	if other := offer(t, empty(t)); other == token {
		t.Fatal("two processes offered the same token")
	}
	// The last wrong token differs only in its first character (a random
	// token may itself begin with any letter, so pick one it does not).
	first := "x"
	if token[0] == 'x' {
		first = "y"
	}
	for _, wrong := range []string{"", token[:len(token)-1], token + "x", first + token[1:]} {
		if ok, err := b.setup.Open(ctx, wrong); ok || err != nil {
			t.Fatalf("Open(%q) = %v, %v; want closed", wrong, ok, err)
		}
		if _, _, err := b.setup.Install(ctx, wrong, good()); !errors.Is(err, setup.ErrInstalled) {
			t.Fatalf("Install with token %q: %v, want ErrInstalled", wrong, err)
		}
	}
	if ok, err := b.setup.Open(ctx, token); !ok || err != nil {
		t.Fatalf("Open(token) = %v, %v; want open", ok, err)
	}

	bad := setup.Input{SiteName: "  ", PublicURL: "ftp://news.example", TimeZone: "Europe/Atlantis", SiteLang: "de",
		OwnerName: "", Email: "zeynep at example", Password: "short", OwnerLang: "tr"}
	_, _, err := b.setup.Install(ctx, token, bad)
	got := map[string]string{}
	for _, e := range engine.Refusals(err) {
		got[e.Field] = e.Code
	}
	want := map[string]string{"siteName": setup.CodeBadSiteName, "publicUrl": setup.CodeBadPublicURL,
		"timeZone": releases.CodeUnknownZone, "siteLang": "bad_language", "email": "bad_email", "name": "bad_name",
		"password": identity.CodePasswordTooShort}
	if len(got) != len(want) {
		t.Fatalf("refusals %v, want one per field %v (err %v)", got, want, err)
	}
	for field, code := range want {
		if got[field] != code {
			t.Fatalf("field %s refused with %q, want %q (all: %v)", field, got[field], code, got)
		}
	}
	for _, table := range []string{"sites", "users", "audit"} {
		if n := b.count(t, table); n != 0 {
			t.Fatalf("a refused setup wrote %d rows to %s", n, table)
		}
	}
	for _, field := range []struct {
		name string
		set  func(*setup.Input)
		code string
	}{
		{"siteName", func(in *setup.Input) { in.SiteName = "Haber\x00" }, setup.CodeBadSiteName},
		{"publicUrl", func(in *setup.Input) { in.PublicURL = "https://news.example/?q=1" }, setup.CodeBadPublicURL},
		{"timeZone", func(in *setup.Input) { in.TimeZone = "" }, releases.CodeUnknownZone},
		{"password", func(in *setup.Input) { in.Password = "password123" }, identity.CodePasswordCommon},
	} {
		in := good()
		field.set(&in)
		refused := engine.Refusals(func() error { _, _, err := b.setup.Install(ctx, token, in); return err }())
		if len(refused) != 1 || refused[0].Field != field.name || refused[0].Code != field.code {
			t.Fatalf("%s alone: refusals %+v, want one %s", field.name, refused, field.code)
		}
	}

	owner, site, err := b.setup.Install(ctx, token, good())
	if err != nil {
		t.Fatal(err)
	}
	if owner.Role != policy.Owner || owner.Lang != "tr" || owner.Email != "zeynep@kuzeyhaber.example" {
		t.Fatalf("owner %+v", owner)
	}
	stored, err := b.store.Site(ctx, site.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Name != "Kuzey Haber" || stored.TimeZone != "Europe/Istanbul" || stored.Lang != "tr" ||
		stored.PublicURL != "https://kuzeyhaber.example" || stored.PublishedSnapshotID != "" || stored.Hash != engine.SiteHash(stored) {
		t.Fatalf("stored site %+v", stored)
	}
	people := identity.New(b.eng, b.store, nil)
	signedIn, err := people.SignIn(ctx, identity.SignInTry{Email: owner.Email, Password: good().Password, Client: "192.0.2.1"})
	if err != nil || signedIn.ID != owner.ID {
		t.Fatalf("the Owner cannot sign in with the password set up: %+v, %v", signedIn, err)
	}
	var action, actor string
	if err := b.store.DB().QueryRow(`SELECT action, actor FROM audit`).Scan(&action, &actor); err != nil || action != "studio.setup" {
		t.Fatalf("audit row %q by %s, %v", action, actor, err)
	}

	if ok, err := b.setup.Open(ctx, token); ok || err != nil {
		t.Fatalf("the spent token still opens the setup: %v, %v", ok, err)
	}
	if _, _, err := b.setup.Install(ctx, token, good()); !errors.Is(err, setup.ErrInstalled) {
		t.Fatalf("second setup: %v, want ErrInstalled", err)
	}
	if token, err := b.setup.Offer(ctx); token != "" || err != nil {
		t.Fatalf("an installed Studio offered a setup link %q, %v", token, err)
	}
	if n := b.count(t, "sites") + b.count(t, "users"); n != 2 {
		t.Fatalf("%d sites and people, want one of each", n)
	}
}

// A database with a person but no site (made with `studio user add`) is
// installed: the setup is not offered, and a token from before it is
// worth nothing.
func TestSetupIsNotOfferedOnceAnyoneExists(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := empty(t)
	token := offer(t, b)
	people := identity.New(b.eng, b.store, nil)
	if _, err := people.AddUser(ctx, "", "ops@example.com", "Ops", policy.Admin, "correct horse battery", "en"); err != nil {
		t.Fatal(err)
	}
	if got, err := b.setup.Offer(ctx); got != "" || err != nil {
		t.Fatalf("offer = %q, %v; want none", got, err)
	}
	if ok, _ := b.setup.Open(ctx, token); ok {
		t.Fatal("the token opens the setup of a Studio with a person in it")
	}
	if _, _, err := b.setup.Install(ctx, token, good()); !errors.Is(err, setup.ErrInstalled) {
		t.Fatalf("Install: %v, want ErrInstalled", err)
	}
	if n := b.count(t, "sites"); n != 0 {
		t.Fatalf("%d sites", n)
	}
}

// Two people submitting the form at once: one sets Studio up, the other is
// told it is set up already, and there is one site and one Owner.
func TestTwoSetupsAtOnceOneWins(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := empty(t)
	token := offer(t, b)
	const tries = 6
	errs := make([]error, tries)
	var wg sync.WaitGroup
	for i := range tries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := good()
			in.Email = string(rune('a'+i)) + in.Email
			_, _, errs[i] = b.setup.Install(ctx, token, in)
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, setup.ErrInstalled):
			t.Fatalf("a losing setup failed with %v, want ErrInstalled", err)
		}
	}
	if won != 1 || b.count(t, "sites") != 1 || b.count(t, "users") != 1 || b.count(t, "audit") != 1 {
		t.Fatalf("%d setups won; %d sites, %d people, %d audit rows; want one each", won,
			b.count(t, "sites"), b.count(t, "users"), b.count(t, "audit"))
	}
}

// CreateSite (issue 15): an Owner makes another site and becomes its
// Owner, in one transaction with its audit row; an Administrator, a token
// and an agent key may not; a host another site has is refused; the first
// site stays the default for unknown hosts.
func TestCreateSite(t *testing.T) {
	b := empty(t)
	ctx := context.Background()
	owner, first, err := b.setup.Install(ctx, offer(t, b), good())
	if err != nil {
		t.Fatal(err)
	}
	owner.Role, owner.SiteID = policy.Owner, first.ID
	in := setup.SiteInput{Name: "Güney Haber", PublicURL: "https://guney.example", TimeZone: "Europe/Istanbul", Lang: "tr"}

	admin, token, agent := owner, owner, owner
	admin.Role = policy.Admin
	token.Scopes = []policy.Scope{policy.SiteSettings}
	agent.Agent = &engine.AgentCall{KeyID: "agk_1", Mode: policy.ModeAuto}
	for name, u := range map[string]engine.User{"Administrator": admin, "Token": token, "AgentKey": agent, "NoSite": {ID: owner.ID, Role: policy.Owner}} {
		if _, err := b.setup.CreateSite(ctx, u, in); codeOf(err) != engine.CodeForbidden {
			t.Errorf("%s: %v, want forbidden", name, err)
		}
	}
	taken := in
	taken.PublicURL = "https://KuzeyHaber.example/"
	if _, err := b.setup.CreateSite(ctx, owner, taken); codeOf(err) != setup.CodePublicURLTaken {
		t.Errorf("the first site's host again: %v", err)
	}
	noURL := in
	noURL.PublicURL = ""
	if _, err := b.setup.CreateSite(ctx, owner, noURL); codeOf(err) != setup.CodeBadPublicURL {
		t.Errorf("no public URL: %v", err)
	}
	if n := b.count(t, "sites"); n != 1 {
		t.Fatalf("refused sites were written: %d sites", n)
	}

	site, err := b.setup.CreateSite(ctx, owner, in)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := b.store.Memberships(ctx, owner.ID)
	if err != nil || len(ms) != 2 {
		t.Fatalf("the maker's memberships: %+v %v", ms, err)
	}
	for _, m := range ms {
		if m.Role != policy.Owner {
			t.Errorf("the maker's role on %s: %s", m.SiteName, m.Role)
		}
	}
	var action, actor string
	if err := b.store.DB().QueryRow(`SELECT action, json_extract(actor, '$.id') FROM audit WHERE site_id = ?`, site.ID).Scan(&action, &actor); err != nil ||
		action != "site.created" || actor != owner.ID {
		t.Errorf("the new site's audit row: %q by %q, %v", action, actor, err)
	}
	sites, err := b.eng.Sites(ctx)
	if err != nil || len(sites) != 2 {
		t.Fatal(sites, err)
	}
	for _, s := range sites {
		if s.DefaultHost != (s.ID == first.ID) {
			t.Errorf("%s DefaultHost = %v: only the first site answers unknown hosts", s.Name, s.DefaultHost)
		}
	}
}

func codeOf(err error) string {
	if e, ok := engine.AsError(err); ok {
		return e.Code
	}
	return ""
}
