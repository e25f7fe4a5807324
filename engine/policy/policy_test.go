package policy_test

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"studio/engine/policy"
)

// level codes used by the hand-written matrices: A any, o own, - none.
func code(l policy.Level) string {
	switch l {
	case policy.LevelAny:
		return "A"
	case policy.LevelOwn:
		return "o"
	case policy.LevelNone:
		return "-"
	}
	return "?" + string(l)
}

// TestScopeList pins the scope names and their order; the matrices below
// are written against this order.
func TestScopeList(t *testing.T) {
	t.Parallel()
	want := []string{
		"content:read", "content:write", "content:write:own",
		"site:publish", "site:publish:own", "site:settings",
		"schedules:read", "schedules:write", "schedules:write:own",
		"releases:publish", "releases:publish:own", "automations:manage",
		"comments:read", "comments:moderate", "analytics:read",
		"asset:read", "asset:write",
	}
	var got []string
	for _, s := range policy.Scopes {
		got = append(got, string(s))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Scopes = %v\nwant     %v", got, want)
	}
	for _, s := range want {
		if sc, ok := policy.ParseScope(s); !ok || string(sc) != s {
			t.Errorf("ParseScope(%q) = %q, %v", s, sc, ok)
		}
	}
	for _, bad := range []string{"", "schedules", "Schedules:read", "schedules:read ", "asset:*"} {
		if _, ok := policy.ParseScope(bad); ok {
			t.Errorf("ParseScope(%q) accepted", bad)
		}
	}
	// The names the rest of Studio uses keep their values.
	for s, v := range map[policy.Scope]string{
		policy.ContentRead: "content:read", policy.ContentWrite: "content:write",
		policy.SitePublish: "site:publish", policy.SiteSettings: "site:settings",
		policy.SchedulesRead: "schedules:read", policy.SchedulesWrite: "schedules:write",
		policy.ReleasesPublish: "releases:publish",
	} {
		if string(s) != v {
			t.Errorf("%q, want %q", s, v)
		}
	}
}

func TestParseRole(t *testing.T) {
	t.Parallel()
	for _, r := range []string{"owner", "admin", "editor", "author", "contributor"} {
		if got, ok := policy.ParseRole(r); !ok || string(got) != r {
			t.Errorf("ParseRole(%q) = %q, %v", r, got, ok)
		}
	}
	for _, bad := range []string{"", "Owner", "administrator", "viewer", "owner "} {
		if _, ok := policy.ParseRole(bad); ok {
			t.Errorf("ParseRole(%q) accepted", bad)
		}
	}
	if !slices.Equal(policy.Roles, []policy.Role{policy.Owner, policy.Admin, policy.Editor, policy.Author, policy.Contributor}) {
		t.Errorf("Roles = %v", policy.Roles)
	}
}

// roleMatrix is every role × every scope, written by hand: the schedules
// columns from §10.2 (own = the :own variant), releases:publish by IMPLIES
// from site:publish(:own) (§10.1), the rest Studio's grants (policy.go).
//
// Columns: content:read content:write content:write:own | site:publish
// site:publish:own site:settings | schedules:read schedules:write
// schedules:write:own | releases:publish releases:publish:own
// automations:manage | comments:read comments:moderate analytics:read |
// asset:read asset:write
var roleMatrix = map[policy.Role]string{
	policy.Owner:       "AAA AAA AAA AAA AAA AA",
	policy.Admin:       "AAA AAA AAA AAA AAA AA",
	policy.Editor:      "AAA AA- AAA AAA AAA AA",
	policy.Author:      "AAA oA- AoA oA- A-A AA",
	policy.Contributor: "AAA --- AoA --- A-A AA",
}

func TestRoleLevelEveryRoleEveryScope(t *testing.T) {
	t.Parallel()
	for _, r := range policy.Roles {
		want := strings.ReplaceAll(roleMatrix[r], " ", "")
		if len(want) != len(policy.Scopes) {
			t.Fatalf("matrix row for %s has %d cells", r, len(want))
		}
		for i, s := range policy.Scopes {
			got := code(policy.RoleLevel(r, s))
			if got != want[i:i+1] {
				t.Errorf("RoleLevel(%s, %s) = %s, want %s", r, s, got, want[i:i+1])
			}
			if h := policy.Holds(r, s); h != (want[i] == 'A') {
				t.Errorf("Holds(%s, %s) = %v", r, s, h)
			}
		}
	}
	for _, s := range policy.Scopes {
		if l := policy.RoleLevel("viewer", s); l != policy.LevelNone {
			t.Errorf("unknown role has %s at %q", s, l)
		}
	}
}

