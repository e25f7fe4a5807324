package releases_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/releases"
)

// refuseSchedule runs in as u and checks that it is refused with code and
// field and that not one row changed: no release, item or audit row, the
// node at the same rev.
func refuseSchedule(t *testing.T, b *testBundle, u engine.User, in releases.ScheduleInput, code, field string) *engine.Error {
	t.Helper()
	ctx := context.Background()
	before := b.Dump(t)
	nodeBefore, err := b.Nodes.Node(ctx, engine.Reader(in.SiteID), in.SiteID, in.NodeID)
	if err != nil {
		t.Fatal(err)
	}
	relsBefore, err := b.Releases.Releases(ctx, engine.Reader(in.SiteID), in.SiteID, start.AddDate(-1, 0, 0), start.AddDate(3, 0, 0))
	if err != nil {
		t.Fatal(err)
	}

	r, err := b.Releases.ScheduleNode(ctx, u, in)
	e := wantRefusal(t, err, code, field)
	if r.ID != "" {
		t.Fatalf("refused schedule still returned release %s", r.ID)
	}

	if after := b.Dump(t); after != before {
		t.Fatalf("refused schedule changed the database:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	nodeAfter, err := b.Nodes.Node(ctx, engine.Reader(in.SiteID), in.SiteID, in.NodeID)
	if err != nil {
		t.Fatal(err)
	}
	if nodeAfter.Rev != nodeBefore.Rev || nodeAfter.Hash != nodeBefore.Hash {
		t.Fatalf("node moved from %d to %d", nodeBefore.Rev, nodeAfter.Rev)
	}
	relsAfter, err := b.Releases.Releases(ctx, engine.Reader(in.SiteID), in.SiteID, start.AddDate(-1, 0, 0), start.AddDate(3, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(relsAfter) != len(relsBefore) {
		t.Fatalf("releases: %d before, %d after", len(relsBefore), len(relsAfter))
	}
	return e
}

func TestScheduleNodeRefusesBadInput(t *testing.T) {
	t.Parallel()

	setup := func(t *testing.T) (*testBundle, releases.ScheduleInput) {
		t.Helper()
		b := newBundle(t)
		return b, releases.ScheduleInput{SiteID: b.Site.ID, NodeID: b.Article.ID, ExpectedRev: b.Article.Rev,
			Date: "2026-11-02", Time: "09:00"}
	}

	t.Run("BadSiteZone", func(t *testing.T) {
		for _, tc := range []struct{ name, zone string }{
			{"Unknown", "Mars/Olympus"},
			{"Local", "Local"},
			{"BareOffset", "UTC+3"},
			{"Path", "Europe/../Istanbul"},
			{"Empty", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				b, in := setup(t)
				// eng.CreateSite validates the zone, so a bad one can only
				// come from the database (an old row, a hand edit).
				site := engine.Site{ID: "site_badzone", Name: "Bad zone", TimeZone: tc.zone, Rev: 1, Hash: "sha256-test"}
				if err := b.Store.CreateSite(context.Background(), site, b.Clock.Now()); err != nil {
					t.Fatal(err)
				}
				n := b.CreateNode(t, site.ID, release.KindPage,
					content.Body{Title: "About", Slug: "about", Status: content.StatusDraft})
				in.SiteID, in.NodeID, in.ExpectedRev = site.ID, n.ID, n.Rev
				// The schedule form has no zone field: the refusal is shown
				// at the time the person picked.
				refuseSchedule(t, b, on(b.Editor, site.ID), in, "bad_zone", "")
			})
		}
	})

	t.Run("BadDate", func(t *testing.T) {
		for _, tc := range []struct{ name, date string }{
			{"MonthThirteen", "2026-13-01"},
			{"Empty", ""},
			{"DottedDayFirst", "02.11.2026"},
			{"February30", "2026-02-30"},
			{"UnpaddedDay", "2026-11-2"},
			{"WithTime", "2026-11-02T09:00"},
			{"Signed", "+026-11-02"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				b, in := setup(t)
				in.Date = tc.date
				refuseSchedule(t, b, b.Editor, in, "bad_date", "date")
			})
		}
	})

	t.Run("BadTime", func(t *testing.T) {
		for _, tc := range []struct{ name, clock string }{
			{"Hour25", "25:00"},
			{"Hour24", "24:00"},
			{"HourOnly", "9"},
			{"Empty", ""},
			{"Minute60", "09:60"},
			{"UnpaddedHour", "9:00"},
			{"NonZeroSeconds", "09:00:30"},
			{"Letters", "09h00"},
			{"TwelveHour", "09:00 AM"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				b, in := setup(t)
				in.Time = tc.clock
				refuseSchedule(t, b, b.Editor, in, "bad_time", "time")
			})
		}
	})

	t.Run("BadDateWinsOverBadTime", func(t *testing.T) {
		b, in := setup(t)
		in.Date, in.Time = "2026-13-01", "25:00"
		refuseSchedule(t, b, b.Editor, in, "bad_date", "date")
	})

	t.Run("TimeInPast", func(t *testing.T) {
		for _, tc := range []struct{ name, date, clock string }{
			{"OneMinuteAgo", "2026-11-02", "07:59"},
			{"Yesterday", "2026-11-01", "09:00"},
			{"LastYear", "2025-11-02", "09:00"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				b, in := setup(t)
				in.Date, in.Time = tc.date, tc.clock
				refuseSchedule(t, b, b.Editor, in, release.CodeTimeInPast, "time")
			})
		}
	})

	t.Run("TooSoon", func(t *testing.T) {
		t.Run("Now", func(t *testing.T) {
			b, in := setup(t)
			in.Time = "08:00" // exactly now
			refuseSchedule(t, b, b.Editor, in, release.CodeTooSoon, "time")
		})
		t.Run("ThirtySecondsAhead", func(t *testing.T) {
			b, in := setup(t)
			b.Clock.Advance(30 * time.Second)
			in.Time = "08:01"
			refuseSchedule(t, b, b.Editor, in, release.CodeTooSoon, "time")
		})
		t.Run("PastMinuteWithSecondsOnTheClock", func(t *testing.T) {
			b, in := setup(t)
			b.Clock.Advance(30 * time.Second)
			in.Time = "08:00" // 30 s ago
			refuseSchedule(t, b, b.Editor, in, release.CodeTimeInPast, "time")
		})
	})

	t.Run("TooFar", func(t *testing.T) {
		for _, tc := range []struct{ name, date, clock string }{
			{"366DaysAndAMinute", "2027-11-03", "08:01"},
			{"TwoYears", "2028-11-02", "09:00"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				b, in := setup(t)
				in.Date, in.Time = tc.date, tc.clock
				refuseSchedule(t, b, b.Editor, in, release.CodeTooFar, "time")
			})
		}
	})

	t.Run("BoundsAreInclusive", func(t *testing.T) {
		for _, tc := range []struct{ name, date, clock string }{
			{"ExactlyOneMinuteAhead", "2026-11-02", "08:01"},
			{"Exactly366DaysAhead", "2027-11-03", "08:00"},
			{"SecondsZeroAccepted", "2026-11-02", "09:00:00"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				b, in := setup(t)
				in.Date, in.Time = tc.date, tc.clock
				if _, err := b.Releases.ScheduleNode(context.Background(), b.Editor, in); err != nil {
					t.Fatal(err)
				}
			})
		}
	})

	t.Run("Stale", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			delta int64
		}{{"Older", -1}, {"Newer", 1}} {
			t.Run(tc.name, func(t *testing.T) {
				b, in := setup(t)
				in.ExpectedRev += tc.delta
				refuseSchedule(t, b, b.Editor, in, engine.CodeStale, "")
			})
		}
		t.Run("AfterAnotherSave", func(t *testing.T) {
			b, in := setup(t)
			body := b.Article.Body
			body.Text = "Edited elsewhere."
			if _, err := b.Nodes.SaveNode(context.Background(), b.Author, b.Site.ID, b.Article.ID, b.Article.Rev, body); err != nil {
				t.Fatal(err)
			}
			refuseSchedule(t, b, b.Editor, in, engine.CodeStale, "")
		})
	})

	// A node another release holds joins a second one as it is: both are
	// accepted and each names the other (D15, §6.2).
	t.Run("HeldNodeOverlaps", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			holder func(b *testBundle) engine.User
		}{
			{"HeldByScheduledRelease", func(b *testBundle) engine.User { return b.Editor }},
			{"HeldByAwaitingRelease", func(b *testBundle) engine.User { return b.Contributor }},
		} {
			t.Run(tc.name, func(t *testing.T) {
				b, in := setup(t)
				ctx := context.Background()
				first := b.Schedule(t, tc.holder(b), b.Article, "2026-11-02", "09:00")
				in.ExpectedRev = b.Node(t, b.Article.ID).Rev
				in.Time = "10:00"
				second, err := b.Releases.ScheduleNode(ctx, b.Editor, in)
				if err != nil {
					t.Fatalf("a second release of a held node: %v", err)
				}
				for _, pair := range [][2]string{{first.ID, second.ID}, {second.ID, first.ID}} {
					ov, err := b.Releases.Overlaps(ctx, b.Editor, b.Site.ID, pair[0])
					if err != nil {
						t.Fatal(err)
					}
					if len(ov) != 1 || ov[0].ReleaseID != pair[1] || !slices.Equal(ov[0].NodeIDs, []string{b.Article.ID}) {
						t.Fatalf("overlaps of %s = %+v, want %s on the article", pair[0], ov, pair[1])
					}
				}
			})
		}
	})

	t.Run("UnknownNode", func(t *testing.T) {
		b, in := setup(t)
		before := b.Dump(t)
		in.NodeID = "ent_doesnotexist0000"
		if _, err := b.Releases.ScheduleNode(context.Background(), b.Editor, in); !errors.Is(err, engine.ErrNotFound) {
			t.Fatalf("err = %v, want not found", err)
		}
		if after := b.Dump(t); after != before {
			t.Fatalf("changed:\n%s\n%s", before, after)
		}
	})

	t.Run("NodeOfAnotherSite", func(t *testing.T) {
		b, in := setup(t)
		other, err := b.CreateSite(context.Background(), "Other", "UTC")
		if err != nil {
			t.Fatal(err)
		}
		before := b.Dump(t)
		in.SiteID = other.ID // the article belongs to b.site
		if _, err := b.Releases.ScheduleNode(context.Background(), b.Editor, in); !errors.Is(err, engine.ErrNotFound) {
			t.Fatalf("err = %v, want not found", err)
		}
		if after := b.Dump(t); after != before {
			t.Fatalf("changed:\n%s\n%s", before, after)
		}
	})
}

