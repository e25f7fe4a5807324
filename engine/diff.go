package engine

import (
	"context"
	"strings"

	"studio/engine/content"
	"studio/engine/localtime"
	"studio/engine/policy"
	"studio/engine/release"
)

// ReleaseDiff is a release with each item's live base and pinned target,
// the bodies a reviewer compares (RFC §13 GET …/releases/:id/diff). The
// approval page reads the same diffs through Approval.
func (e *Engine) ReleaseDiff(ctx context.Context, u User, siteID, id string) (ReleaseRow, []ItemDiff, error) {
	if err := require(u, policy.SchedulesRead); err != nil {
		return ReleaseRow{}, nil, err
	}
	r, err := e.store.Release(ctx, siteID, id)
	if err != nil {
		return ReleaseRow{}, nil, err
	}
	items, err := e.itemDiffs(ctx, r.Items)
	if err != nil {
		return ReleaseRow{}, nil, err
	}
	return r, items, nil
}

// itemDiffs reads the pinned versions of each item: the base (nil when the
// node was not live) and the target (nil for a removal).
func (e *Engine) itemDiffs(ctx context.Context, items []release.Item) ([]ItemDiff, error) {
	out := make([]ItemDiff, 0, len(items))
	for _, it := range items {
		d := ItemDiff{Item: it}
		if it.Base != nil {
			b, err := e.store.NodeVersion(ctx, it.NodeID, it.Base.Rev)
			if err != nil {
				return nil, err
			}
			d.Base = &b
		}
		if it.Target != nil {
			b, err := e.store.NodeVersion(ctx, it.NodeID, it.Target.Rev)
			if err != nil {
				return nil, err
			}
			d.Target = &b
		}
		out = append(out, d)
	}
	return out, nil
}

// FieldDiff is one field of an item's body as its base and its target have
// it; "" where a side lacks the field or the body.
type FieldDiff struct {
	Field  string // the body's JSON name: title, slug, status, …, availability.from
	Base   string
	Target string
}

// Changed reports whether the field differs between base and target.
func (f FieldDiff) Changed() bool { return f.Base != f.Target }

// Fields lists the body's fields other than its text, base against target,
// in the order an editor reads them. Instants are in the storage format
// (UTC, milliseconds).
func (d ItemDiff) Fields() []FieldDiff {
	base, target := fieldValues(d.Base), fieldValues(d.Target)
	out := make([]FieldDiff, len(diffFields))
	for i, name := range diffFields {
		out[i] = FieldDiff{Field: name, Base: base[name], Target: target[name]}
	}
	return out
}

// Text is the line diff of the body text, base against target.
func (d ItemDiff) Text() []content.DiffLine {
	var base, target string
	if d.Base != nil {
		base = d.Base.Text
	}
	if d.Target != nil {
		target = d.Target.Text
	}
	return content.DiffLines(base, target)
}

var diffFields = []string{"title", "slug", "status", "lang", "summary", "publishedAt",
	"availability.from", "availability.until", "refs"}

func fieldValues(b *content.Body) map[string]string {
	if b == nil {
		return map[string]string{}
	}
	m := map[string]string{"title": b.Title, "slug": b.Slug, "status": string(b.Status), "lang": b.Lang,
		"summary": b.Summary, "refs": strings.Join(b.Refs, " ")}
	if b.PublishedAt != nil {
		m["publishedAt"] = localtime.FormatInstant(*b.PublishedAt)
	}
	if a := b.Availability; a != nil {
		if a.From != nil {
			m["availability.from"] = localtime.FormatInstant(*a.From)
		}
		if a.Until != nil {
			m["availability.until"] = localtime.FormatInstant(*a.Until)
		}
	}
	return m
}

// AddressChange reports the public addresses of a live item whose pinned
// target moves it ("/posts/a" → "/posts/b"), so a reviewer sees that the
// old address will stop answering. A new or removed item has no change.
func (d ItemDiff) AddressChange() (from, to string, changed bool) {
	if d.Base == nil || d.Target == nil {
		return "", "", false
	}
	from, to = content.Path(d.Item.NodeKind, d.Base.Slug), content.Path(d.Item.NodeKind, d.Target.Slug)
	return from, to, from != to
}

// ReleaseDiffs is a release's diff as GET …/releases/:id/diff answers it
// (§13: "base → target per item; three-way after a conflict"): every item
// base → target and, for a release held as a conflict, the three-way view
// of each conflicting node (pinned base, live now, pinned target) that
// Studio's conflict page shows, from the same ConflictView.
type ReleaseDiffs struct {
	Release ReleaseRow
	Items   []ItemDiff
	// Conflict is the three-way view; nil unless the release is a conflict.
	Conflict *ConflictReview
}

// ReleaseDiffs reads a release's diff, three-way after a conflict.
func (e *Engine) ReleaseDiffs(ctx context.Context, u User, siteID, id string) (ReleaseDiffs, error) {
	r, items, err := e.ReleaseDiff(ctx, u, siteID, id)
	if err != nil {
		return ReleaseDiffs{}, err
	}
	d := ReleaseDiffs{Release: r, Items: items}
	if r.State == release.StateConflict {
		v, err := e.ConflictView(ctx, u, siteID, id)
		if err != nil {
			return ReleaseDiffs{}, err
		}
		d.Release, d.Conflict = v.Release, &v
	}
	return d, nil
}