// TestRolesTable10_2 transcribes §10.2's table cell by cell.
//
//	Role            schedules:read schedules:write releases:publish automations:manage site:settings
//	Owner, Admin    ✓              all             all              ✓                  ✓
//	Editor          ✓              all             all              ✓                  —
//	Author          ✓              own             own              —                  —
//	Contributor     ✓              own             —                —                  —
func TestRolesTable10_2(t *testing.T) {
	t.Parallel()
	cols := []policy.Scope{policy.SchedulesRead, policy.SchedulesWrite, policy.ReleasesPublish, policy.AutomationsManage, policy.SiteSettings}
	rows := map[policy.Role][]string{
		policy.Owner:       {"✓", "all", "all", "✓", "✓"},
		policy.Admin:       {"✓", "all", "all", "✓", "✓"},
		policy.Editor:      {"✓", "all", "all", "✓", "—"},
		policy.Author:      {"✓", "own", "own", "—", "—"},
		policy.Contributor: {"✓", "own", "—", "—", "—"},
	}
	meaning := map[string]policy.Level{"✓": policy.LevelAny, "all": policy.LevelAny, "own": policy.LevelOwn, "—": policy.LevelNone}
	for r, cells := range rows {
		for i, c := range cells {
			if got := policy.RoleLevel(r, cols[i]); got != meaning[c] {
				t.Errorf("%s × %s: %q, RFC says %s", r, cols[i], got, c)
			}
		}
	}
}

// TestHasKeepsItsMeaning: Has is what handlers and the engine guard with.
// It stays as it was before this package grew (every role may schedule,
// the own limit enforced by the caller; only Editors and above approve or
// publish; only Owners and Admins change settings), and for the new scopes
// it is Holds. Written by hand, columns as roleMatrix.
func TestHasKeepsItsMeaning(t *testing.T) {
	t.Parallel()
	want := map[policy.Role]string{
		policy.Owner:       "YYY YYY YYY YYY YYY YY",
		policy.Admin:       "YYY YYY YYY YYY YYY YY",
		policy.Editor:      "YYY YY. YYY YYY YYY YY",
		policy.Author:      "YYY .Y. YYY .Y. Y.Y YY",
		policy.Contributor: "YYY ... YYY ... Y.Y YY",
	}
	for _, r := range policy.Roles {
		row := strings.ReplaceAll(want[r], " ", "")
		for i, s := range policy.Scopes {
			if got := policy.Has(r, s); got != (row[i] == 'Y') {
				t.Errorf("Has(%s, %s) = %v", r, s, got)
			}
		}
	}
	// The guards Studio uses today, spelled out.
	for _, tc := range []struct {
		r    policy.Role
		s    policy.Scope
		want bool
	}{
		{policy.Contributor, policy.SchedulesWrite, true},
		{policy.Author, policy.SchedulesWrite, true},
		{policy.Author, policy.ReleasesPublish, false},
		{policy.Author, policy.SitePublish, false},
		{policy.Contributor, policy.SitePublish, false},
		{policy.Editor, policy.ReleasesPublish, true},
		{policy.Editor, policy.SiteSettings, false},
		{policy.Admin, policy.SiteSettings, true},
	} {
		if got := policy.Has(tc.r, tc.s); got != tc.want {
			t.Errorf("Has(%s, %s) = %v, want %v", tc.r, tc.s, got, tc.want)
		}
	}
}