// TestScheduleNodeApprovalByRole: each role schedules a page of their own
// (§10.2): Owners, Administrators and Editors approve it; an Author holds
// releases:publish:own, so approves their own work too (issue 11); a
// Contributor's waits for approval.
func TestScheduleNodeApprovalByRole(t *testing.T) {
	t.Parallel()

	setup := func(t *testing.T) *testBundle {
		t.Helper()
		return newBundle(t)
	}

	b := setup(t)
	for _, tc := range []struct {
		role policy.Role
		user func(b *testBundle) engine.User
		want release.State
	}{
		{policy.Owner, func(b *testBundle) engine.User { return b.Owner }, release.StateScheduled},
		{policy.Admin, func(b *testBundle) engine.User { return b.Admin }, release.StateScheduled},
		{policy.Editor, func(b *testBundle) engine.User { return b.Editor }, release.StateScheduled},
		{policy.Author, func(b *testBundle) engine.User { return b.Author }, release.StateScheduled},
		{policy.Contributor, func(b *testBundle) engine.User { return b.Contributor }, release.StateAwaitingApproval},
	} {
		name := string(tc.role)
		t.Run(strings.ToUpper(name[:1])+name[1:], func(t *testing.T) {
			u := tc.user(b)
			if u.Role != tc.role {
				t.Fatalf("bundle user has role %s", u.Role)
			}
			n, err := b.Nodes.CreateNode(context.Background(), u, b.Site.ID, release.KindPage,
				content.Body{Title: "Page of " + u.Name, Slug: "page-" + name, Status: content.StatusDraft})
			if err != nil {
				t.Fatal(err)
			}
			if n.Author.ID != u.ID {
				t.Fatalf("author = %+v, want %s", n.Author, u.ID)
			}
			r := b.Schedule(t, u, n, "2026-11-03", "09:00")
			at := time.Date(2026, 11, 3, 6, 0, 0, 0, time.UTC)

			for _, got := range []release.Release{r, b.Release(t, r.ID).Release} {
				if got.State != tc.want {
					t.Fatalf("state = %s, want %s", got.State, tc.want)
				}
				if got.CreatedBy.ID != u.ID || got.CreatedBy.Kind != "person" {
					t.Fatalf("createdBy = %+v", got.CreatedBy)
				}
				switch tc.want {
				case release.StateScheduled:
					a := got.Approval
					if a == nil || a.Kind != "person" || a.By.ID != u.ID || a.By.Kind != "person" || a.ExecuteAt == nil {
						t.Fatalf("approval = %+v", a)
					}
					sameInstant(t, "approval.at", a.At, start)
					sameInstant(t, "approval.executeAt", *a.ExecuteAt, at)
				default:
					if got.Approval != nil {
						t.Fatalf("a request without the right carries approval %+v", got.Approval)
					}
				}
			}
			// Either way the node is held (§6.2).
			d := b.Node(t, n.ID)
			if d.Held == nil || d.Held.ReleaseID != r.ID || d.Held.State != tc.want {
				t.Fatalf("held = %+v", d.Held)
			}
			if c := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'release.schedule' AND release_id = ?
				AND json_extract(details, '$.state') = ? AND json_extract(actor, '$.id') = ?`, r.ID, string(tc.want), u.ID); c != 1 {
				t.Fatalf("schedule audits = %d", c)
			}
		})
	}
}

func TestScheduleNodeCreatesThePinnedRelease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	setup := func(t *testing.T) *testBundle {
		t.Helper()
		return newBundle(t)
	}

	// checkBinding checks the release's hash against its items, as returned
	// and as stored, and returns the stored row.
	checkBinding := func(t *testing.T, b *testBundle, r release.Release, want release.Item) releases.ReleaseRow {
		t.Helper()
		if len(r.Items) != 1 {
			t.Fatalf("items = %+v", r.Items)
		}
		it := r.Items[0]
		if it.Op != want.Op || it.NodeID != want.NodeID || it.NodeKind != want.NodeKind ||
			!sameVersion(it.Target, want.Target) || !sameVersion(it.Base, want.Base) {
			t.Fatalf("item = %+v target %+v base %+v\nwant %+v target %+v base %+v",
				it, it.Target, it.Base, want, want.Target, want.Base)
		}
		if h := release.Hash(b.Site.ID, []release.Item{want}); r.Hash != h {
			t.Fatalf("hash = %s, want %s", r.Hash, h)
		}
		stored := b.Release(t, r.ID)
		if stored.Hash != r.Hash || release.Hash(stored.SiteID, stored.Items) != stored.Hash {
			t.Fatalf("stored hash %s, recomputed %s, returned %s", stored.Hash, release.Hash(stored.SiteID, stored.Items), r.Hash)
		}
		// The pinned target is a saved version with exactly that hash.
		if c := b.Count(t, `SELECT count(*) FROM node_versions WHERE node_id = ? AND rev = ? AND hash = ?`,
			want.NodeID, want.Target.Rev, want.Target.Hash); c != 1 {
			t.Fatalf("pinned version %d:%s not saved", want.Target.Rev, want.Target.Hash)
		}
		if c := b.Count(t, `SELECT count(*) FROM release_items WHERE release_id = ? AND node_id = ? AND held = 1`, r.ID, want.NodeID); c != 1 {
			t.Fatalf("held items = %d", c)
		}
		return stored
	}

	t.Run("DraftGetsAPublishedVersion", func(t *testing.T) {
		b := setup(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")

		wantBody := b.Article.Body
		wantBody.Status = content.StatusPublished
		wantBody.PublishedAt = &nine
		want := release.Item{Op: release.OpSet, NodeID: b.Article.ID, NodeKind: release.KindContentEntry,
			Target: &release.Version{Rev: 2, Hash: content.Hash(wantBody)}}
		stored := checkBinding(t, b, r, want)

		n := b.Node(t, b.Article.ID)
		if n.Rev != 2 || n.Hash != want.Target.Hash || n.Body.Status != content.StatusPublished || n.Body.PublishedAt == nil {
			t.Fatalf("node after schedule: rev %d hash %s body %+v", n.Rev, n.Hash, n.Body)
		}
		sameInstant(t, "publishedAt", *n.Body.PublishedAt, nine)

		for _, w := range []*release.When{r.When, stored.When} {
			if w == nil || w.Kind != "at" || w.LocalTime != "2026-11-02T09:00" || w.TimeZone != "Europe/Istanbul" {
				t.Fatalf("when = %+v", w)
			}
			sameInstant(t, "when.at", w.At, nine)
		}
		if got := b.Text(t, `SELECT execute_at || ' ' || local_time || ' ' || time_zone FROM releases WHERE id = ?`, r.ID); got != "2026-11-02T06:00:00.000Z 2026-11-02T09:00 Europe/Istanbul" {
			t.Fatalf("stored time = %q", got)
		}
		if r.Title != "Election night" || r.SchemaVersion != 1 || r.Rev != 1 || r.SiteID != b.Site.ID {
			t.Fatalf("release = %+v", r)
		}
	})

	t.Run("LiveNodeIsBasedOnItsLiveVersion", func(t *testing.T) {
		b := setup(t)
		p0 := time.Date(2026, 10, 1, 7, 0, 0, 0, time.UTC)
		n := b.CreateNode(t, b.Site.ID, release.KindPage,
			content.Body{Title: "About", Slug: "about", Status: content.StatusPublished, PublishedAt: &p0, Text: "v1"})
		if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
			t.Fatal(err)
		}
		body := n.Body
		body.Text = "v2"
		v2, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, n.ID, n.Rev, body)
		if err != nil {
			t.Fatal(err)
		}
		r := b.Schedule(t, b.Editor, v2, "2026-11-02", "09:00")
		// Already published with a date: v2 itself is pinned, no new version.
		checkBinding(t, b, r, release.Item{Op: release.OpSet, NodeID: n.ID, NodeKind: release.KindPage,
			Target: &release.Version{Rev: 2, Hash: v2.Hash}, Base: &release.Version{Rev: 1, Hash: n.Hash}})
		if d := b.Node(t, n.ID); d.Rev != 2 || !d.Body.PublishedAt.Equal(p0) {
			t.Fatalf("node after schedule: rev %d publishedAt %v", d.Rev, d.Body.PublishedAt)
		}
	})

	t.Run("LiveNodeSavedAsDraft", func(t *testing.T) {
		b := setup(t)
		// Live, then unpublished: the live version (v2) is a draft.
		v1 := b.CreateNode(t, b.Site.ID, release.KindPage,
			content.Body{Title: "About", Slug: "about", Status: content.StatusPublished, Text: "v1"})
		if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
			t.Fatal(err)
		}
		body := v1.Body
		body.Status = content.StatusDraft
		v2, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, v1.ID, v1.Rev, body)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
			t.Fatal(err)
		}
		body.Text = "v3"
		v3, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, v1.ID, v2.Rev, body)
		if err != nil {
			t.Fatal(err)
		}
		r := b.Schedule(t, b.Editor, v3, "2026-11-02", "09:00")
		wantBody := v3.Body
		wantBody.Status, wantBody.PublishedAt = content.StatusPublished, &nine
		checkBinding(t, b, r, release.Item{Op: release.OpSet, NodeID: v1.ID, NodeKind: release.KindPage,
			Target: &release.Version{Rev: 4, Hash: content.Hash(wantBody)}, Base: &release.Version{Rev: 2, Hash: v2.Hash}})
	})

	t.Run("PublishedWithoutDateGetsTheReleaseTime", func(t *testing.T) {
		b := setup(t)
		n := b.CreateNode(t, b.Site.ID, release.KindPage,
			content.Body{Title: "About", Slug: "about", Status: content.StatusPublished})
		r := b.Schedule(t, b.Editor, n, "2026-11-02", "09:00")
		wantBody := n.Body
		wantBody.PublishedAt = &nine
		checkBinding(t, b, r, release.Item{Op: release.OpSet, NodeID: n.ID, NodeKind: release.KindPage,
			Target: &release.Version{Rev: 2, Hash: content.Hash(wantBody)}})
	})

	t.Run("DraftWithADateKeepsIt", func(t *testing.T) {
		b := setup(t)
		p0 := time.Date(2026, 10, 1, 7, 0, 0, 0, time.UTC)
		n := b.CreateNode(t, b.Site.ID, release.KindPage,
			content.Body{Title: "About", Slug: "about", Status: content.StatusReview, PublishedAt: &p0})
		r := b.Schedule(t, b.Editor, n, "2026-11-02", "09:00")
		wantBody := n.Body
		wantBody.Status = content.StatusPublished
		checkBinding(t, b, r, release.Item{Op: release.OpSet, NodeID: n.ID, NodeKind: release.KindPage,
			Target: &release.Version{Rev: 2, Hash: content.Hash(wantBody)}})
	})

	t.Run("UnchangedLiveNodeIsNothingToPublish", func(t *testing.T) {
		b := setup(t)
		p0 := time.Date(2026, 10, 1, 7, 0, 0, 0, time.UTC)
		n := b.CreateNode(t, b.Site.ID, release.KindPage,
			content.Body{Title: "About", Slug: "about", Status: content.StatusPublished, PublishedAt: &p0})
		if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
			t.Fatal(err)
		}
		refuseSchedule(t, b, b.Editor, releases.ScheduleInput{SiteID: b.Site.ID, NodeID: n.ID, ExpectedRev: n.Rev,
			Date: "2026-11-02", Time: "09:00"}, release.CodeNothingToPublish, "")
	})

	// D2 on a real site: the gap time runs at the next valid time, the
	// repeated time at its first instant; the wall time typed is kept.
	for _, tc := range []struct {
		name, date, clock string
		want              time.Time
		wantLocal         string
	}{
		{"DSTGapRunsAtTheNextValidTime", "2027-03-28", "02:30", time.Date(2027, 3, 28, 1, 30, 0, 0, time.UTC), "03:30 +0200"},
		{"DSTOverlapRunsAtTheFirstInstant", "2027-10-31", "02:30", time.Date(2027, 10, 31, 0, 30, 0, 0, time.UTC), "02:30 +0200"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := setup(t)
			berlin, err := b.CreateSite(ctx, "Berliner Blatt", "Europe/Berlin")
			if err != nil {
				t.Fatal(err)
			}
			n := b.CreateNode(t, berlin.ID, release.KindContentEntry,
				content.Body{Title: "Zeitumstellung", Slug: "zeitumstellung", Status: content.StatusDraft})
			b.Clock.Set(time.Date(2027, 3, 25, 12, 0, 0, 0, time.UTC))

			r := b.Schedule(t, b.Editor, n, tc.date, tc.clock)
			sameInstant(t, "when.at", r.When.At, tc.want)
			loc, _ := time.LoadLocation("Europe/Berlin")
			if got := r.When.At.In(loc).Format("15:04 -0700"); got != tc.wantLocal {
				t.Fatalf("in Berlin: %s, want %s", got, tc.wantLocal)
			}
			if r.When.LocalTime != tc.date+"T"+tc.clock || r.When.TimeZone != "Europe/Berlin" {
				t.Fatalf("when = %+v", r.When)
			}
			stored, err := b.Releases.Release(ctx, engine.Reader(berlin.ID), berlin.ID, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			sameInstant(t, "execute_at", *stored.ExecuteAt, tc.want)

			// It runs at that instant: not a millisecond before, and the
			// never-early recompute leaves it where it is.
			b.Clock.Set(tc.want.Add(-time.Millisecond))
			if rep := b.Tick(t); rep.Ran != 0 {
				t.Fatalf("tick before T: %+v", rep)
			}
			b.Clock.Set(tc.want)
			if rep := b.Tick(t); rep.Published != 1 {
				t.Fatalf("tick at T: %+v", rep)
			}
			if c := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'release.reschedule'`); c != 0 {
				t.Fatalf("a D2 time was rescheduled %d times", c)
			}
		})
	}
}