// TestImplies checks §10.1 IMPLIES and its closure.
func TestImplies(t *testing.T) {
	t.Parallel()
	direct := map[policy.Scope][]policy.Scope{
		"schedules:write":  {"schedules:write:own"},
		"site:publish":     {"site:publish:own", "releases:publish"},
		"site:publish:own": {"releases:publish:own"},
		"releases:publish": {"releases:publish:own"},
		"content:write":    {"content:write:own"},
		// A scope that writes reads what it wrote (Studio's).
		"content:write:own":   {"content:read"},
		"schedules:write:own": {"schedules:read"},
		"asset:write":         {"asset:read"},
	}
	for _, s := range policy.Scopes {
		got := policy.Implies(s)
		want := direct[s]
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("Implies(%s) = %v, want %v", s, got, want)
		}
	}
	for _, tc := range []struct {
		in   []policy.Scope
		want []policy.Scope
	}{
		{nil, []policy.Scope{}},
		{[]policy.Scope{"site:publish"}, []policy.Scope{"site:publish", "site:publish:own", "releases:publish", "releases:publish:own"}},
		{[]policy.Scope{"site:publish:own"}, []policy.Scope{"site:publish:own", "releases:publish:own"}},
		{[]policy.Scope{"releases:publish"}, []policy.Scope{"releases:publish", "releases:publish:own"}},
		{[]policy.Scope{"schedules:write", "schedules:read"}, []policy.Scope{"schedules:read", "schedules:write", "schedules:write:own"}},
		{[]policy.Scope{"schedules:write:own"}, []policy.Scope{"schedules:read", "schedules:write:own"}},
		{[]policy.Scope{"content:write"}, []policy.Scope{"content:read", "content:write", "content:write:own"}},
		// Repeats collapse; unknown names are kept, after the known ones.
		{[]policy.Scope{"x:y", "schedules:read", "schedules:read", "x:y"}, []policy.Scope{"schedules:read", "x:y"}},
	} {
		if got := policy.Expand(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Expand(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestOwnVariants checks §10.1 OWN_VARIANTS (plus site:publish and
// content:write, whose own variants Studio uses) and LevelIn for keys.
func TestOwnVariants(t *testing.T) {
	t.Parallel()
	want := map[policy.Scope]policy.Scope{
		"schedules:write":  "schedules:write:own",
		"releases:publish": "releases:publish:own",
		"site:publish":     "site:publish:own",
		"content:write":    "content:write:own",
	}
	for _, s := range policy.Scopes {
		v, ok := policy.OwnVariant(s)
		if w, has := want[s]; ok != has || v != w {
			t.Errorf("OwnVariant(%s) = %q, %v", s, v, ok)
		}
		if ok {
			if full, ok := policy.OwnOf(v); !ok || full != s {
				t.Errorf("OwnOf(%s) = %q, %v", v, full, ok)
			}
		}
	}
	if _, ok := policy.OwnOf("schedules:read"); ok {
		t.Error("schedules:read is nobody's own variant")
	}
	for _, tc := range []struct {
		held []policy.Scope
		s    policy.Scope
		want policy.Level
	}{
		{[]policy.Scope{"schedules:write:own"}, "schedules:write", policy.LevelOwn},
		{[]policy.Scope{"schedules:write:own"}, "schedules:write:own", policy.LevelAny},
		{[]policy.Scope{"schedules:write"}, "schedules:write", policy.LevelAny},
		{[]policy.Scope{"site:publish:own"}, "releases:publish", policy.LevelOwn},
		{[]policy.Scope{"site:publish"}, "releases:publish", policy.LevelAny},
		{[]policy.Scope{"releases:publish:own"}, "site:publish", policy.LevelNone},
		{[]policy.Scope{"schedules:read"}, "schedules:write", policy.LevelNone},
		{nil, "schedules:read", policy.LevelNone},
	} {
		if got := policy.LevelIn(tc.held, tc.s); got != tc.want {
			t.Errorf("LevelIn(%v, %s) = %q, want %q", tc.held, tc.s, got, tc.want)
		}
	}
}

// TestImpliesHasNoCycles: LevelIn walks IMPLIES without a visited set.
func TestImpliesHasNoCycles(t *testing.T) {
	t.Parallel()
	var visit func(s policy.Scope, path []policy.Scope)
	visit = func(s policy.Scope, path []policy.Scope) {
		if slices.Contains(path, s) {
			t.Fatalf("IMPLIES cycle: %v → %s", path, s)
		}
		for _, i := range policy.Implies(s) {
			visit(i, append(slices.Clone(path), s))
		}
	}
	for _, s := range policy.Scopes {
		visit(s, nil)
	}
}

func TestLevelMin(t *testing.T) {
	t.Parallel()
	ls := []policy.Level{policy.LevelNone, policy.LevelOwn, policy.LevelAny}
	for i, a := range ls {
		for j, b := range ls {
			if got := a.Min(b); got != ls[min(i, j)] {
				t.Errorf("%q.Min(%q) = %q", a, b, got)
			}
		}
	}
}

// TestAbilities: every role × every §10.1 ability, by hand from §10.2.
func TestAbilities(t *testing.T) {
	t.Parallel()
	names := []string{"schedules.read", "schedules.write", "schedules.writeAny", "releases.approve", "releases.approveAny", "automations.manage", "schedules.settings"}
	var got []string
	for _, a := range policy.Abilities {
		got = append(got, string(a))
	}
	if !slices.Equal(got, names) {
		t.Fatalf("Abilities = %v", got)
	}
	// Columns in the order of names.
	want := map[policy.Role]string{
		policy.Owner:       "AAAAAAA",
		policy.Admin:       "AAAAAAA",
		policy.Editor:      "AAAAAA-",
		policy.Author:      "Ao-o---",
		policy.Contributor: "Ao-----",
	}
	for _, r := range policy.Roles {
		for i, a := range policy.Abilities {
			if got := code(policy.AbilityLevel(r, a)); got != want[r][i:i+1] {
				t.Errorf("AbilityLevel(%s, %s) = %s, want %s", r, a, got, want[r][i:i+1])
			}
		}
	}
	if l := policy.AbilityLevel(policy.Owner, "schedules.fly"); l != policy.LevelNone {
		t.Errorf("unknown ability: %q", l)
	}
	for a, w := range map[policy.Ability]struct {
		s   policy.Scope
		own bool
	}{
		"schedules.read": {"schedules:read", false}, "schedules.write": {"schedules:write", true},
		"schedules.writeAny": {"schedules:write", false}, "releases.approve": {"releases:publish", true},
		"releases.approveAny": {"releases:publish", false}, "automations.manage": {"automations:manage", false},
		"schedules.settings": {"site:settings", false},
	} {
		s, own, ok := policy.AbilityScope(a)
		if !ok || s != w.s || own != w.own {
			t.Errorf("AbilityScope(%s) = %s, %v, %v", a, s, own, ok)
		}
	}
	// Keys: an approver key narrowed to an Author approves own releases.
	if l := policy.AbilityLevelIn([]policy.Scope{"site:publish:own"}, policy.AbilityReleasesApprove); l != policy.LevelOwn {
		t.Errorf("site:publish:own key approves at %q", l)
	}
	if l := policy.AbilityLevelIn([]policy.Scope{"site:publish:own"}, policy.AbilityReleasesApproveAny); l != policy.LevelNone {
		t.Errorf("site:publish:own key approves any at %q", l)
	}
}

func TestPersonOnlyAndKeyScopes(t *testing.T) {
	t.Parallel()
	for _, s := range policy.Scopes {
		if got := policy.PersonOnly(s); got != (s == "automations:manage") {
			t.Errorf("PersonOnly(%s) = %v", s, got)
		}
	}
	keys := policy.KeyScopes()
	if slices.Contains(keys, policy.AutomationsManage) || len(keys) != len(policy.Scopes)-1 {
		t.Errorf("KeyScopes = %v", keys)
	}
	for _, s := range []policy.Scope{"schedules:read", "schedules:write", "schedules:write:own", "releases:publish", "releases:publish:own"} {
		if !slices.Contains(keys, s) {
			t.Errorf("KEY_SCOPES lacks %s (§10.1)", s)
		}
	}
}

// TestForbiddenForUntrusted: §11.4 rule 3, every scope by hand.
func TestForbiddenForUntrusted(t *testing.T) {
	t.Parallel()
	want := map[policy.Scope]bool{
		"content:read": false, "content:write": true, "content:write:own": true,
		"site:publish": true, "site:publish:own": true, "site:settings": false,
		"schedules:read": false, "schedules:write": true, "schedules:write:own": true,
		"releases:publish": true, "releases:publish:own": true, "automations:manage": false,
		"comments:read": false, "comments:moderate": false, "analytics:read": false,
		"asset:read": true, "asset:write": true,
		// asset:* is every asset scope, known or not.
		"asset:delete": true, "asset:": true,
		"assets:read": false, "x:y": false, "": false,
	}
	for _, s := range policy.Scopes {
		if _, ok := want[s]; !ok {
			t.Fatalf("no expectation for %s", s)
		}
	}
	for s, w := range want {
		if got := policy.ForbiddenForUntrusted(s); got != w {
			t.Errorf("ForbiddenForUntrusted(%q) = %v, want %v", s, got, w)
		}
	}
}

func TestStripUntrusted(t *testing.T) {
	t.Parallel()
	got := policy.StripUntrusted(policy.Scopes)
	want := []policy.Scope{"content:read", "site:settings", "schedules:read", "automations:manage", "comments:read", "comments:moderate", "analytics:read"}
	if !slices.Equal(got, want) {
		t.Errorf("StripUntrusted(all) = %v, want %v", got, want)
	}
	// Order kept, unknown names kept (nothing grants them).
	in := []policy.Scope{"comments:moderate", "schedules:write", "x:y", "schedules:read", "asset:upload"}
	if got := policy.StripUntrusted(in); !slices.Equal(got, []policy.Scope{"comments:moderate", "x:y", "schedules:read"}) {
		t.Errorf("StripUntrusted(%v) = %v", in, got)
	}
	if got := policy.StripUntrusted(nil); got == nil || len(got) != 0 {
		t.Errorf("StripUntrusted(nil) = %#v", got)
	}
	// What is left implies no forbidden scope.
	rng := rand.New(rand.NewSource(11))
	for range 500 {
		var in []policy.Scope
		for _, s := range policy.Scopes {
			if rng.Intn(2) == 0 {
				in = append(in, s)
			}
		}
		for _, s := range policy.Expand(policy.StripUntrusted(in)) {
			if policy.ForbiddenForUntrusted(s) {
				t.Fatalf("StripUntrusted(%v) still grants %s", in, s)
			}
		}
	}
}

func TestNarrow(t *testing.T) {
	t.Parallel()
	type S = []policy.Scope
	for _, tc := range []struct {
		name  string
		key   S
		owner policy.Role
		want  S
	}{
		{"EditorKeepsWhatEditorsHold", S{"schedules:read", "schedules:write", "releases:publish"}, policy.Editor,
			S{"schedules:read", "schedules:write", "releases:publish"}},
		{"EditorLosesSettings", S{"site:settings", "schedules:read"}, policy.Editor, S{"schedules:read"}},
		{"OwnerKeepsSettings", S{"site:settings"}, policy.Owner, S{"site:settings"}},
		{"PersonOnlyDropped", S{"automations:manage", "schedules:read"}, policy.Owner, S{"schedules:read"}},
		{"AuthorGetsOwnVariants", S{"schedules:write", "releases:publish", "site:publish", "content:write"}, policy.Author,
			S{"content:write", "site:publish:own", "schedules:write:own", "releases:publish:own"}},
		{"ContributorCannotPublish", S{"schedules:write", "releases:publish", "site:publish", "releases:publish:own"}, policy.Contributor,
			S{"schedules:write:own"}},
		{"ContributorNoModeration", S{"comments:moderate", "comments:read"}, policy.Contributor, S{"comments:read"}},
		{"OwnKeyStaysOwn", S{"schedules:write:own"}, policy.Editor, S{"schedules:write:own"}},
		{"ImpliedNotAdded", S{"site:publish"}, policy.Editor, S{"site:publish"}},
		{"RepeatsAndOrder", S{"schedules:read", "content:read", "schedules:read"}, policy.Author, S{"content:read", "schedules:read"}},
		{"UnknownScopeDropped", S{"x:y", "schedules:read"}, policy.Owner, S{"schedules:read"}},
		{"UnknownRoleHoldsNothing", S{"schedules:read"}, "viewer", S{}},
		{"Empty", nil, policy.Owner, S{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := policy.Narrow(tc.key, tc.owner); !slices.Equal(got, tc.want) {
				t.Errorf("Narrow(%v, %s) = %v, want %v", tc.key, tc.owner, got, tc.want)
			}
		})
	}
}

// TestNarrowNeverWidens: on random keys for every role, no scope reaches
// further after narrowing than the key or the role allows, and each scope
// the key names reaches exactly as far as the narrower of the two.
func TestNarrowNeverWidens(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(3))
	rank := map[policy.Level]int{policy.LevelNone: 0, policy.LevelOwn: 1, policy.LevelAny: 2}
	for range 2000 {
		var key []policy.Scope
		for _, s := range policy.Scopes {
			if rng.Intn(3) == 0 {
				key = append(key, s)
			}
		}
		role := policy.Roles[rng.Intn(len(policy.Roles))]
		n := policy.Narrow(key, role)
		for _, s := range policy.Scopes {
			got := policy.LevelIn(n, s)
			bound := policy.LevelIn(key, s).Min(policy.RoleLevel(role, s))
			if policy.PersonOnly(s) {
				bound = policy.LevelNone
			}
			if rank[got] > rank[bound] {
				t.Fatalf("Narrow(%v, %s) = %v widens %s to %q (bound %q)", key, role, n, s, got, bound)
			}
			if slices.Contains(key, s) && got != bound {
				t.Fatalf("Narrow(%v, %s) = %v gives %s %q, want %q", key, role, n, s, got, bound)
			}
		}
		if !slices.Equal(policy.Narrow(n, role), n) {
			t.Fatalf("Narrow is not idempotent on %v", n)
		}
	}
}