func sameVersion(a, b *release.Version) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func TestHeldNodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	// setup schedules the article at 09:00 as the editor; the node is then
	// at rev 2 and held.
	setup := func(t *testing.T) (*testBundle, releases.ReleaseRow) {
		t.Helper()
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		return b, b.Release(t, r.ID)
	}

	edit := func(b *testBundle, u engine.User, rev int64) (content.Node, error) {
		body := b.Article.Body
		body.Text = "Corrected results."
		return b.Nodes.SaveNode(ctx, u, b.Site.ID, b.Article.ID, rev, body)
	}

	t.Run("SaveIsLocked", func(t *testing.T) {
		b, r := setup(t)
		before := b.Dump(t)
		for _, u := range []engine.User{b.Editor, b.Owner, b.Contributor} {
			_, err := edit(b, u, b.Node(t, b.Article.ID).Rev)
			e := wantRefusal(t, err, engine.CodeScheduledLocked, "")
			if e.Args["Release"] != r.ID {
				t.Fatalf("args = %v", e.Args)
			}
		}
		if after := b.Dump(t); after != before {
			t.Fatalf("locked save changed:\n%s\n%s", before, after)
		}
	})

	t.Run("SaveIsLockedWhileAwaitingApproval", func(t *testing.T) {
		b := newBundle(t)
		r := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00")
		_, err := edit(b, b.Editor, b.Node(t, b.Article.ID).Rev)
		if e := wantRefusal(t, err, engine.CodeScheduledLocked, ""); e.Args["Release"] != r.ID {
			t.Fatalf("args = %v", e.Args)
		}
	})

	t.Run("UnscheduleMakesADraftAndUnlocks", func(t *testing.T) {
		b, r := setup(t)
		if err := b.Releases.Unschedule(ctx, b.Editor, b.Site.ID, r.ID, r.Rev); err != nil {
			t.Fatal(err)
		}
		got := b.Release(t, r.ID)
		if got.State != release.StateDraft || got.Approval != nil || got.Rev != r.Rev+1 || got.Outcome != nil {
			t.Fatalf("unscheduled: state %s approval %+v rev %d outcome %+v", got.State, got.Approval, got.Rev, got.Outcome)
		}
		d := b.Node(t, b.Article.ID)
		if d.Held != nil {
			t.Fatalf("still held by %+v", d.Held)
		}
		if c := b.Count(t, `SELECT count(*) FROM release_items WHERE held = 1`); c != 0 {
			t.Fatalf("held items = %d", c)
		}
		if c := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'release.unschedule' AND release_id = ?`, r.ID); c != 1 {
			t.Fatalf("unschedule audits = %d", c)
		}
		n, err := edit(b, b.Editor, d.Rev)
		if err != nil {
			t.Fatalf("edit after unschedule: %v", err)
		}
		if n.Rev != d.Rev+1 {
			t.Fatalf("rev = %d", n.Rev)
		}
		// A draft never runs, and the node can be scheduled again.
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Ran != 0 {
			t.Fatalf("draft ran: %+v", rep)
		}
		if _, ok := b.Live(t)[b.Article.ID]; ok {
			t.Fatal("unscheduled article went live")
		}
		b.Schedule(t, b.Editor, n, "2026-11-02", "10:00")
	})

	t.Run("ContributorUnschedulesOwnRequest", func(t *testing.T) {
		b := newBundle(t)
		r := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00")
		if err := b.Releases.Unschedule(ctx, b.Contributor, b.Site.ID, r.ID, r.Rev); err != nil {
			t.Fatal(err)
		}
		if got := b.Release(t, r.ID); got.State != release.StateDraft {
			t.Fatalf("state = %s", got.State)
		}
		if d := b.Node(t, b.Article.ID); d.Held != nil {
			t.Fatalf("held = %+v", d.Held)
		}
	})

	t.Run("CancelRecordsWhoAndWhen", func(t *testing.T) {
		b, r := setup(t)
		b.Clock.Advance(90 * time.Second)
		if err := b.Releases.Cancel(ctx, b.Admin, b.Site.ID, r.ID, r.Rev); err != nil {
			t.Fatal(err)
		}
		got := b.Release(t, r.ID)
		o := got.Outcome
		if got.State != release.StateCanceled || o == nil || o.Kind != "canceled" || o.By == nil || o.By.ID != b.Admin.ID || o.By.Kind != "person" {
			t.Fatalf("canceled: state %s outcome %+v", got.State, o)
		}
		sameInstant(t, "outcome.at", o.At, start.Add(90*time.Second))
		if d := b.Node(t, b.Article.ID); d.Held != nil {
			t.Fatalf("held = %+v", d.Held)
		}
		if c := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'release.cancel' AND release_id = ?`, r.ID); c != 1 {
			t.Fatalf("cancel audits = %d", c)
		}
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Ran != 0 {
			t.Fatalf("canceled release ran: %+v", rep)
		}
	})

	t.Run("CancelPublishedIsBadState", func(t *testing.T) {
		b, r := setup(t)
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Published != 1 {
			t.Fatalf("tick: %+v", rep)
		}
		r = b.Release(t, r.ID)
		before := b.Dump(t)
		wantRefusal(t, b.Releases.Cancel(ctx, b.Editor, b.Site.ID, r.ID, r.Rev), engine.CodeBadState, "")
		wantRefusal(t, b.Releases.Unschedule(ctx, b.Editor, b.Site.ID, r.ID, r.Rev), engine.CodeBadState, "")
		if after := b.Dump(t); after != before {
			t.Fatalf("changed:\n%s\n%s", before, after)
		}
	})

	t.Run("CanceledIsFinal", func(t *testing.T) {
		b, r := setup(t)
		if err := b.Releases.Cancel(ctx, b.Editor, b.Site.ID, r.ID, r.Rev); err != nil {
			t.Fatal(err)
		}
		r = b.Release(t, r.ID)
		before := b.Dump(t)
		wantRefusal(t, b.Releases.Cancel(ctx, b.Editor, b.Site.ID, r.ID, r.Rev), engine.CodeBadState, "")
		wantRefusal(t, b.Releases.Unschedule(ctx, b.Editor, b.Site.ID, r.ID, r.Rev), engine.CodeBadState, "")
		if after := b.Dump(t); after != before {
			t.Fatalf("changed:\n%s\n%s", before, after)
		}
	})

	t.Run("CancelRunningIsRefused", func(t *testing.T) {
		b, r := setup(t)
		// As if a tick had claimed it a moment ago.
		if _, err := b.Store.DB().Exec(`UPDATE releases SET state = 'running', lease_token = 'lease_x',
			lease_until = '2026-11-02T06:10:00.000Z' WHERE id = ?`, r.ID); err != nil {
			t.Fatal(err)
		}
		before := b.Dump(t)
		wantRefusal(t, b.Releases.Cancel(ctx, b.Editor, b.Site.ID, r.ID, r.Rev), engine.CodeRunning, "")
		wantRefusal(t, b.Releases.Unschedule(ctx, b.Editor, b.Site.ID, r.ID, r.Rev), engine.CodeBadState, "")
		if after := b.Dump(t); after != before {
			t.Fatalf("changed:\n%s\n%s", before, after)
		}
	})

	t.Run("StaleRev", func(t *testing.T) {
		b, r := setup(t)
		before := b.Dump(t)
		for _, rev := range []int64{r.Rev - 1, r.Rev + 1} {
			wantRefusal(t, b.Releases.Unschedule(ctx, b.Editor, b.Site.ID, r.ID, rev), engine.CodeStale, "")
			wantRefusal(t, b.Releases.Cancel(ctx, b.Editor, b.Site.ID, r.ID, rev), engine.CodeStale, "")
		}
		if after := b.Dump(t); after != before {
			t.Fatalf("changed:\n%s\n%s", before, after)
		}
		// The rev the person saw before someone else's change is stale too.
		if err := b.Releases.Unschedule(ctx, b.Admin, b.Site.ID, r.ID, r.Rev); err != nil {
			t.Fatal(err)
		}
		wantRefusal(t, b.Releases.Cancel(ctx, b.Editor, b.Site.ID, r.ID, r.Rev), engine.CodeStale, "")
		if got := b.Release(t, r.ID); got.State != release.StateDraft {
			t.Fatalf("state = %s", got.State)
		}
	})

	t.Run("OnlyApproversChangeOthersReleases", func(t *testing.T) {
		b, r := setup(t)
		before := b.Dump(t)
		for _, u := range []engine.User{b.Contributor, b.Author} {
			wantRefusal(t, b.Releases.Cancel(ctx, u, b.Site.ID, r.ID, r.Rev), engine.CodeForbidden, "")
			wantRefusal(t, b.Releases.Unschedule(ctx, u, b.Site.ID, r.ID, r.Rev), engine.CodeForbidden, "")
		}
		if after := b.Dump(t); after != before {
			t.Fatalf("changed:\n%s\n%s", before, after)
		}
		if err := b.Releases.Cancel(ctx, b.Owner, b.Site.ID, r.ID, r.Rev); err != nil {
			t.Fatalf("owner cancels an editor's release: %v", err)
		}
	})

	// An ordinary publish after a draft's schedule is called off must not
	// put the draft on the public site: before the schedule it was a draft,
	// and nobody asked for it to be published now.
	for _, tc := range []struct {
		name string
		off  func(b *testBundle, r releases.ReleaseRow) error
	}{
		{"CanceledDraftStaysOffTheSite", func(b *testBundle, r releases.ReleaseRow) error {
			return b.Releases.Cancel(ctx, b.Editor, b.Site.ID, r.ID, r.Rev)
		}},
		{"UnscheduledDraftStaysOffTheSite", func(b *testBundle, r releases.ReleaseRow) error {
			return b.Releases.Unschedule(ctx, b.Editor, b.Site.ID, r.ID, r.Rev)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, r := setup(t)
			if err := tc.off(b, r); err != nil {
				t.Fatal(err)
			}
			b.CreateNode(t, b.Site.ID, release.KindPage,
				content.Body{Title: "Contact", Slug: "contact", Status: content.StatusPublished})
			if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
				t.Fatal(err)
			}
			if n, ok := b.Live(t)[b.Article.ID]; ok && n.Body.Status == content.StatusPublished {
				t.Fatalf("the called-off draft is public at %s, before its time %s: live rev %d %+v",
					b.Clock.Now().Format(time.RFC3339), nine.Format(time.RFC3339), n.Rev, n.Body)
			}
			// The working copy is the draft again, as a new version.
			n, err := b.Nodes.Node(ctx, b.Editor, b.Site.ID, b.Article.ID)
			if err != nil {
				t.Fatal(err)
			}
			if n.Body.Status != content.StatusDraft || n.Body.PublishedAt != nil || n.Rev != r.Items[0].Target.Rev+1 {
				t.Fatalf("working copy after calling it off: rev %d %+v", n.Rev, n.Body)
			}
		})
	}

	t.Run("ExpiredRequestStaysOffTheSite", func(t *testing.T) {
		b := newBundle(t)
		r := b.Schedule(t, b.Contributor, b.Article, "2026-11-02", "09:00")
		b.Clock.Set(nine)
		if _, err := b.Sched.RunDue(ctx, "manual"); err != nil {
			t.Fatal(err)
		}
		if got := b.Release(t, r.ID); got.State != release.StateExpired {
			t.Fatalf("state = %s", got.State)
		}
		n, err := b.Nodes.Node(ctx, b.Editor, b.Site.ID, b.Article.ID)
		if err != nil {
			t.Fatal(err)
		}
		if n.Body.Status != content.StatusDraft || n.Held != nil {
			t.Fatalf("after the request expired the article is %s (held %v)", n.Body.Status, n.Held)
		}
	})

	t.Run("AnEditAfterwardsIsKept", func(t *testing.T) {
		b, r := setup(t)
		if err := b.Releases.Unschedule(ctx, b.Editor, b.Site.ID, r.ID, r.Rev); err != nil {
			t.Fatal(err)
		}
		n, err := b.Nodes.Node(ctx, b.Editor, b.Site.ID, b.Article.ID)
		if err != nil {
			t.Fatal(err)
		}
		body := n.Body
		body.Status, body.Text = content.StatusPublished, "edited after unscheduling"
		saved, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, n.ID, n.Rev, body)
		if err != nil {
			t.Fatal(err)
		}
		// Canceling the (now draft) release must not touch the newer edit.
		r2 := b.Release(t, r.ID)
		if err := b.Releases.Cancel(ctx, b.Editor, b.Site.ID, r2.ID, r2.Rev); err != nil {
			t.Fatal(err)
		}
		after, err := b.Nodes.Node(ctx, b.Editor, b.Site.ID, b.Article.ID)
		if err != nil {
			t.Fatal(err)
		}
		if after.Rev != saved.Rev || after.Body.Text != "edited after unscheduling" {
			t.Fatalf("the edit was overwritten: rev %d→%d %+v", saved.Rev, after.Rev, after.Body)
		}
	})

	t.Run("UnknownRelease", func(t *testing.T) {
		b, _ := setup(t)
		if err := b.Releases.Cancel(ctx, b.Editor, b.Site.ID, "rel_doesnotexist00000", 1); !errors.Is(err, engine.ErrNotFound) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestPublishKeepsHeldNodesAtTheirLiveVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	setup := func(t *testing.T) *testBundle {
		t.Helper()
		return newBundle(t)
	}

	b := setup(t)
	p0 := time.Date(2026, 10, 1, 7, 0, 0, 0, time.UTC)
	v1 := b.CreateNode(t, b.Site.ID, release.KindContentEntry,
		content.Body{Title: "Budget", Slug: "budget", Status: content.StatusPublished, PublishedAt: &p0, Text: "v1"})
	if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
		t.Fatal(err)
	}
	body := v1.Body
	body.Text, body.Status = "v2: embargoed figures", content.StatusDraft
	v2, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, v1.ID, v1.Rev, body)
	if err != nil {
		t.Fatal(err)
	}
	r := b.Schedule(t, b.Editor, v2, "2026-11-02", "09:00")
	target := r.Items[0].Target
	if target.Rev != 3 || r.Items[0].Base == nil || r.Items[0].Base.Rev != 1 {
		t.Fatalf("pinned %+v base %+v", target, r.Items[0].Base)
	}

	t.Run("OnlyTheHeldNodeChangedIsNothingToPublish", func(t *testing.T) {
		before := b.Dump(t)
		_, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID)
		wantRefusal(t, err, release.CodeNothingToPublish, "")
		if after := b.Dump(t); after != before {
			t.Fatalf("changed:\n%s\n%s", before, after)
		}
	})

	var page content.Node
	t.Run("OrdinaryPublishHoldsTheNodeBack", func(t *testing.T) {
		page = b.CreateNode(t, b.Site.ID, release.KindPage,
			content.Body{Title: "Contact", Slug: "contact", Status: content.StatusPublished, Text: "Write to us."})
		refs, changed, err := b.Nodes.PendingRefs(ctx, b.Site.ID)
		if err != nil {
			t.Fatal(err)
		}
		if changed != 1 {
			t.Fatalf("pending changes = %d (refs %+v)", changed, refs)
		}
		snap, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID)
		if err != nil {
			t.Fatal(err)
		}
		live := b.Live(t)
		if a, ok := live[v1.ID]; !ok || a.Rev != 1 || a.Hash != v1.Hash || a.Body.Text != "v1" {
			t.Fatalf("held article live as %+v (ok %v), want v1", a, ok)
		}
		if p, ok := live[page.ID]; !ok || p.Rev != 1 {
			t.Fatalf("page not live: %+v", p)
		}
		for _, ref := range snap.Refs {
			if ref.ID == v1.ID && ref.Rev != 1 {
				t.Fatalf("snapshot pins held article at %d", ref.Rev)
			}
		}
		if d := b.Node(t, v1.ID); d.Held == nil || d.Held.ReleaseID != r.ID || d.Rev != 3 {
			t.Fatalf("article after publish: rev %d held %+v", d.Rev, d.Held)
		}
	})

	t.Run("TheReleaseStillAppliesOnTopOfIt", func(t *testing.T) {
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Published != 1 {
			t.Fatalf("tick: %+v", rep)
		}
		live := b.Live(t)
		if a := live[v1.ID]; a.Rev != 3 || a.Hash != target.Hash || a.Body.Status != content.StatusPublished {
			t.Fatalf("article after release: %+v", a)
		}
		if p, ok := live[page.ID]; !ok || p.Rev != 1 {
			t.Fatalf("page lost by the release: %+v", p)
		}
	})
}

func TestScheduleNodeConcurrentlyPinsOnce(t *testing.T) {
	t.Parallel()

	setup := func(t *testing.T) *testBundle {
		t.Helper()
		return newBundle(t)
	}

	for _, tc := range []struct {
		name string
		body content.Body // the article's first version
	}{
		// A draft gets a new version in the same transaction as the release.
		{"Draft", content.Body{Title: "Draft", Slug: "draft", Status: content.StatusDraft}},
		// A published, dated node is pinned as it is: only the hold guards it.
		{"AlreadyPublished", content.Body{Title: "Ready", Slug: "ready", Status: content.StatusPublished, PublishedAt: &start}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := setup(t)
			n := b.CreateNode(t, b.Site.ID, release.KindContentEntry, tc.body)
			const callers = 8
			errs := make(chan error, callers)
			for i := range callers {
				go func() {
					_, err := b.Releases.ScheduleNode(context.Background(), b.Editor, releases.ScheduleInput{SiteID: b.Site.ID,
						NodeID: n.ID, ExpectedRev: n.Rev, Date: "2026-11-02", Time: fmt.Sprintf("09:%02d", i)})
					errs <- err
				}()
			}
			ok := 0
			for range callers {
				err := <-errs
				if err == nil {
					ok++
					continue
				}
				if e, isRefusal := engine.AsError(err); !isRefusal || (e.Code != engine.CodeStale && e.Code != engine.CodeScheduledLocked) {
					t.Errorf("loser got %v", err)
				}
			}
			// A draft needs one new version, so one caller wins; a published
			// node is pinned as it is and every caller overlaps (D15).
			want := 1
			if tc.body.Status == content.StatusPublished {
				want = callers
			}
			if ok != want {
				t.Fatalf("%d schedules succeeded, want %d", ok, want)
			}
			if c := b.Count(t, `SELECT count(*) FROM releases`); c != want {
				t.Fatalf("releases = %d, want %d", c, want)
			}
			if c := b.Count(t, `SELECT count(*) FROM node_versions WHERE node_id = ?`, n.ID); c > 2 {
				t.Fatalf("versions = %d", c)
			}
		})
	}
}

func TestEditNodeKeepsWhatTheEditorDoesNotShow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	p0 := time.Date(2026, 10, 1, 7, 0, 0, 0, time.UTC)
	n := b.CreateNode(t, b.Site.ID, release.KindContentEntry, content.Body{Title: "Budget", Slug: "budget", Lang: "tr",
		Status: content.StatusPublished, PublishedAt: &p0, Refs: []string{"ast_cover"}})
	got, err := b.Nodes.EditNode(ctx, b.Editor, b.Site.ID, n.ID, n.Rev,
		content.Edit{Title: "Budget 2027", Slug: "budget-2027", Summary: "New", Text: "Body", Status: content.StatusReview})
	if err != nil {
		t.Fatal(err)
	}
	want := content.Body{Title: "Budget 2027", Slug: "budget-2027", Summary: "New", Text: "Body", Status: content.StatusReview,
		Lang: "tr", PublishedAt: &p0, Refs: []string{"ast_cover"}}
	if got.Hash != content.Hash(want) || got.Rev != n.Rev+1 {
		t.Fatalf("saved %+v (rev %d), want %+v", got.Body, got.Rev, want)
	}
}

// The editor's "Schedule…" adds the dependency closure exactly as "New
// release…" does (§6.1 step 2): an article that uses a new, unpublished
// image is scheduled with the image, and both go live at the release's
// time, never before, instead of the run failing with dependency_missing.
func TestScheduleNodeAddsDependencyClosure(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("NewImageIsPublishedWithTheArticle", func(t *testing.T) {
		b := newBundle(t)
		img, err := b.Nodes.CreateAsset(ctx, b.Editor, b.Site.ID, content.Body{Title: "Harbour photo", Slug: "harbour.png",
			Status: content.StatusDraft, Mime: "image/png", Data: tinyPNG, Alt: "Cranes at dawn"})
		if err != nil {
			t.Fatal(err)
		}
		art := b.drSetRefs(t, b.Article.ID, img.ID)

		// The form shows it before confirming.
		added, err := b.Releases.ScheduleClosure(ctx, b.Editor, b.Site.ID, art.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(added) != 1 || added[0].NodeID != img.ID || added[0].Kind != release.KindAsset ||
			added[0].Title != "Harbour photo" || added[0].BecauseID != art.ID || added[0].Because != art.Body.Title {
			t.Fatalf("closure before scheduling %+v", added)
		}

		r := b.Schedule(t, b.Editor, art, "2026-11-02", "09:00")
		if got, want := drItemIDs(b.Release(t, r.ID)), drSorted(art.ID, img.ID); !slices.Equal(got, want) {
			t.Fatalf("items %v, want %v", got, want)
		}
		if want := []release.ClosureAdded{{NodeID: img.ID, Because: art.ID}}; !slices.Equal(r.ClosureAdded, want) ||
			!slices.Equal(b.Release(t, r.ID).ClosureAdded, want) {
			t.Fatalf("closureAdded %+v / stored %+v, want %+v", r.ClosureAdded, b.Release(t, r.ID).ClosureAdded, want)
		}
		imgItem := drItem(t, b.Release(t, r.ID), img.ID)
		if imgItem.Base != nil || imgItem.Target == nil || imgItem.Target.Rev != img.Rev+1 || imgItem.RestoreRev != img.Rev {
			t.Fatalf("image item %+v: want the draft image promoted (rev %d → %d)", imgItem, img.Rev, img.Rev+1)
		}
		if d := b.Node(t, img.ID); d.Held == nil || d.Held.ReleaseID != r.ID {
			t.Fatalf("image not held by the release: %+v", d.Held)
		}

		// A minute before: nothing is live.
		b.Clock.Set(nine.Add(-time.Minute))
		b.Tick(t)
		if live := b.Live(t); len(live) != 0 {
			t.Fatalf("live before the time: %v", live)
		}
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Published != 1 || rep.Failed != 0 {
			t.Fatalf("tick at the time %+v", rep)
		}
		got := b.Release(t, r.ID)
		if got.State != release.StatePublished {
			t.Fatalf("release %s (%+v), want published", got.State, got.Outcome)
		}
		live := b.Live(t)
		if _, ok := live[art.ID]; !ok {
			t.Fatal("article not live")
		}
		if l, ok := live[img.ID]; !ok || l.Body.Status != content.StatusPublished {
			t.Fatalf("image not live as published: %+v", l)
		}
	})

	t.Run("MissingReferenceIsRefusedNow", func(t *testing.T) {
		b := newBundle(t)
		gone := b.drPage(t, "Gone", content.StatusDraft)
		art := b.drSetRefs(t, b.Article.ID, gone.ID)
		if err := b.Nodes.DeleteNode(ctx, b.Editor, b.Site.ID, gone.ID, gone.Rev); err != nil {
			t.Fatal(err)
		}
		in := releases.ScheduleInput{SiteID: b.Site.ID, NodeID: art.ID, ExpectedRev: art.Rev, Date: "2026-11-02", Time: "09:00"}
		e := refuseSchedule(t, b, b.Editor, in, engine.CodeDependencyMissing, "")
		if e.Args["Node"] != gone.ID || e.Args["Title"] != art.Body.Title {
			t.Fatalf("refusal args %v", e.Args)
		}
		if _, err := b.Releases.ScheduleClosure(ctx, b.Editor, b.Site.ID, art.ID); err == nil {
			t.Fatal("the form's closure shows no refusal")
		}
	})

	t.Run("ClosureHeldByAnotherReleaseOverlaps", func(t *testing.T) {
		b := newBundle(t)
		dep := b.drPage(t, "Dep", content.StatusDraft)
		held := b.Schedule(t, b.Editor, dep, "2026-11-03", "09:00")
		art := b.drSetRefs(t, b.Article.ID, dep.ID)
		// The other release promoted it, so it joins this one as it is: an
		// overlap both releases show (D15), not a lock.
		in := releases.ScheduleInput{SiteID: b.Site.ID, NodeID: art.ID, ExpectedRev: art.Rev, Date: "2026-11-02", Time: "09:00"}
		r, err := b.Releases.ScheduleNode(ctx, b.Editor, in)
		if err != nil {
			t.Fatalf("an article using a held dependency: %v", err)
		}
		if !slices.ContainsFunc(r.ClosureAdded, func(c release.ClosureAdded) bool { return c.NodeID == dep.ID }) {
			t.Fatalf("closureAdded = %v, want %s", r.ClosureAdded, dep.ID)
		}
		ov, err := b.Releases.Overlaps(ctx, b.Editor, b.Site.ID, held.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(ov) != 1 || ov[0].ReleaseID != r.ID || !slices.Equal(ov[0].NodeIDs, []string{dep.ID}) {
			t.Fatalf("overlaps of the holder = %+v", ov)
		}
	})

	t.Run("LiveDependencyAddsNothing", func(t *testing.T) {
		b := newBundle(t)
		dep := b.drPage(t, "Sources", content.StatusPublished)
		b.drPublish(t)
		art := b.drSetRefs(t, b.Article.ID, dep.ID)
		r := b.Schedule(t, b.Editor, art, "2026-11-02", "09:00")
		if len(r.Items) != 1 || len(r.ClosureAdded) != 0 {
			t.Fatalf("items %+v", r.Items)
		}
	})
}
